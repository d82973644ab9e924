import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { $api, api, call, idempotencyKey, type Schemas } from '../api/client';
import { runOnSubmit, useAction } from '../hooks';
import { amountStep, COMMON_CURRENCIES, currencyDecimals, formatDate, formatMoney } from '../money';
import { Link } from '@tanstack/react-router';
import { Highlight, NO_MATCH, type Matcher } from '../search';
import { useSession } from '../session';
import { Group, Modal, Text, Tooltip } from '@mantine/core';
import { DateTime } from '../components/date-time';
import { ListTable, type ListColumn } from '../components/list-table';
import {
  ActionError,
  Badge,
  Button,
  errorFields,
  Field,
  fieldError,
  FormActions,
  FormError,
  SelectField,
  StatusBadge,
} from '../ui';

export type Payment = Schemas['PaymentResponse'];
type PaymentStatus = Payment['status'];

type Customer = Schemas['CustomerResponse'];

/** How a payment's customer is named: the email, else the name; unknown (deleted, say): undefined. */
function customerLabel(customer: Customer): string | undefined {
  const name = [customer.firstName, customer.lastName].filter(Boolean).join(' ');
  return customer.email ?? (name || undefined);
}

/**
 * The labels of the customers these payments name, by id: one list of the project's newest
 * customers, then each one still unknown (an older customer) read on its own. The payments API
 * carries only the customer's id.
 */
export function useCustomerLabels(payments: Payment[]): Map<string, string> {
  const newest = $api.useQuery('get', '/v1/customers', { params: { query: { limit: 100 } } });
  const missing = useMemo(() => {
    if (!newest.data) return [];
    const known = new Set(newest.data.data.map((customer) => customer.id));
    return [...new Set(payments.map((payment) => payment.customer))].filter((id) => !known.has(id)).sort();
  }, [newest.data, payments]);
  const older = useQuery({
    // Under the path it reads, so a change to customers makes it stale like their other reads.
    queryKey: ['get', '/v1/customers/{id}', { ids: missing }],
    queryFn: async ({ signal }) => {
      const found: Customer[] = [];
      // One at a time: a page names at most its size in customers, and a burst would spend the rate limit.
      for (const id of missing) {
        const read = await call(api.GET('/v1/customers/{id}', { params: { path: { id } }, signal })).catch(
          () => undefined,
        );
        if (read) found.push(read.data);
      }
      return found;
    },
    enabled: missing.length > 0,
  });
  return useMemo(() => {
    const labels = new Map<string, string>();
    for (const customer of [...(newest.data?.data ?? []), ...(older.data ?? [])]) {
      const label = customerLabel(customer);
      if (label) labels.set(customer.id, label);
    }
    return labels;
  }, [newest.data, older.data]);
}

/** What a payment's change makes stale: the payment lists, the summary, the events, the audit log (refunds). */
export const PAYMENT_CHANGE = {
  invalidates: ['/api/v1/payments', '/v1/events', '/api/v1/accounts/{accountId}/audit-log'],
} as const;

const CONFIRMABLE: readonly PaymentStatus[] = ['requires_confirmation', 'requires_payment_method'];
const REFUNDABLE: readonly PaymentStatus[] = ['succeeded', 'partially_refunded'];

