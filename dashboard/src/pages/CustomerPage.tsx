import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { $api, api, call, idempotencyKey, type Schemas } from '../api/client';
import { runOnSubmit, useAction } from '../hooks';
import { formatDate } from '../money';
import { Link } from '@tanstack/react-router';
import { groupCardNumber, TEST_CARDS } from '../test-cards';
import {
  ActionError,
  Badge,
  Button,
  EmptyState,
  Field,
  fieldError,
  FormActions,
  FormError,
  PageLoadError,
  Pager,
  QueryStatus,
  Spinner,
  Table,
  useCursor,
} from '../ui';
import { EventsTable } from './EventsPage';
import { cardLabel, NewPaymentForm, PaymentsTable } from './payments-shared';

type Card = Schemas['CardResponse'];

/** One customer: their details, their cards (add one, choose the default), their payments. */
export function CustomerPage({ id }: { id: string }) {
  const customer = $api.useQuery('get', '/v1/customers/{id}', { params: { path: { id } } });
  const cards = $api.useQuery('get', '/v1/cards', { params: { query: { customer: id, limit: 100 } } });
  const cursor = useCursor();
  const payments = $api.useQuery(
    'get',
    '/api/v1/payments',
    {
      params: {
        query: { customer: id, limit: 10, ...(cursor.startingAfter ? { startingAfter: cursor.startingAfter } : {}) },
      },
    },
    { placeholderData: keepPreviousData },
  );
  const events = $api.useQuery('get', '/v1/events', { params: { query: { object: id, limit: 20 } } });
  const [addingCard, setAddingCard] = useState(false);
  const [paying, setPaying] = useState(false);
  const data = customer.data?.data;
  const cardRows = cards.data?.data ?? [];
  const paymentRows = payments.data?.data ?? [];

  if (customer.error) {
    return (
      <PageLoadError
        headingId="customer-heading"
        heading="Customer"
        error={customer.error}
        retry={() => void customer.refetch()}
      >
        <Link to="/customers">Back to the customers</Link>
      </PageLoadError>
    );
  }
  if (!data) return <Spinner label="Loading the customer" />;
  const name = [data.firstName, data.lastName].filter(Boolean).join(' ');

  return (
    <section aria-labelledby="customer-heading">
      <p className="breadcrumb">
        <Link to="/customers">Customers</Link> /
      </p>
      <h1 id="customer-heading">{data.email ?? name ?? data.id}</h1>
      <dl className="details">
        <div>
          <dt>Name</dt>
          <dd>{name || '—'}</dd>
        </div>
        <div>
          <dt>Id</dt>
          <dd className="mono" data-dynamic>
            {data.id}
          </dd>
        </div>
        <div>
          <dt>Country</dt>
          <dd>{data.country ?? '—'}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd data-dynamic>{formatDate(data.createdAt)}</dd>
        </div>
      </dl>

      <div className="page-head">
        <h2>Cards</h2>
        {!addingCard && <Button onClick={() => setAddingCard(true)}>Add a card</Button>}
      </div>
      {addingCard && (
        <AddCardForm customerId={id} onCancel={() => setAddingCard(false)} onAdded={() => setAddingCard(false)} />
      )}
      <QueryStatus query={cards} loading="Loading cards" />
      {cards.data && cardRows.length === 0 && !addingCard && (
        <EmptyState title="No cards yet.">
          Add a test card with <strong>Add a card</strong>: the first card becomes the default, and payments charge the
          default card.
        </EmptyState>
      )}
      {cardRows.length > 0 && (
        <ul className="cards" aria-busy={cards.isFetching || undefined}>
          {cardRows.map((card) => (
            <CardItem key={card.id} card={card} isDefault={card.id === data.defaultMethod} />
          ))}
        </ul>
      )}

      <div className="page-head">
        <h2>Payments</h2>
        {!paying && <Button onClick={() => setPaying(true)}>New payment</Button>}
      </div>
      {paying && (
        <NewPaymentForm
          customerId={id}
          onCancel={() => setPaying(false)}
          onCreated={() => {
            setPaying(false);
            cursor.reset();
          }}
        />
      )}
      <QueryStatus query={payments} loading="Loading payments" />
      {payments.data && paymentRows.length === 0 && cursor.page === 0 && !paying && (
        <EmptyState title="No payments from this customer yet.">
          {data.defaultMethod
            ? 'Charge their default card with New payment.'
            : 'Add a card first, then charge it with New payment.'}
        </EmptyState>
      )}
      {paymentRows.length > 0 && (
        <PaymentsTable
          payments={paymentRows}
          caption={`Payments of ${data.email ?? data.id}`}
          showCustomer={false}
          busy={payments.isFetching}
        />
      )}
      <Pager cursor={cursor} list={payments} lastId={paymentRows.at(-1)?.id} />

      <h2>Events</h2>
      <QueryStatus query={events} loading="Loading events" />
      {events.data && events.data.data.length === 0 && (
        <EmptyState title="No events about this customer.">Events are kept 30 days.</EmptyState>
      )}
      {events.data && events.data.data.length > 0 && (
        <EventsTable
          events={events.data.data}
          busy={events.isFetching}
          caption={`Latest events of ${data.email ?? data.id}, newest first`}
        />
      )}
    </section>
  );
}

