import { Group, List, Stack, Text } from '@mantine/core';
import { $api, type Schemas } from '../api/client';
import { formatDate } from '../money';
import { useSession } from '../session';
import { Badge, QueryStatus } from '../ui';

type Delivery = Schemas['WebhookDeliveryResponse'];
type Attempt = Schemas['WebhookAttemptResponse'];

const DELIVERY_TONES = { pending: 'info', succeeded: 'good', failed: 'bad' } as const;
const DELIVERY_WORDS: Record<Delivery['status'], string> = {
  pending: 'Pending',
  succeeded: 'Delivered',
  failed: 'Failed',
};

/** "14:05" today, else the date and time: when a retry is due. */
export function formatTime(iso: string): string {
  const at = new Date(iso);
  const today = new Date().toDateString() === at.toDateString();
  return today
    ? new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(at)
    : formatDate(iso);
}

/** What a delivery waits for: its next try while pending, nothing once it is done. */
export function NextTry({ delivery }: { delivery: Pick<Delivery, 'status' | 'nextAttemptAt'> }) {
  if (delivery.status !== 'pending' || !delivery.nextAttemptAt) return null;
  return (
    <Text span fz="sm" c="var(--muted)" data-dynamic>
      Next try at {formatTime(delivery.nextAttemptAt)}
    </Text>
  );
}

export function DeliveryStatus({ status }: { status: Delivery['status'] }) {
  return <Badge tone={DELIVERY_TONES[status]}>{DELIVERY_WORDS[status]}</Badge>;
}

/** One attempt as a line: its outcome, the answer's status, the error, how long it took, when. */
export function attemptLine(attempt: Attempt): string {
  return [
    `${attempt.status}${attempt.responseStatus ? ` ${attempt.responseStatus}` : ''}`,
    attempt.error,
    attempt.durationMs !== null ? `${attempt.durationMs} ms` : null,
    formatDate(attempt.createdAt),
  ]
    .filter(Boolean)
    .join(' · ');
}

/** Whether this person may read deliveries: webhooks are the admins' (and the owner's). */
export function useSeesDeliveries(): boolean {
  const session = useSession();
  return Boolean(session.account?.owner || session.account?.role === 'admin');
}

/**
 * One event's deliveries to the project's endpoints: each endpoint's outcome, its attempts, and when
 * a pending one is tried next. Only for those who manage webhooks.
 */
export function EventDeliveries({ eventId, eventType }: { eventId: string; eventType: string }) {
  const deliveries = $api.useQuery('get', '/v1/events/{id}/deliveries', {
    params: { path: { id: eventId }, query: { limit: 100 } },
  });
  const endpoints = $api.useQuery('get', '/v1/webhook-endpoints', { params: { query: { limit: 100 } } });
  const urls = new Map((endpoints.data?.data ?? []).map((endpoint) => [endpoint.id, endpoint.url]));
  const rows = deliveries.data?.data ?? [];
  return (
    <Stack gap={4}>
      <QueryStatus query={deliveries} loading="Loading deliveries" />
      {deliveries.data && rows.length === 0 && (
        <Text fz="sm" c="var(--muted)">
          Not sent to any webhook endpoint: none was subscribed to {eventType} when it happened.
        </Text>
      )}
      {rows.length > 0 && (
        <List aria-label={`Webhook deliveries of ${eventType}`} listStyleType="none" spacing={4}>
          {rows.map((delivery) => (
            <List.Item key={delivery.id} data-delivery={delivery.id} data-status={delivery.status}>
              <Group gap="xs" wrap="wrap">
                <DeliveryStatus status={delivery.status} />
                <Text span fz="sm" style={{ overflowWrap: 'anywhere' }} data-dynamic>
                  {urls.get(delivery.endpointId) ?? 'An endpoint'}
                </Text>
                <Text span fz="sm" c="var(--muted)" data-dynamic>
                  {delivery.attempt} {delivery.attempt === 1 ? 'attempt' : 'attempts'}
                  {delivery.attempts[0] ? `, last: ${attemptLine(delivery.attempts[0])}` : ''}
                </Text>
                <NextTry delivery={delivery} />
              </Group>
            </List.Item>
          ))}
        </List>
      )}
    </Stack>
  );
}