/** Create a payment for a customer (given, or picked from the project's customers), charged now or confirmed later. */
export function NewPaymentForm({
  customerId,
  onCreated,
  onCancel,
}: {
  customerId?: string;
  onCreated: (payment: Payment) => void;
  onCancel?: () => void;
}) {
  const [form, setForm] = useState({
    customer: customerId ?? '',
    amount: '',
    currency: 'usd',
    description: '',
    confirm: true,
  });
  const [key, setKey] = useState(idempotencyKey);
  // The picker's customers; not read when the customer is given.
  const customers = $api.useQuery(
    'get',
    '/v1/customers',
    { params: { query: { limit: 100 } } },
    { enabled: !customerId },
  );
  const create = useAction(async () => {
    const payment = await call(
      api.POST('/api/v1/payments', {
        body: {
          customer: form.customer,
          amount: Number(form.amount),
          currency: form.currency,
          confirm: form.confirm,
          ...(form.description.trim() ? { description: form.description.trim() } : {}),
        },
        params: { header: { 'Idempotency-Key': key } },
      }),
    );
    setKey(idempotencyKey());
    setForm({ ...form, amount: '', description: '' });
    onCreated(payment);
  }, PAYMENT_CHANGE);
  const error = (field: string) => fieldError(create.error, field);
  const set = (name: 'customer' | 'amount' | 'currency' | 'description') => (event: { target: { value: string } }) => {
    setForm({ ...form, [name]: event.target.value });
    // Another request: another key.
    setKey(idempotencyKey());
  };
  const customerOptions = customers.data?.data ?? [];

  return (
    <form className="card" aria-labelledby="new-payment-heading" onSubmit={runOnSubmit(create.run)}>
      <h2 id="new-payment-heading">New payment</h2>
      {!customerId && (
        <SelectField
          label="Customer"
          required
          value={form.customer}
          onChange={set('customer')}
          error={error('customer')}
          hint={
            customers.data && customerOptions.length === 0 ? (
              <>
                No customers yet: <Link to="/customers">create one</Link> first.
              </>
            ) : (
              'The customer whose default card is charged.'
            )
          }
        >
          <option value="">{customers.isFetching ? 'Loading customers…' : 'Choose a customer'}</option>
          {customerOptions.map((customer) => (
            <option key={customer.id} value={customer.id}>
              {customer.email ?? customer.id}
              {customer.defaultMethod ? '' : ' (no card)'}
            </option>
          ))}
        </SelectField>
      )}
      <div className="grid-2">
        <Field
          label="Amount"
          type="number"
          inputMode="decimal"
          required
          min={0}
          step={amountStep(form.currency)}
          value={form.amount}
          onChange={set('amount')}
          error={error('amount')}
          hint="In the currency's major units, e.g. 19.99."
        />
        <SelectField label="Currency" value={form.currency} onChange={set('currency')} error={error('currency')}>
          {COMMON_CURRENCIES.map((code) => (
            <option key={code} value={code}>
              {code.toUpperCase()}
            </option>
          ))}
        </SelectField>
      </div>
      <Field
        label="Description"
        value={form.description}
        onChange={set('description')}
        error={error('description')}
        placeholder="Order #1042"
      />
      <fieldset>
        <legend>When to charge</legend>
        <div className="radio-row">
          <label>
            <input
              type="radio"
              name="confirm"
              checked={form.confirm}
              onChange={() => setForm({ ...form, confirm: true })}
            />{' '}
            Charge the default card now
          </label>
          <label>
            <input
              type="radio"
              name="confirm"
              checked={!form.confirm}
              onChange={() => setForm({ ...form, confirm: false })}
            />{' '}
            Confirm later
          </label>
        </div>
      </fieldset>
      <FormError error={create.error} fields={['customer', 'amount', 'currency', 'description']} />
      <FormActions busy={create.busy} onCancel={onCancel}>
        {form.confirm ? 'Create and charge' : 'Create payment'}
      </FormActions>
    </form>
  );
}

type Card = Schemas['CardResponse'];

/** Brands as a person names them. */
const BRAND_LABELS: Record<Card['brand'], string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
};

/** A card as a receipt shows it: "Visa •••• 4242". */
export function cardLabel(card: Pick<Card, 'brand' | 'last4'>): string {
  return `${BRAND_LABELS[card.brand] ?? card.brand} •••• ${card.last4}`;
}

/** A customer's default card as "Visa •••• 4242" (one read per card, cached), "None" without one. */
export function DefaultCard({ cardId }: { cardId: string | null }) {
  const card = $api.useQuery(
    'get',
    '/v1/cards/{id}',
    { params: { path: { id: cardId ?? '' } } },
    { enabled: !!cardId },
  );
  if (!cardId) return <Badge tone="warn">None</Badge>;
  if (!card.data)
    return (
      <Text span c="var(--muted)">
        …
      </Text>
    );
  return (
    <Text span ff="monospace" fz="sm" style={{ whiteSpace: 'nowrap' }}>
      {cardLabel(card.data.data)}
    </Text>
  );
}

/** Who may refund: managers, admins and the owner (the API says so too). */
export function useCanRefund(): boolean {
  const session = useSession();
  return Boolean(session.account?.owner || session.account?.role === 'admin' || session.account?.role === 'manager');
}

