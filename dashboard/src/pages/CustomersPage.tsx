import { keepPreviousData } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Text } from '@mantine/core';
import { DateTime } from '../components/date-time';
import { ListTable, type ListColumn } from '../components/list-table';
import { DefaultCard } from './payments-shared';
import { $api, api, asApiError, call, idempotencyKey, type ErrorBody, type Schemas } from '../api/client';
import { $search, searchFailureSentence } from '../api/search';
import { runOnSubmit, useAction } from '../hooks';
import { Link, useNavigate } from '@tanstack/react-router';
import { Highlight, quotedValueMatcher, SearchBox, SearchPager, useSearchPages } from '../search';
import { useSession } from '../session';
import {
  Button,
  EmptyState,
  Field,
  fieldError,
  FormActions,
  FormError,
  Pager,
  QueryStatus,
  Spinner,
  useCursor,
} from '../ui';

const PAGE_SIZE = 20;
const QUERY_EXAMPLE = "email:'jenny@example.com'";

export function CustomersPage() {
  const session = useSession();
  const navigate = useNavigate();
  const cursor = useCursor();
  const customers = $api.useQuery(
    'get',
    '/v1/customers',
    {
      params: { query: { limit: PAGE_SIZE, ...(cursor.startingAfter ? { startingAfter: cursor.startingAfter } : {}) } },
    },
    { placeholderData: keepPreviousData },
  );
  const [creating, setCreating] = useState(false);
  const [typed, setTyped] = useState('');
  const [searched, setSearched] = useState('');
  const rows = customers.data?.data ?? [];

  return (
    <section aria-labelledby="customers-heading">
      <div className="page-head">
        <h1 id="customers-heading">Customers</h1>
        {!creating && <Button onClick={() => setCreating(true)}>New customer</Button>}
      </div>
      <p className="muted">
        The people and companies that pay, in {session.project?.name ?? 'this project'}. Open one to add a test card and
        charge it.
      </p>
      {creating && (
        <NewCustomer
          onCancel={() => setCreating(false)}
          onCreated={(id) => {
            setCreating(false);
            void navigate({ to: '/customers/$customerId', params: { customerId: id } });
          }}
        />
      )}
      <SearchBox
        surface="customers"
        label="Search customers"
        placeholder={QUERY_EXAMPLE}
        value={typed}
        onChange={setTyped}
        onRun={({ query }) => {
          setTyped(query);
          setSearched(query);
        }}
        hint={
          <>
            Fields <span className="mono">email</span>, <span className="mono">name</span>,{' '}
            <span className="mono">phone</span>, <span className="mono">created</span> and{' '}
            <span className="mono">metadata</span>: <span className="mono">:</span> for exact,{' '}
            <span className="mono">~</span> for a part (3 characters or more), joined by AND or OR.
          </>
        }
      />
      {searched ? (
        <CustomerResults key={searched} query={searched} onClear={() => (setSearched(''), setTyped(''))} />
      ) : (
        <CustomerList customers={customers} cursor={cursor} rows={rows} />
      )}
    </section>
  );
}

type Customer = Schemas['CustomerResponse'];

function CustomerList({
  customers,
  cursor,
  rows,
}: {
  customers: {
    data?: { hasMore: boolean };
    error: ErrorBody | null;
    isPending: boolean;
    isFetching: boolean;
    refetch: () => unknown;
  };
  cursor: ReturnType<typeof useCursor>;
  rows: Customer[];
}) {
  return (
    <>
      <QueryStatus query={customers} loading="Loading customers" />
      {customers.data && rows.length === 0 && cursor.page === 0 && (
        <EmptyState title="No customers yet.">
          Create your first customer with <strong>New customer</strong>: an email is all it takes. Then add a test card
          to it and take a payment.
        </EmptyState>
      )}
      {rows.length > 0 && <CustomersTable rows={rows} busy={customers.isFetching} caption="Customers, newest first" />}
      <Pager cursor={cursor} list={customers} lastId={rows.at(-1)?.id} />
    </>
  );
}

