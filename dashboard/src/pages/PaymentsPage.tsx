import { keepPreviousData } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { $api, asApiError, type Schemas } from '../api/client';
import { $search, searchFailureSentence } from '../api/search';
import { queryEnums } from '../api/enums';
import { quotedValueMatcher, SearchBox, SearchPager, useSearchPages } from '../search';
import { useSession } from '../session';
import { Button, EmptyState, LoadError, Pager, SelectField, Spinner, useCursor } from '../ui';
import { NewPaymentForm, PaymentsTable, useCustomerLabels } from './payments-shared';

type Status = Schemas['PaymentResponse']['status'];
/** A label for every status: a status the API adds fails to compile until it has one. */
const STATUS_LABELS: Record<Status, string> = {
  requires_confirmation: 'Awaiting confirmation',
  requires_payment_method: 'Needs a card',
  succeeded: 'Succeeded',
  failed: 'Failed',
  partially_refunded: 'Partially refunded',
  refunded: 'Refunded',
};
/** The statuses the list filter takes, as the document gives them. */
const STATUSES = queryEnums['/api/v1/payments'].status.map((value: Status) => ({ value, label: STATUS_LABELS[value] }));

export function PaymentsPage() {
  const session = useSession();
  const cursor = useCursor();
  const [status, setStatus] = useState<Status | ''>('');
  const [creating, setCreating] = useState(false);
  const [typed, setTyped] = useState('');
  const [searched, setSearched] = useState('');
  const payments = $api.useQuery(
    'get',
    '/api/v1/payments',
    {
      params: {
        query: {
          limit: 20,
          ...(status ? { status } : {}),
          ...(cursor.startingAfter ? { startingAfter: cursor.startingAfter } : {}),
        },
      },
    },
    { placeholderData: keepPreviousData },
  );
  const rows = useMemo(() => payments.data?.data ?? [], [payments.data]);
  const customerLabels = useCustomerLabels(rows);

  return (
    <section aria-labelledby="payments-heading">
      <div className="page-head">
        <h1 id="payments-heading">Payments</h1>
        {!creating && <Button onClick={() => setCreating(true)}>New payment</Button>}
      </div>
      <p className="muted">
        Payments in {session.project?.name ?? 'this project'}, newest first. Confirm the ones waiting; refund charged
        ones in part or in full.
      </p>
      {creating && (
        <NewPaymentForm
          onCancel={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            cursor.reset();
          }}
        />
      )}
      <SearchBox
        surface="payments"
        label="Search payments"
        placeholder="amount>1000 AND currency:'usd'"
        value={typed}
        onChange={setTyped}
        onRun={({ query }) => {
          setTyped(query);
          setSearched(query);
        }}
        hint={
          <>
            Fields <span className="mono">amount</span> (in cents: 1000 is 10.00),{' '}
            <span className="mono">currency</span>, <span className="mono">customer</span>,{' '}
            <span className="mono">status</span>, <span className="mono">created</span> and{' '}
            <span className="mono">metadata</span>; <span className="mono">-</span> before a field excludes.
          </>
        }
      />
      {searched ? (
        <PaymentResults key={searched} query={searched} onClear={() => (setSearched(''), setTyped(''))} />
      ) : (
        <>
          <div className="filters">
            <SelectField
              label="Status"
              value={status}
              onChange={(event) => {
                setStatus(event.target.value as Status | '');
                cursor.reset();
              }}
            >
              <option value="">Any status</option>
              {STATUSES.map((candidate) => (
                <option key={candidate.value} value={candidate.value}>
                  {candidate.label}
                </option>
              ))}
            </SelectField>
            {payments.isFetching && <Spinner label="Loading payments" />}
          </div>
          {payments.error && <LoadError error={payments.error} retry={() => void payments.refetch()} />}
          {payments.data && rows.length === 0 && cursor.page === 0 && (
            <EmptyState title={status ? 'No payments with this status.' : 'No payments yet.'}>
              {status
                ? 'Choose another status, or Any status.'
                : 'Create one with New payment: pick a customer with a card, an amount and a currency.'}
            </EmptyState>
          )}
          {rows.length > 0 && (
            <PaymentsTable
              payments={rows}
              caption="Payments, newest first"
              customerLabels={customerLabels}
              busy={payments.isFetching}
            />
          )}
          <Pager cursor={cursor} list={payments} lastId={rows.at(-1)?.id} />
        </>
      )}
    </section>
  );
}

/** The payments a query in Stripe's search language matches, with the same actions as the list. */
function PaymentResults({ query, onClear }: { query: string; onClear: () => void }) {
  const pages = useSearchPages();
  const results = $search.useQuery(
    'get',
    '/v1/payments/search',
    { params: { query: { query, limit: 20, ...(pages.page ? { page: pages.page } : {}) } } },
    { placeholderData: keepPreviousData },
  );
  const rows = useMemo(() => results.data?.data ?? [], [results.data]);
  const customerLabels = useCustomerLabels(rows);
  const count = results.data?.total_count;
  return (
    <section aria-labelledby="payment-results-heading">
      <div className="page-head">
        <h2 id="payment-results-heading">Results for {query}</h2>
        <Button variant="secondary" onClick={onClear}>
          Clear search
        </Button>
      </div>
      {results.error && (
        <p className="form-error" role="alert">
          {searchFailureSentence(asApiError(results.error))}
        </p>
      )}
      {results.isPending && !results.error && <Spinner label="Searching payments" />}
      {results.data && (
        <p className="muted small" role="status">
          {count === undefined
            ? `${rows.length} shown`
            : `${count} ${count === 1 ? 'payment matches' : 'payments match'}`}
          . Results follow changes within a few seconds.
        </p>
      )}
      {results.data && rows.length === 0 && (
        <EmptyState title="No payment matches this search.">Try fewer conditions, or OR between them.</EmptyState>
      )}
      {rows.length > 0 && (
        <PaymentsTable
          payments={rows}
          caption={`Payments matching ${query}`}
          customerLabels={customerLabels}
          highlight={quotedValueMatcher(query)}
          busy={results.isFetching}
        />
      )}
      <SearchPager
        pages={pages}
        hasMore={results.data?.has_more ?? false}
        nextPage={results.data?.next_page ?? null}
        busy={results.isFetching}
      />
    </section>
  );
}
