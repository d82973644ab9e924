import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { $api, api, call, idempotencyKey } from '../api/client';
import { runOnSubmit, useAction } from '../hooks';
import { formatDate } from '../money';
import { Link, useNavigate } from '@tanstack/react-router';
import { useSession } from '../session';
import { Badge, Button, DataTable, EmptyState, Field, fieldError, FormActions, FormError, Pager, QueryStatus, useCursor } from '../ui';

const PAGE_SIZE = 20;

export function CustomersPage() {
  const session = useSession();
  const navigate = useNavigate();
  const cursor = useCursor();
  const customers = $api.useQuery(
    'get',
    '/v1/customers',
    { params: { query: { limit: PAGE_SIZE, ...(cursor.startingAfter ? { startingAfter: cursor.startingAfter } : {}) } } },
    { placeholderData: keepPreviousData },
  );
  const [creating, setCreating] = useState(false);
  const rows = customers.data?.data ?? [];

  return (
    <section aria-labelledby="customers-heading">
      <div className="page-head">
        <h1 id="customers-heading">Customers</h1>
        {!creating && <Button onClick={() => setCreating(true)}>New customer</Button>}
      </div>
      <p className="muted">The people and companies that pay, in {session.project?.name ?? 'this project'}. Open one to add a test card and charge it.</p>
      {creating && (
        <NewCustomer
          onCancel={() => setCreating(false)}
          onCreated={(id) => {
            setCreating(false);
            void navigate({ to: '/customers/$customerId', params: { customerId: id } });
          }}
        />
      )}
      <QueryStatus query={customers} loading="Loading customers" />
      {customers.data && rows.length === 0 && cursor.page === 0 && (
        <EmptyState title="No customers yet.">
          Create your first customer with <strong>New customer</strong>: an email is all it takes. Then add a test card to it and take a payment.
        </EmptyState>
      )}
      {rows.length > 0 && (
        <DataTable busy={customers.isFetching} caption="Customers, newest first" columns={['Customer', 'Name', 'Country', 'Default card', 'Created']}>
          {rows.map((customer) => (
            <tr key={customer.id}>
              <th scope="row">
                <Link to="/customers/$customerId" params={{ customerId: customer.id }}>
                  {customer.email ?? <span className="mono">{customer.id}</span>}
                </Link>
              </th>
              <td>{[customer.firstName, customer.lastName].filter(Boolean).join(' ') || '—'}</td>
              <td>{customer.country ?? '—'}</td>
              <td>{customer.defaultMethod ? <Badge tone="good">Set</Badge> : <Badge tone="warn">None</Badge>}</td>
              <td>{formatDate(customer.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pager cursor={cursor} list={customers} lastId={rows.at(-1)?.id} />
    </section>
  );
}

function NewCustomer({ onCancel, onCreated }: { onCancel: () => void; onCreated: (id: string) => void }) {
  const [form, setForm] = useState({ email: '', firstName: '', lastName: '' });
  const [key] = useState(idempotencyKey);
  const set = (name: keyof typeof form) => (event: { target: { value: string } }) => setForm({ ...form, [name]: event.target.value });
  const create = useAction(async () => {
    const body = {
      email: form.email.trim(),
      ...(form.firstName.trim() ? { firstName: form.firstName.trim() } : {}),
      ...(form.lastName.trim() ? { lastName: form.lastName.trim() } : {}),
    };
    const created = await call(api.POST('/v1/customers', { body, params: { header: { 'Idempotency-Key': key } } }));
    onCreated(created.data.id);
  }, { invalidates: ['/v1/customers'] });
  const error = (field: string) => fieldError(create.error, field);
  return (
    <form className="card" aria-labelledby="new-customer-heading" onSubmit={runOnSubmit(create.run)}>
      <h2 id="new-customer-heading">New customer</h2>
      <Field label="Email" type="email" required autoFocus value={form.email} onChange={set('email')} error={error('email')} />
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
