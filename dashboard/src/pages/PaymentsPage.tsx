import { keepPreviousData } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { $api, type Schemas } from '../api/client';
import { queryEnums } from '../api/enums';
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
  const payments = $api.useQuery(
    'get',
    '/api/v1/payments',
    { params: { query: { limit: 20, ...(status ? { status } : {}), ...(cursor.startingAfter ? { startingAfter: cursor.startingAfter } : {}) } } },
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
      <p className="muted">Payments in {session.project?.name ?? 'this project'}, newest first. Confirm the ones waiting; refund charged ones in part or in full.</p>
      {creating && (
        <NewPaymentForm
          onCancel={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            cursor.reset();
          }}
        />
      )}
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
          {status ? 'Choose another status, or Any status.' : 'Create one with New payment: pick a customer with a card, an amount and a currency.'}
        </EmptyState>
      )}
      {rows.length > 0 && (
        <div aria-busy={payments.isFetching || undefined}>
          <PaymentsTable payments={rows} caption="Payments, newest first" customerLabels={customerLabels} />
        </div>
      )}
      <Pager cursor={cursor} list={payments} lastId={rows.at(-1)?.id} />
    </section>
  );
}