function CardItem({ card, isDefault }: { card: Card; isDefault: boolean }) {
  const makeDefault = useAction(
    async () => {
      await call(
        api.POST('/v1/cards/{id}/default', {
          params: { path: { id: card.id }, header: { 'Idempotency-Key': idempotencyKey() } },
        }),
      );
    },
    { invalidates: ['/v1/cards', '/v1/customers', '/v1/events'] },
  );
  const label = cardLabel(card);
  return (
    <li className="card card-item" data-card={card.id} aria-label={label}>
      <div>
        <strong>{label}</strong>
        <div className="muted small">
          {card.funding}, {card.country}, expires{' '}
          {/* Test cards expire a few years from now: a date that moves with the year. */}
          <span data-dynamic>
            {String(card.expMonth).padStart(2, '0')}/{card.expYear}
          </span>
        </div>
      </div>
      <div className="row-actions">
        {isDefault ? (
          <Badge tone="good">Default</Badge>
        ) : (
          <Button
            variant="secondary"
            busy={makeDefault.busy}
            onClick={() => void makeDefault.run()}
            aria-label={`Make default: ${label}`}
          >
            Make default
          </Button>
        )}
        <ActionError error={makeDefault.error} />
      </div>
    </li>
  );
}

function AddCardForm({
  customerId,
  onCancel,
  onAdded,
}: {
  customerId: string;
  onCancel: () => void;
  onAdded: () => void;
}) {
  const nextYear = String(new Date().getFullYear() + 3);
  const [form, setForm] = useState({ cardNumber: '', expMonth: '12', expYear: nextYear, cvc: '' });
  const [key] = useState(idempotencyKey);
  const set = (name: keyof typeof form) => (event: { target: { value: string } }) =>
    setForm({ ...form, [name]: event.target.value });
  const add = useAction(
    async () => {
      await call(
        api.POST('/v1/cards', {
          body: { customer: customerId, ...form },
          params: { header: { 'Idempotency-Key': key } },
        }),
      );
      onAdded();
    },
    // The first card becomes the customer's default.
    { invalidates: ['/v1/cards', '/v1/customers', '/v1/events'] },
  );
  const error = (field: string) => fieldError(add.error, field);
  return (
    <form className="card" aria-labelledby="add-card-heading" onSubmit={runOnSubmit(add.run)}>
      <h3 id="add-card-heading">Add a test card</h3>
      <Field
        label="Card number"
        inputMode="numeric"
        autoComplete="off"
        required
        className="mono"
        value={form.cardNumber}
        onChange={set('cardNumber')}
        error={error('cardNumber')}
        hint="Test mode: only the test card numbers below are accepted; real cards are refused."
      />
      <div className="grid-3">
        <Field
          label="Expiry month"
          inputMode="numeric"
          required
          value={form.expMonth}
          onChange={set('expMonth')}
          error={error('expMonth')}
        />
        <Field
          label="Expiry year"
          inputMode="numeric"
          required
          value={form.expYear}
          onChange={set('expYear')}
          error={error('expYear')}
        />
        <Field
          label="CVC"
          inputMode="numeric"
          autoComplete="off"
          required
          value={form.cvc}
          onChange={set('cvc')}
          error={error('cvc')}
          hint="3 digits; 4 for American Express."
        />
      </div>
      <details className="test-cards">
        <summary>Test card numbers</summary>
        <p className="muted small">Any future expiry and any CVC work. Choose one to fill it in.</p>
        <Table caption="Test cards" columns={['Number', 'Brand', 'Charges']}>
          {TEST_CARDS.map((card) => (
            <tr key={card.number}>
              <td>
                <Button
                  variant="link"
                  className="mono"
                  onClick={() =>
                    setForm({
                      ...form,
                      cardNumber: card.number,
                      cvc: card.brand === 'American Express' ? '1234' : '123',
                    })
                  }
                  aria-label={`${groupCardNumber(card.number)}: use this ${card.brand} ${card.funding} card${card.failureCode ? `, whose charges fail with ${card.failureCode}` : ''}`}
                >
                  {groupCardNumber(card.number)}
                </Button>
              </td>
              <td>
                {card.brand} {card.funding}, {card.country}
              </td>
              <td>
                {card.failureCode ? (
                  <Badge tone="bad">fails: {card.failureCode.replace(/_/g, ' ')}</Badge>
                ) : (
                  <Badge tone="good">succeed</Badge>
                )}
              </td>
            </tr>
          ))}
        </Table>
      </details>
      <FormError error={add.error} fields={['cardNumber', 'expMonth', 'expYear', 'cvc']} />
      <FormActions busy={add.busy} onCancel={onCancel}>
        Add card
      </FormActions>
    </form>
  );
}