/** What is left to refund, in the currency's decimals. */
export function refundable(payment: Payment): number {
  const scale = 10 ** currencyDecimals(payment.currency);
  return Math.round((payment.amount - payment.amountRefunded) * scale) / scale;
}

export const isConfirmable = (payment: Payment) => CONFIRMABLE.includes(payment.status);
export const isRefundable = (payment: Payment) => REFUNDABLE.includes(payment.status);

/** A payment's amount, and what was refunded of it. */
export function PaymentAmount({ payment }: { payment: Payment }) {
  return (
    <>
      <Text span fw={600} style={{ whiteSpace: 'nowrap' }}>
        {formatMoney(payment.amount, payment.currency)}
      </Text>
      {payment.amountRefunded > 0 && (
        <Text span c="var(--muted)" fz="xs" style={{ whiteSpace: 'nowrap' }}>
          {' '}
          ({formatMoney(payment.amountRefunded, payment.currency)} refunded)
        </Text>
      )}
    </>
  );
}

/**
 * Payments as a list, each row opening its payment's page, with its actions: confirm a pending one,
 * refund a charged one in part or in full (in a dialog).
 */
export function PaymentsTable({
  payments,
  caption,
  showCustomer = true,
  customerLabels,
  highlight = NO_MATCH,
  busy,
}: {
  payments: Payment[];
  caption: string;
  showCustomer?: boolean;
  /** Customers' emails or names by id (`useCustomerLabels`); an id fragment shows for the others. */
  customerLabels?: Map<string, string>;
  /** What a search matched, marked in the customer and the description. */
  highlight?: Matcher;
  busy?: boolean;
}) {
  const [refunding, setRefunding] = useState<Payment | undefined>();
  const columns = useMemo<ListColumn<Payment>[]>(
    () => [
      {
        id: 'amount',
        header: 'Amount',
        width: 190,
        sortBy: (payment) => payment.amount,
        cell: (payment) => (
          <Link
            to="/payments/$paymentId"
            params={{ paymentId: payment.id }}
            aria-label={`Payment of ${formatMoney(payment.amount, payment.currency)}, ${STATUS_WORDS[payment.status]}, ${formatDate(payment.createdAt)}`}
          >
            <PaymentAmount payment={payment} />
          </Link>
        ),
      },
      {
        id: 'status',
        header: 'Status',
        width: 170,
        sortBy: (payment) => payment.status,
        cell: (payment) => (
          <>
            <StatusBadge status={payment.status} />
            {payment.failureCode && (
              <Text span c="var(--muted)" fz="xs">
                {' '}
                {payment.failureCode.replace(/_/g, ' ')}
              </Text>
            )}
          </>
        ),
      },
      ...(showCustomer
        ? [
            {
              id: 'customer',
              header: 'Customer',
              sortBy: (payment: Payment) => customerLabels?.get(payment.customer) ?? payment.customer,
              cell: (payment: Payment) => {
                const label = customerLabels?.get(payment.customer);
                return (
                  <Link to="/customers/$customerId" params={{ customerId: payment.customer }}>
                    {label ? (
                      // An email stays on one line, cut with an ellipsis, whole in the tooltip.
                      <Tooltip label={label} openDelay={300}>
                        <Text span display="block" fz="sm" truncate="end">
                          <Highlight text={label} match={highlight} />
                        </Text>
                      </Tooltip>
                    ) : (
                      <Text span ff="monospace" fz="sm">
                        {payment.customer.slice(-8)}
                      </Text>
                    )}
                  </Link>
                );
              },
            } satisfies ListColumn<Payment>,
          ]
        : []),
      {
        id: 'description',
        header: 'Description',
        sortBy: (payment) => payment.description ?? undefined,
        cell: (payment) => (payment.description ? <Highlight text={payment.description} match={highlight} /> : '—'),
      },
      {
        id: 'created',
        header: 'Created',
        width: 170,
        sortBy: (payment) => new Date(payment.createdAt),
        cell: (payment) => <DateTime value={payment.createdAt} />,
      },
      {
        id: 'actions',
        header: 'Actions',
        width: 200,
        align: 'right',
        cell: (payment) => <PaymentActions payment={payment} onRefund={() => setRefunding(payment)} />,
      },
    ],
    [showCustomer, customerLabels, highlight],
  );
  return (
    <>
      <ListTable
        caption={caption}
        rows={payments}
        columns={columns}
        rowKey={(payment) => payment.id}
        busy={busy}
        rowProps={(payment) => ({ 'data-payment': payment.id, 'data-status': payment.status })}
      />
      <RefundDialog payment={refunding} onClose={() => setRefunding(undefined)} />
    </>
  );
}