/** The customers a query in Stripe's search language matches, what it compared marked. */
function CustomerResults({ query, onClear }: { query: string; onClear: () => void }) {
  const pages = useSearchPages();
  const results = $search.useQuery(
    'get',
    '/v1/customers/search',
    { params: { query: { query, limit: PAGE_SIZE, ...(pages.page ? { page: pages.page } : {}) } } },
    { placeholderData: keepPreviousData },
  );
  const rows = results.data?.data ?? [];
  const count = results.data?.total_count;
  return (
    <section aria-labelledby="customer-results-heading">
      <div className="page-head">
        <h2 id="customer-results-heading">Results for {query}</h2>
        <Button variant="secondary" onClick={onClear}>
          Clear search
        </Button>
      </div>
      {results.error && (
        <p className="form-error" role="alert">
          {searchFailureSentence(asApiError(results.error))}
        </p>
      )}
      {results.isPending && !results.error && <Spinner label="Searching customers" />}
      {results.data && (
        <p className="muted small" role="status">
          {count === undefined
            ? `${rows.length} shown`
            : `${count} ${count === 1 ? 'customer matches' : 'customers match'}`}
          . Results follow changes within a few seconds.
        </p>
      )}
      {results.data && rows.length === 0 && (
        <EmptyState title="No customer matches this search.">
          Try a part of the value with ~, or another field.
        </EmptyState>
      )}
      {rows.length > 0 && (
        <CustomersTable
          rows={rows}
          busy={results.isFetching}
          caption={`Customers matching ${query}`}
          highlight={quotedValueMatcher(query)}
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

function CustomersTable({
  rows,
  busy,
  caption,
  highlight,
}: {
  rows: Customer[];
  busy: boolean;
  caption: string;
  highlight?: ReturnType<typeof quotedValueMatcher>;
}) {
  const columns = useMemo<ListColumn<Customer>[]>(() => {
    const mark = highlight ?? (() => []);
    const name = (customer: Customer) => [customer.firstName, customer.lastName].filter(Boolean).join(' ');
    return [
      {
        id: 'customer',
        header: 'Customer',
        sortBy: (customer) => customer.email ?? customer.id,
        cell: (customer) => (
          <Link to="/customers/$customerId" params={{ customerId: customer.id }} id={`customer-${customer.id}`}>
            {customer.email ? (
              <Highlight text={customer.email} match={mark} />
            ) : (
              <Text span ff="monospace" fz="sm">
                {customer.id}
              </Text>
            )}
          </Link>
        ),
      },
      {
        id: 'name',
        header: 'Name',
        sortBy: (customer) => name(customer) || undefined,
        cell: (customer) => <Highlight text={name(customer) || '—'} match={mark} />,
      },
      {
        id: 'country',
        header: 'Country',
        width: 100,
        sortBy: (customer) => customer.country ?? undefined,
        cell: (customer) => customer.country ?? '—',
      },
      {
        id: 'card',
        header: 'Default card',
        width: 200,
        cell: (customer) => <DefaultCard cardId={customer.defaultMethod} />,
      },
      {
        id: 'created',
        header: 'Created',
        width: 170,
        sortBy: (customer) => new Date(customer.createdAt),
        cell: (customer) => <DateTime value={customer.createdAt} />,
      },
      {
        id: 'actions',
        header: 'Actions',
        width: 120,
        align: 'right',
        cell: (customer) => (
          <Link
            to="/customers/$customerId"
            params={{ customerId: customer.id }}
            // Named "Open", described by the row's customer: the customer's own link keeps their name to itself.
            aria-describedby={`customer-${customer.id}`}
          >
            Open
          </Link>
        ),
      },
    ];
  }, [highlight]);
  return (
    <ListTable
      caption={caption}
      rows={rows}
      columns={columns}
      rowKey={(customer) => customer.id}
      busy={busy}
      rowProps={(customer) => ({ 'data-customer': customer.id })}
    />
  );
}

function NewCustomer({ onCancel, onCreated }: { onCancel: () => void; onCreated: (id: string) => void }) {
  const [form, setForm] = useState({ email: '', firstName: '', lastName: '' });
  const [key] = useState(idempotencyKey);
  const set = (name: keyof typeof form) => (event: { target: { value: string } }) =>
    setForm({ ...form, [name]: event.target.value });
  const create = useAction(
    async () => {
      const body = {
        email: form.email.trim(),
        ...(form.firstName.trim() ? { firstName: form.firstName.trim() } : {}),
        ...(form.lastName.trim() ? { lastName: form.lastName.trim() } : {}),
      };
      const created = await call(api.POST('/v1/customers', { body, params: { header: { 'Idempotency-Key': key } } }));
      onCreated(created.data.id);
    },
    { invalidates: ['/v1/customers'] },
  );
  const error = (field: string) => fieldError(create.error, field);
  return (
    <form className="card" aria-labelledby="new-customer-heading" onSubmit={runOnSubmit(create.run)}>
      <h2 id="new-customer-heading">New customer</h2>
      <Field
        label="Email"
        type="email"
        required
        autoFocus
        value={form.email}
        onChange={set('email')}
        error={error('email')}
      />
      <div className="grid-2">
        <Field label="First name" value={form.firstName} onChange={set('firstName')} error={error('firstName')} />
        <Field label="Last name" value={form.lastName} onChange={set('lastName')} error={error('lastName')} />
      </div>
      <FormError error={create.error} fields={['email', 'firstName', 'lastName']} />
      <FormActions busy={create.busy} onCancel={onCancel}>
        Create customer
      </FormActions>
    </form>
  );
}
