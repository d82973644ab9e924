import { Group, Stack, Text, Timeline } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { $api, type Schemas } from '../api/client';
import { formatDate, formatMoney } from '../money';
import { Button, EmptyState, PageLoadError, QueryStatus, Spinner, StatusBadge } from '../ui';
import { EventDeliveries, useSeesDeliveries } from './event-deliveries';
import {
  PaymentActions,
  PaymentAmount,
  RefundDialog,
  refundable,
  useCustomerLabels,
  type Payment,
} from './payments-shared';

type Event = Schemas['EventResponse'];

/** What a payment event says, in words, with the amounts it moved. */
function eventTitle(event: Event, currency: string): string {
  const object = event.data.object as Partial<Payment>;
  const before = (event.data.previousAttributes ?? {}) as Partial<Payment>;
  switch (event.type) {
    case 'payment.created':
      return `Created for ${formatMoney(object.amount ?? 0, currency)}`;
    case 'payment.succeeded':
      return before.status
        ? `Confirmed and charged ${formatMoney(object.amount ?? 0, currency)}`
        : `Charged ${formatMoney(object.amount ?? 0, currency)}`;
    case 'payment.failed':
      return `Charge failed${object.failureCode ? `: ${object.failureCode.replace(/_/g, ' ')}` : ''}`;
    case 'payment.refunded': {
      const amount = (object.amountRefunded ?? 0) - (before.amountRefunded ?? 0);
      const left = (object.amount ?? 0) - (object.amountRefunded ?? 0);
      return `Refunded ${formatMoney(amount, currency)}${left > 0 ? `, ${formatMoney(left, currency)} left` : ', in full'}`;
    }
    default:
      return event.type;
  }
}

/**
 * One payment, as Stripe's payment page has it: its amount and state, the actions it takes (confirm,
 * refund), and its timeline: every event it recorded and, for those who manage webhooks, where each
 * event was delivered, how, and when a pending one is tried next.
 */
export function PaymentPage({ id }: { id: string }) {
  const payment = $api.useQuery('get', '/api/v1/payments/{id}', { params: { path: { id } } });
  const events = $api.useQuery('get', '/v1/events', { params: { query: { object: id, limit: 100 } } });
  const seesDeliveries = useSeesDeliveries();
  const [refunding, setRefunding] = useState(false);
  const data = payment.data;
  const customerLabels = useCustomerLabels(data ? [data] : []);

  if (payment.error) {
    return (
      <PageLoadError
        headingId="payment-heading"
        heading="Payment"
        error={payment.error}
        retry={() => void payment.refetch()}
      >
        <Link to="/payments">Back to the payments</Link>
      </PageLoadError>
    );
  }
  if (!data) return <Spinner label="Loading the payment" />;
  // Oldest first: the timeline reads as the payment's story.
  const timeline = [...(events.data?.data ?? [])].reverse();
  const customer = customerLabels.get(data.customer);

  return (
    <section aria-labelledby="payment-heading">
      <p className="breadcrumb">
        <Link to="/payments">Payments</Link> /
      </p>
      <Group justify="space-between" align="flex-start" wrap="wrap">
        <Group gap="sm" align="baseline">
          <h1 id="payment-heading">Payment of {formatMoney(data.amount, data.currency)}</h1>
          <StatusBadge status={data.status} />
        </Group>
        <PaymentActions payment={data} onRefund={() => setRefunding(true)} />
      </Group>
      <dl className="details">
        <div>
          <dt>Amount</dt>
          <dd>
            <PaymentAmount payment={data} />
          </dd>
        </div>
        <div>
          <dt>Left to refund</dt>
          <dd>{formatMoney(refundable(data), data.currency)}</dd>
        </div>
        <div>
          <dt>Customer</dt>
          <dd>
            <Link to="/customers/$customerId" params={{ customerId: data.customer }}>
              {customer ?? 'Open the customer'}
            </Link>
          </dd>
        </div>
        <div>
          <dt>Description</dt>
          <dd>{data.description ?? '—'}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd data-dynamic>{formatDate(data.createdAt)}</dd>
        </div>
        <div>
          <dt>Id</dt>
          <dd className="mono" data-dynamic>
            {data.id}
          </dd>
        </div>
      </dl>

      <Group justify="space-between" mt="lg">
        <h2 id="timeline-heading">Timeline</h2>
        <Button variant="secondary" busy={events.isFetching} onClick={() => void events.refetch()}>
          Refresh
        </Button>
      </Group>
      <QueryStatus query={events} loading="Loading the timeline" />
      {events.data && timeline.length === 0 && (
        <EmptyState title="Nothing recorded yet.">Events are kept 30 days; older ones are no longer shown.</EmptyState>
      )}
      {timeline.length > 0 && (
        <Timeline
          active={timeline.length - 1}
          bulletSize={14}
          lineWidth={2}
          role="list"
          aria-labelledby="timeline-heading"
        >
          {timeline.map((event) => (
            <Timeline.Item
              key={event.id}
              role="listitem"
              data-event={event.id}
              data-type={event.type}
              title={
                <Text span fw={600}>
                  {eventTitle(event, data.currency)}
                </Text>
              }
            >
              <Stack gap={4}>
                <Text fz="sm" c="var(--muted)" data-dynamic>
                  {formatDate(event.createdAt)}
                </Text>
                {seesDeliveries && <EventDeliveries eventId={event.id} eventType={event.type} />}
              </Stack>
            </Timeline.Item>
          ))}
        </Timeline>
      )}
      <RefundDialog payment={refunding ? data : undefined} onClose={() => setRefunding(false)} />
    </section>
  );
}
