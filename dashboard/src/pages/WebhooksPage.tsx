import { Group, MultiSelect, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { queryEnums } from '../api/enums';
import { DateTime } from '../components/date-time';
import { ListTable, type ListColumn } from '../components/list-table';
import { DeliveryStatus, NextTry } from './event-deliveries';
import { $api, api, call, idempotencyKey, type Schemas } from '../api/client';
import { runOnSubmit, useAction } from '../hooks';
import { formatDate } from '../money';
import { useSession } from '../session';
import { Badge, Button, EmptyState, Field, fieldError, FormActions, FormError, QueryStatus, Secret } from '../ui';

type Endpoint = Schemas['WebhookEndpointResponse'];
type Delivery = Schemas['WebhookDeliveryResponse'];
type Attempt = Schemas['WebhookAttemptResponse'];

/** What a change to an endpoint makes stale: the endpoints, their deliveries, the audit log. */
const ENDPOINT_CHANGE = { invalidates: ['/v1/webhook-endpoints', '/api/v1/accounts/{accountId}/audit-log'] } as const;

export function WebhooksPage() {
  const session = useSession();
  const endpoints = $api.useQuery(
    'get',
    '/v1/webhook-endpoints',
    { params: { query: { limit: 100 } } },
    { enabled: session.isAdmin },
  );
  const [secret, setSecret] = useState<{ url: string; secret: string; rolled: boolean } | undefined>();
  const [selected, setSelected] = useState<string | undefined>();
  const rows = endpoints.data?.data ?? [];
  const current = rows.find((endpoint) => endpoint.id === selected);

  if (!session.isAdmin) {
    return (
      <section aria-labelledby="webhooks-heading">
        <h1 id="webhooks-heading">Webhooks</h1>
        <p className="notice">Only admins manage webhook endpoints: ask an admin of the account.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="webhooks-heading">
      <div className="page-head">
        <h1 id="webhooks-heading">Webhooks</h1>
      </div>
      <p className="muted">
        URLs that receive {session.project?.name ?? 'this project'}&apos;s events, signed with the Standard Webhooks
        scheme. Verify every delivery with the endpoint&apos;s secret.
      </p>
      <NewEndpointForm
        onCreated={(created) => {
          setSecret({ url: created.url, secret: created.secret, rolled: false });
          setSelected(created.id);
        }}
      />
      {secret && (
        <Secret
          label={`${secret.rolled ? 'New signing secret' : 'Signing secret'} of ${secret.url}`}
          value={secret.secret}
          note="This is the only time the secret is shown: store it with your receiver now."
        />
      )}
      <QueryStatus query={endpoints} loading="Loading webhook endpoints" />
      {endpoints.data && rows.length === 0 && (
        <EmptyState title="No webhook endpoints yet.">
          Add the URL of a receiver above: it gets an event for every change in this project.
        </EmptyState>
      )}
      {rows.length > 0 && (
        <ListTable
          caption="Webhook endpoints"
          rows={rows}
          columns={endpointColumns(selected, setSelected, (endpoint, rolled) =>
            setSecret({ url: endpoint.url, secret: rolled, rolled: true }),
          )}
          rowKey={(endpoint) => endpoint.id}
          busy={endpoints.isFetching}
          rowProps={(endpoint) => ({
            'data-endpoint': endpoint.id,
            'aria-selected': endpoint.id === selected ? 'true' : undefined,
          })}
        />
      )}
      {current && <Deliveries key={current.id} endpoint={current} />}
    </section>
  );
}

type EnabledEvent = Schemas['CreateWebhookEndpointDto']['enabledEvents'][number];

/** Every event type an endpoint can subscribe to, as the API's document lists them, after "all of them". */
const EVENT_CHOICES = [
  { value: '*', label: 'All events' },
  ...queryEnums['/v1/events'].type.map((type) => ({ value: type, label: type })),
];

function NewEndpointForm({ onCreated }: { onCreated: (created: Schemas['WebhookEndpointWithSecret']) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [key, setKey] = useState(idempotencyKey);
  const create = useAction(async () => {
    const created = await call(
      api.POST('/v1/webhook-endpoints', {
        body: { url: url.trim(), enabledEvents: events as EnabledEvent[] },
        params: { header: { 'Idempotency-Key': key } },
      }),
    );
    setUrl('');
    setEvents([]);
    setKey(idempotencyKey());
    onCreated(created.data);
  }, ENDPOINT_CHANGE);
  // The API's own words name its fields; here the person chose from the list, so only "choose one" can be wrong.
  const eventsError = fieldError(create.error, 'enabledEvents')
    ? 'Choose at least one event, or All events.'
    : undefined;
  return (
    <form className="card" aria-labelledby="new-endpoint-heading" onSubmit={runOnSubmit(create.run)}>
      <h2 id="new-endpoint-heading">New endpoint</h2>
      <Field
        label="URL"
        type="url"
        required
        placeholder="https://example.com/webhooks"
        value={url}
        onChange={(event) => setUrl(event.target.value)}
        error={fieldError(create.error, 'url')}
      />
      <MultiSelect
        label="Events"
        description="The events this endpoint receives: all of them, or the types you choose."
        placeholder={events.length === 0 ? 'Choose events' : undefined}
        data={EVENT_CHOICES}
        value={events}
        // All events covers every type: picking it keeps it alone, picking a type drops it.
        onChange={(picked) => setEvents(picked.at(-1) === '*' ? ['*'] : picked.filter((value) => value !== '*'))}
        searchable
        clearable
        hidePickedOptions
        nothingFoundMessage="No event type has this name."
        error={eventsError}
        styles={{ description: { color: 'var(--muted)' } }}
        mb="sm"
      />
      <FormError error={create.error} fields={['url', 'enabledEvents']} />
      <FormActions busy={create.busy}>Add endpoint</FormActions>
    </form>
  );
}

function endpointColumns(
  selected: string | undefined,
  onSelect: (id: string) => void,
  onRolled: (endpoint: Endpoint, secret: string) => void,
): ListColumn<Endpoint>[] {
  return [
    {
      id: 'url',
      header: 'URL',
      sortBy: (endpoint) => endpoint.url,
      cell: (endpoint) => (
        <>
          <Button variant="link" onClick={() => onSelect(endpoint.id)} aria-pressed={endpoint.id === selected}>
            {/* A receiver's address carries a port that changes every run. */}
            <span data-dynamic>{endpoint.url}</span>
          </Button>
          {endpoint.disabledReason && (
            <Text fz="xs" c="var(--muted)">
              {endpoint.disabledReason}
            </Text>
          )}
        </>
      ),
    },
    {
      id: 'events',
      header: 'Events',
      cell: (endpoint) =>
        endpoint.enabledEvents.includes('*') ? (
          'All events'
        ) : (
          <Text span ff="monospace" fz="xs">
            {endpoint.enabledEvents.join(', ')}
          </Text>
        ),
    },
    {
      id: 'status',
      header: 'Status',
      width: 110,
      sortBy: (endpoint) => endpoint.status,
      cell: (endpoint) =>
        endpoint.status === 'enabled' ? <Badge tone="good">Enabled</Badge> : <Badge tone="warn">Disabled</Badge>,
    },
    {
      id: 'actions',
      header: 'Actions',
      width: 330,
      align: 'right',
      cell: (endpoint) => (
        <EndpointActions
          endpoint={endpoint}
          onTested={() => onSelect(endpoint.id)}
          onRolled={(secret) => onRolled(endpoint, secret)}
        />
      ),
    },
  ];
}

function EndpointActions({
  endpoint,
  onTested,
  onRolled,
}: {
  endpoint: Endpoint;
  onTested: () => void;
  onRolled: (secret: string) => void;
}) {
  const enabled = endpoint.status === 'enabled';
  const path = { params: { path: { id: endpoint.id } } };
  const toggle = useAction(async () => {
    await call(
      api.PATCH('/v1/webhook-endpoints/{id}', { ...path, body: { status: enabled ? 'disabled' : 'enabled' } }),
    );
  }, ENDPOINT_CHANGE);
  const roll = useAction(async () => {
    const rolled = await call(
      api.POST('/v1/webhook-endpoints/{id}/roll-secret', {
        params: { path: { id: endpoint.id }, header: { 'Idempotency-Key': idempotencyKey() } },
        body: { expiresInHours: 24 },
      }),
    );
    onRolled(rolled.data.secret);
  }, ENDPOINT_CHANGE);
  const test = useAction(
    async () => {
      await call(
        api.POST('/v1/webhook-endpoints/{id}/test', {
          params: { path: { id: endpoint.id }, header: { 'Idempotency-Key': idempotencyKey() } },
        }),
      );
      onTested();
    },
    { invalidates: ['/v1/webhook-endpoints/{id}/deliveries', '/v1/events'] },
  );
  const error = toggle.error ?? roll.error ?? test.error;
  return (
    <Stack gap={4} align="flex-end">
      <Group gap="xs" justify="flex-end" wrap="wrap">
        <Button variant="secondary" busy={toggle.busy} onClick={() => void toggle.run()}>
          {enabled ? 'Disable' : 'Enable'}
          <span className="visually-hidden"> {endpoint.url}</span>
        </Button>
        <Button variant="secondary" busy={roll.busy} onClick={() => void roll.run()}>
          Roll secret<span className="visually-hidden"> of {endpoint.url}</span>
        </Button>
        <Button variant="secondary" busy={test.busy} disabled={!enabled} onClick={() => void test.run()}>
          Send test event<span className="visually-hidden"> to {endpoint.url}</span>
        </Button>
      </Group>
      {error && <FormError error={error} />}
    </Stack>
  );
}

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const deliveries = $api.useQuery('get', '/v1/webhook-endpoints/{id}/deliveries', {
    params: { path: { id: endpoint.id }, query: { limit: 20 } },
  });
  const rows = deliveries.data?.data ?? [];
  return (
    <section aria-labelledby="deliveries-heading">
      <div className="page-head">
        <h2 id="deliveries-heading">
          Recent deliveries to <span data-dynamic>{endpoint.url}</span>
        </h2>
        <Button variant="secondary" busy={deliveries.isFetching} onClick={() => void deliveries.refetch()}>
          Refresh
        </Button>
      </div>
      <QueryStatus query={deliveries} loading="Loading deliveries" />
      {deliveries.data && rows.length === 0 && (
        <EmptyState title="No deliveries yet.">Send a test event, or make a change in this project.</EmptyState>
      )}
      {rows.length > 0 && (
        <ListTable
          caption={`Deliveries to ${endpoint.url}, newest first`}
          rows={rows}
          columns={deliveryColumns(endpoint)}
          rowKey={(delivery) => delivery.id}
          busy={deliveries.isFetching}
          rowProps={(delivery) => ({ 'data-delivery': delivery.id, 'data-status': delivery.status })}
        />
      )}
    </section>
  );
}

const DELIVERY_TONES = { succeeded: 'good', failed: 'bad', pending: 'info' } as const;

function deliveryColumns(endpoint: Endpoint): ListColumn<Delivery>[] {
  return [
    {
      id: 'event',
      header: 'Event',
      sortBy: (delivery) => delivery.eventType,
      cell: (delivery) => (
        <Text span ff="monospace" fz="sm">
          {delivery.eventType}
        </Text>
      ),
    },
    {
      id: 'status',
      header: 'Status',
      width: 170,
      sortBy: (delivery) => delivery.status,
      cell: (delivery) => (
        <Stack gap={2} align="flex-start">
          <DeliveryStatus status={delivery.status} />
          <NextTry delivery={delivery} />
        </Stack>
      ),
    },
    { id: 'attempts', header: 'Attempts', cell: (delivery) => <Attempts delivery={delivery} /> },
    {
      id: 'created',
      header: 'Created',
      width: 170,
      sortBy: (delivery) => new Date(delivery.createdAt),
      cell: (delivery) => <DateTime value={delivery.createdAt} />,
    },
    {
      id: 'actions',
      header: 'Actions',
      width: 120,
      align: 'right',
      cell: (delivery) => <RetryDelivery endpoint={endpoint} delivery={delivery} />,
    },
  ];
}

function RetryDelivery({ endpoint, delivery }: { endpoint: Endpoint; delivery: Delivery }) {
  const retry = useAction(
    async () => {
      await call(
        api.POST('/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/retry', {
          params: {
            path: { id: endpoint.id, deliveryId: delivery.id },
            header: { 'Idempotency-Key': idempotencyKey() },
          },
        }),
      );
    },
    { invalidates: ['/v1/webhook-endpoints/{id}/deliveries', '/v1/events'] },
  );
  return (
    <>
      <Button variant="secondary" busy={retry.busy} onClick={() => void retry.run()}>
        Retry<span className="visually-hidden"> {delivery.eventType} delivery</span>
      </Button>
      {retry.error && <FormError error={retry.error} />}
    </>
  );
}

/** Every attempt listed, newest first, failures with their answer: what a receiver's logs would show. */
function Attempts({ delivery }: { delivery: Delivery }) {
  if (delivery.attempts.length === 0) return <span className="muted">None yet</span>;
  return (
    <ol reversed className="attempts small" aria-label={`Attempts of the ${delivery.eventType} delivery, newest first`}>
      {delivery.attempts.map((attempt) => (
        <AttemptItem key={attempt.attempt} attempt={attempt} />
      ))}
    </ol>
  );
}

function AttemptItem({ attempt }: { attempt: Attempt }) {
  const outcome = [
    attempt.responseStatus ?? undefined,
    attempt.error ?? undefined,
    attempt.durationMs === null ? undefined : `${attempt.durationMs} ms`,
  ].filter((part) => part !== undefined);
  return (
    <li value={attempt.attempt}>
      <Badge tone={DELIVERY_TONES[attempt.status as keyof typeof DELIVERY_TONES] ?? 'neutral'}>{attempt.status}</Badge>{' '}
      {/* How long it took and when change every run. */}
      <span data-dynamic>
        {outcome.join(' · ')} <span className="muted">{formatDate(attempt.createdAt)}</span>
      </span>
      {attempt.responseBody && (
        <details>
          <summary>Response body</summary>
          <pre className="mono">{attempt.responseBody}</pre>
        </details>
      )}
    </li>
  );
}