const STATUS_WORDS: Record<PaymentStatus, string> = {
  requires_confirmation: 'awaiting confirmation',
  requires_payment_method: 'needs a card',
  succeeded: 'succeeded',
  failed: 'failed',
  partially_refunded: 'partially refunded',
  refunded: 'refunded',
};

/** A row's buttons: Confirm while it waits, Refund once charged (for those who may). */
export function PaymentActions({ payment, onRefund }: { payment: Payment; onRefund: () => void }) {
  const canRefund = useCanRefund();
  const confirm = useAction(async () => {
    await call(
      api.POST('/api/v1/payments/{id}/confirm', {
        params: { path: { id: payment.id }, header: { 'Idempotency-Key': idempotencyKey() } },
      }),
    );
  }, PAYMENT_CHANGE);
  return (
    <Group gap="xs" justify="flex-end" wrap="nowrap">
      {isConfirmable(payment) && (
        <Button
          variant="secondary"
          busy={confirm.busy}
          onClick={() => void confirm.run()}
          aria-label={`Confirm payment of ${formatMoney(payment.amount, payment.currency)}`}
        >
          Confirm
        </Button>
      )}
      {isRefundable(payment) && canRefund && (
        <Button
          variant="secondary"
          onClick={onRefund}
          aria-label={`Refund payment of ${formatMoney(payment.amount, payment.currency)}`}
        >
          Refund
        </Button>
      )}
      <ActionError error={confirm.error} />
    </Group>
  );
}

/** The refund form in a dialog; a refund asks the person to confirm it is them (step-up) when the session needs it. */
export function RefundDialog({ payment, onClose }: { payment: Payment | undefined; onClose: () => void }) {
  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      // Gone when closed: no fading copy of the dialog stays over the page it returns to.
      transitionProps={{ duration: 0 }}
      opened={!!payment}
      onClose={onClose}
      title={payment ? `Refund ${formatMoney(payment.amount, payment.currency)}` : 'Refund'}
    >
      {payment && <RefundForm payment={payment} left={refundable(payment)} onCancel={onClose} onRefunded={onClose} />}
    </Modal>
  );
}

function RefundForm({
  payment,
  left,
  onCancel,
  onRefunded,
}: {
  payment: Payment;
  left: number;
  onCancel: () => void;
  onRefunded: () => void;
}) {
  const [amount, setAmount] = useState('');
  const [key, setKey] = useState(idempotencyKey);
  const refund = useAction(async () => {
    const body = amount.trim() ? { amount: Number(amount) } : {};
    await call(
      api.POST('/api/v1/payments/{id}/refund', {
        params: { path: { id: payment.id }, header: { 'Idempotency-Key': key } },
        body,
      }),
    );
    onRefunded();
  }, PAYMENT_CHANGE);
  return (
    <form
      className="inline-form"
      aria-label={`Refund ${formatMoney(payment.amount, payment.currency)}`}
      onSubmit={runOnSubmit(refund.run)}
    >
      <Field
        label={`Refund amount (${payment.currency.toUpperCase()})`}
        type="number"
        inputMode="decimal"
        min={0}
        step={amountStep(payment.currency)}
        autoFocus
        value={amount}
        onChange={(event) => {
          setAmount(event.target.value);
          setKey(idempotencyKey());
        }}
        placeholder={String(left)}
        hint={`Leave empty to refund all that is left: ${formatMoney(left, payment.currency)}.`}
        error={
          fieldError(refund.error, 'amount') ??
          (refund.error && !Object.keys(errorFields(refund.error)).length ? refund.error.message : undefined)
        }
      />
      <FormActions variant="danger" busy={refund.busy} onCancel={onCancel}>
        {amount.trim() ? `Refund ${formatMoney(Number(amount) || 0, payment.currency)}` : 'Refund in full'}
      </FormActions>
      {refund.error && Object.keys(errorFields(refund.error)).some((field) => field !== 'amount') && (
        <FormError error={refund.error} fields={['amount']} />
      )}
    </form>
  );
}
