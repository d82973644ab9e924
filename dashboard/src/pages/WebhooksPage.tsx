import { useState } from 'react';
import { $api, api, call, idempotencyKey, type Schemas } from '../api/client';
import { runOnSubmit, useAction } from '../hooks';
import { formatDate } from '../money';
import { useSession } from '../session';
import {
  Badge,
  Button,
  DataTable,
  EmptyState,
  Field,
  fieldError,
  FormActions,
  FormError,
  QueryStatus,
  Secret,
} from '../ui';

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
        <DataTable
          busy={endpoints.isFetching}
          caption="Webhook endpoints"
          columns={['URL', 'Events', 'Status', { hidden: 'Actions' }]}
        >
          {rows.map((endpoint) => (
            <EndpointRow
              key={endpoint.id}
              endpoint={endpoint}
              selected={endpoint.id === selected}
              onSelect={() => setSelected(endpoint.id)}
              onRolled={(rolled) => setSecret({ url: endpoint.url, secret: rolled, rolled: true })}
            />
          ))}
        </DataTable>
      )}
      {current && <Deliveries key={current.id} endpoint={current} />}
    </section>
  );
}

function NewEndpointForm({ onCreated }: { onCreated: (created: Schemas['WebhookEndpointWithSecret']) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('*');
  const [key, setKey] = useState(idempotencyKey);
  const create = useAction(async () => {
    const enabledEvents = events
      .split(',')
      .map((type) => type.trim())
      .filter(Boolean) as Schemas['CreateWebhookEndpointDto']['enabledEvents'];
    const created = await call(
      api.POST('/v1/webhook-endpoints', {
        body: { url: url.trim(), enabledEvents },
        params: { header: { 'Idempotency-Key': key } },
      }),
    );
    setUrl('');
    setKey(idempotencyKey());
    onCreated(created.data);
  }, ENDPOINT_CHANGE);
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
      <Field
        label="Events"
        hint="* for every event, or types separated by commas (payment.succeeded, payment.refunded)"
        required
        value={events}
        onChange={(event) => setEvents(event.target.value)}
        error={fieldError(create.error, 'enabledEvents')}
      />
      <FormError error={create.error} fields={['url', 'enabledEvents']} />
      <FormActions busy={create.busy}>Add endpoint</FormActions>
    </form>
  );
}

function EndpointRow({
  endpoint,
  selected,
  onSelect,
  onRolled,
}: {
  endpoint: Endpoint;
  selected: boolean;
  onSelect: () => void;
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
      onSelect();
    },
    { invalidates: ['/v1/webhook-endpoints/{id}/deliveries', '/v1/events'] },
  );
  const error = toggle.error ?? roll.error ?? test.error;
  return (
    <tr aria-selected={selected || undefined}>
      <th scope="row">
        <Button variant="link" onClick={onSelect} aria-pressed={selected}>
          {endpoint.url}
        </Button>
        {endpoint.disabledReason && <p className="small muted">{endpoint.disabledReason}</p>}
        {error && <FormError error={error} />}
      </th>
      <td className="mono small">{endpoint.enabledEvents.join(', ')}</td>
      <td>{enabled ? <Badge tone="good">Enabled</Badge> : <Badge tone="warn">Disabled</Badge>}</td>
      <td className="actions">
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
      </td>
    </tr>
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
        <h2 id="deliveries-heading">Recent deliveries to {endpoint.url}</h2>
        <Button variant="secondary" busy={deliveries.isFetching} onClick={() => void deliveries.refetch()}>
          Refresh
        </Button>
      </div>
      <QueryStatus query={deliveries} loading="Loading deliveries" />
      {deliveries.data && rows.length === 0 && (
        <EmptyState title="No deliveries yet.">Send a test event, or make a change in this project.</EmptyState>
      )}
      {rows.length > 0 && (
        <DataTable
          busy={deliveries.isFetching}
          caption={`Deliveries to ${endpoint.url}, newest first`}
          columns={['Event', 'Status', 'Attempts', 'Response', 'Created', { hidden: 'Retry' }]}
        >
          {rows.map((delivery) => (
            <DeliveryRow key={delivery.id} endpoint={endpoint} delivery={delivery} />
          ))}
        </DataTable>
      )}
    </section>
  );
}

const DELIVERY_TONES = { succeeded: 'good', failed: 'bad', pending: 'info' } as const;

function DeliveryRow({ endpoint, delivery }: { endpoint: Endpoint; delivery: Delivery }) {
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
    { invalidates: ['/v1/webhook-endpoints/{id}/deliveries'] },
  );
  return (
    <tr>
      <th scope="row" className="mono small">
        {delivery.eventType}
      </th>
      <td>
        <Badge tone={DELIVERY_TONES[delivery.status as keyof typeof DELIVERY_TONES] ?? 'neutral'}>
          {delivery.status}
        </Badge>
      </td>
      <td>
        <Attempts delivery={delivery} />
      </td>
      <td className="small">{delivery.responseStatus ?? delivery.error ?? '—'}</td>
      <td>{formatDate(delivery.createdAt)}</td>
      <td>
        <Button variant="secondary" busy={retry.busy} onClick={() => void retry.run()}>
          Retry<span className="visually-hidden"> {delivery.eventType} delivery</span>
        </Button>
        {retry.error && <FormError error={retry.error} />}
      </td>
    </tr>
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
      {outcome.join(' · ')} <span className="muted">{formatDate(attempt.createdAt)}</span>
      {attempt.responseBody && (
        <details>
          <summary>Response body</summary>
          <pre className="mono">{attempt.responseBody}</pre>
        </details>
      )}
    </li>
  );
}
