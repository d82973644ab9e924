import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Types } from 'mongoose';
import { Webhook } from 'standardwebhooks';
import { createFirstAdmin, createUser, TestUser } from '../support/auth';
import { expectError, expectForbidden, expectNotFound, expectValidationError } from '../support/expect-error';
import { monitoredDatabaseUri } from '../support/commands';
import { createTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { ABANDONED, WebhookDeliveriesRepository } from '../../src/webhooks/webhook-deliveries.repository';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher';

const ENDPOINTS = '/v1/webhook-endpoints';

describe('webhooks /v1/webhook-endpoints', () => {
  let t: TestApp;
  let admin: TestUser;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    t = await createTestApp({
      // Commands monitored: a fan-out's writes are counted.
      MONGODB_URI: monitoredDatabaseUri(`test_${randomBytes(6).toString('hex')}`),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0,1,1',
      WEBHOOK_TIMEOUT_MS: '1000',
    });
    admin = await createFirstAdmin(t.http);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  const post = (path: string, body: unknown, token = admin.token) => t.http.post(path, body, { token });
  async function createEndpoint(path: string, body: Record<string, unknown> = {}, token = admin.token) {
    const res = await post(ENDPOINTS, { url: `${receiver.base}${path}`, enabledEvents: ['*'], ...body }, token);
    expect(res.status).toBe(201);
    return res.body.data as { id: string; secret: string; url: string };
  }
  const createCustomer = async (token = admin.token) => {
    const res = await post('/v1/customers', { email: 'hook@example.com' }, token);
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  const deliveries = async (endpoint: string) =>
    (await t.http.get(`${ENDPOINTS}/${endpoint}/deliveries`, { token: admin.token })).body.data;

  it('creates an endpoint with a secret shown once, and lists, reads, updates and deletes it', async () => {
    const created = await createEndpoint('/crud', { description: 'Orders' });
    expect(created).toMatchObject({
      url: `${receiver.base}/crud`,
      description: 'Orders',
      enabledEvents: ['*'],
      status: 'enabled',
      disabledReason: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await t.http.get(`${ENDPOINTS}/${created.id}`, { token: admin.token });
    expect(read.status).toBe(200);
    expect(read.body.data.secret).toBeUndefined();
    expect(read.text).not.toContain(created.secret.slice(6));
    expect(
      (await t.http.get(ENDPOINTS, { token: admin.token })).body.data.map((endpoint: { id: string }) => endpoint.id),
    ).toContain(created.id);
    const stored = await t.db.collection('webhook_endpoints').findOne({ _id: new Types.ObjectId(created.id) });
    expect(JSON.stringify(stored)).not.toContain(created.secret.slice(6));

    const updated = await t.http.patch(
      `${ENDPOINTS}/${created.id}`,
      { enabledEvents: ['payment.succeeded', '*'], status: 'disabled' },
      { token: admin.token },
    );
    expect(updated.body.data).toMatchObject({ enabledEvents: ['*'], status: 'disabled' });
    const deleted = await t.http.delete(`${ENDPOINTS}/${created.id}`, { token: admin.token });
    expect(deleted.body).toEqual({ id: created.id, deleted: true, message: 'Webhook endpoint deleted' });
    // Each change is in the account's audit log, the URL naming the endpoint, never its secret.
    const audit = await t.http.get(`/api/v1/accounts/${admin.accountId}/audit-log?limit=100`, { token: admin.token });
    const actions = audit.body.data
      .filter((entry: { target: { id: string } }) => entry.target.id === created.id)
      .map((entry: { action: string }) => entry.action);
    expect(actions).toEqual(['webhook_endpoint.deleted', 'webhook_endpoint.updated', 'webhook_endpoint.created']);
    expect(audit.text).not.toContain(created.secret.slice(6));
    expectNotFound(
      await t.http.get(`${ENDPOINTS}/${created.id}`, { token: admin.token }),
      'Webhook endpoint not found',
    );
  });

  it('refuses bad input with a clear 400', async () => {
    expectValidationError(
      await post(ENDPOINTS, { url: `${receiver.base}/x`, enabledEvents: ['customer.exploded'] }),
      'enabledEvents',
      /must be \* or one of/,
    );
    expectValidationError(await post(ENDPOINTS, { url: `${receiver.base}/x`, enabledEvents: [] }), 'enabledEvents');
    expectValidationError(await post(ENDPOINTS, { enabledEvents: ['*'] }), 'url');
    expectError(await post(ENDPOINTS, { url: 'ftp://example.com/x', enabledEvents: ['*'] }), 400, 'url must use https');
    expectError(
      await post(ENDPOINTS, { url: 'nope', enabledEvents: ['*'] }),
      400,
      'url must be an absolute URL, like https://example.com/webhooks',
    );
    const endpoint = await createEndpoint('/bad-input');
    expectValidationError(
      await post(`${ENDPOINTS}/${endpoint.id}/roll-secret`, { expiresInHours: 25 }),
      'expiresInHours',
    );
    // Optional, not nullable: null is refused rather than taken for the default.
    expectValidationError(
      await post(`${ENDPOINTS}/${endpoint.id}/roll-secret`, { expiresInHours: null }),
      'expiresInHours',
    );
    expectValidationError(
      await t.http.patch(`${ENDPOINTS}/${endpoint.id}`, { status: 'paused' }, { token: admin.token }),
      'status',
      'status must be enabled or disabled',
    );
  });

  it('delivers every event of the project, signed, verifiable with the standardwebhooks package, as the event list has it', async () => {
    const endpoint = await createEndpoint('/all');
    const customer = await createCustomer();
    const [delivery] = await receiver.waitFor('/all', 1);
    const event = new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>) as {
      id: string;
      type: string;
      data: { object: { id: string } };
    };
    expect(event).toMatchObject({ type: 'customer.created', data: { object: { id: customer } } });
    expect(delivery.headers['webhook-id']).toBe(event.id);
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(Number(delivery.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    const listed = await t.http.get(`/v1/events/${event.id}`, { token: admin.token });
    expect(JSON.parse(delivery.body)).toEqual(listed.body.data);

    await waitUntil(async () => (await deliveries(endpoint.id))[0]?.status === 'succeeded');
    expect((await deliveries(endpoint.id))[0]).toMatchObject({
      eventId: event.id,
      eventType: 'customer.created',
      attempt: 1,
      status: 'succeeded',
      responseStatus: 200,
      responseBody: 'ok',
      nextAttemptAt: null,
    });
    await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
  });

  it("a fan-out's delivery is claimed just before its own send, once per attempt, and one event fanned out twice at once is sent once", async () => {
    const dispatcher = t.app.get(WebhookDispatcher);
    const endpoint = await createEndpoint('/fan-out');
    const endpointId = new Types.ObjectId(endpoint.id);
    const projectId = String((await t.db.collection('webhook_endpoints').findOne({ _id: endpointId }))!.projectId);
    const event = () => {
      const id = `evt_${new Types.ObjectId().toHexString()}`;
      return {
        id,
        type: 'customer.created',
        projectId,
        createdAt: new Date(),
        body: JSON.stringify({ id, type: 'customer.created' }),
      };
    };
    const sentIds = () => receiver.at('/fan-out').map((request) => request.headers['webhook-id']);
    const first = event();
    await Promise.all([dispatcher.eventsRecorded([first]), dispatcher.eventsRecorded([first])]);
    await receiver.waitFor('/fan-out', 1);
    await waitUntil(async () => (await deliveries(endpoint.id))[0]?.status === 'succeeded');
    expect((await deliveries(endpoint.id))[0]).toMatchObject({
      eventId: first.id,
      attempt: 1,
      attempts: [{ attempt: 1, status: 'succeeded' }],
    });
    // The fan-out that lost the insert sent nothing: its delivery was never written.
    expect(await t.db.collection('webhook_deliveries').countDocuments({ endpointId })).toBe(1);
    expect(sentIds()).toEqual([first.id]);

    // Fanned out again beside a new event: the known one is not sent again, the new one is.
    const second = event();
    await dispatcher.eventsRecorded([first, second]);
    await receiver.waitFor('/fan-out', 2, 20_000);
    await waitUntil(
      async () =>
        (await deliveries(endpoint.id)).find((delivery: { eventId: string }) => delivery.eventId === second.id)
          ?.status === 'succeeded',
    );
    await sleep(300);
    expect(sentIds()).toEqual([first.id, second.id]);
    expect(
      (await deliveries(endpoint.id)).find((delivery: { eventId: string }) => delivery.eventId === second.id),
    ).toMatchObject({
      attempt: 1,
      attempts: [{ attempt: 1, status: 'succeeded' }],
    });
    await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
  });

  it("a fan-out's first attempt is two writes: its delivery inserted already claimed, then its outcome", async () => {
    const dispatcher = t.app.get(WebhookDispatcher);
    const endpoint = await createEndpoint('/two-writes');
    const endpointId = new Types.ObjectId(endpoint.id);
    const projectId = String((await t.db.collection('webhook_endpoints').findOne({ _id: endpointId }))!.projectId);
    // Every write of the webhook collections that concerns this endpoint's delivery, as sent.
    const ours = new Set<string>();
    const writes: string[] = [];
    const onCommand = (event: { commandName: string; command: Record<string, unknown> }) => {
      const target = event.command[event.commandName];
      if (typeof target !== 'string' || !target.startsWith('webhook_') || target === 'webhook_endpoints') return;
      if (event.commandName === 'find' || event.commandName === 'aggregate' || event.commandName === 'count') return;
      const documents = (event.command.documents ?? []) as { _id: unknown; endpointId: unknown }[];
      const inserted = documents.filter((document) => String(document.endpointId) === endpoint.id);
      for (const document of inserted) ours.add(String(document._id));
      const targets = [
        ...((event.command.updates ?? []) as { q: { _id?: unknown } }[]).map((update) => update.q),
        ...((event.command.deletes ?? []) as { q: { _id?: unknown } }[]).map((deleted) => deleted.q),
        ...(event.command.query ? [event.command.query as { _id?: unknown }] : []),
      ];
      if (
        inserted.length > 0 ||
        targets.some((filter) => ours.has(String(filter._id))) ||
        target === 'webhook_attempt_claims'
      )
        writes.push(`${event.commandName} ${target}`);
    };
    const client = t.db.getClient();
    client.on('commandStarted', onCommand);
    try {
      const id = `evt_${new Types.ObjectId().toHexString()}`;
      await dispatcher.eventsRecorded([
        {
          id,
          type: 'customer.created',
          projectId,
          createdAt: new Date(),
          body: JSON.stringify({ id, type: 'customer.created' }),
        },
      ]);
      await receiver.waitFor('/two-writes', 1);
      await waitUntil(async () => (await deliveries(endpoint.id))[0]?.status === 'succeeded');
    } finally {
      client.off('commandStarted', onCommand);
    }
    expect(writes).toEqual(['insert webhook_deliveries', 'update webhook_deliveries']);
    expect((await deliveries(endpoint.id))[0]).toMatchObject({
      attempt: 1,
      status: 'succeeded',
      attempts: [{ attempt: 1, status: 'succeeded' }],
    });
    await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
  });

  it('a fan-out wider than its lanes inserts the first 8 claimed and the rest due, in one command, and sends each once', async () => {
    const dispatcher = t.app.get(WebhookDispatcher);
    // A project of its own: 12 endpoints, more than a fan-out's 8 lanes.
    const owner = await createFirstAdmin(t.http);
    const paths = Array.from({ length: 12 }, (_, i) => `/wide-${i}`);
    for (const path of paths) {
      // Slow enough that a lane is still busy when the fan-out returns.
      receiver.answer(path, (response) => setTimeout(() => response.writeHead(200).end('ok'), 200));
      await createEndpoint(path, {}, owner.token);
    }
    const inserts: { attempt: number; claimToken: string | null; claimedUntil: Date | null }[][] = [];
    const onCommand = (event: { commandName: string; command: Record<string, unknown> }) => {
      if (event.commandName === 'insert' && event.command.insert === 'webhook_deliveries')
        inserts.push(event.command.documents as (typeof inserts)[number]);
    };
    const client = t.db.getClient();
    client.on('commandStarted', onCommand);
    const id = `evt_${new Types.ObjectId().toHexString()}`;
    try {
      await dispatcher.eventsRecorded([
        {
          id,
          type: 'customer.created',
          projectId: owner.projectId,
          createdAt: new Date(),
          body: JSON.stringify({ id, type: 'customer.created' }),
        },
      ]);
    } finally {
      client.off('commandStarted', onCommand);
    }
    expect(inserts).toHaveLength(1);
    const [documents] = inserts;
    expect(documents).toHaveLength(12);
    const claimed = documents.filter((document) => document.attempt === 1);
    expect(claimed).toHaveLength(8);
    expect(new Set(claimed.map((document) => document.claimToken)).size).toBe(8);
    expect(claimed.every((document) => document.claimedUntil instanceof Date)).toBe(true);
    expect(
      documents
        .filter((document) => document.attempt !== 1)
        .map((document) => [document.attempt, document.claimToken, document.claimedUntil]),
    ).toEqual(Array(4).fill([0, null, null]));
    // Each sent once, by a lane as it freed up or by the poll, and recorded as its first attempt.
    for (const path of paths) await receiver.waitFor(path, 1);
    await waitUntil(
      async () =>
        (await t.db.collection('webhook_deliveries').countDocuments({ eventId: id, status: 'succeeded' })) === 12,
    );
    await sleep(300);
    expect(paths.map((path) => receiver.at(path).length)).toEqual(Array(12).fill(1));
    expect(receiver.concurrent).toEqual([]);
    const stored = await t.db.collection('webhook_deliveries').find({ eventId: id }).toArray();
    expect(stored.map((delivery) => [delivery.attempt, delivery.attempts.length])).toEqual(Array(12).fill([1, 1]));
  });

  it('sends an endpoint only the types it enabled', async () => {
    const endpoint = await createEndpoint('/payments-only', { enabledEvents: ['payment.created'] });
    const customer = await createCustomer();
    expect((await post('/api/v1/payments', { amount: 5, currency: 'usd', customer })).status).toBe(201);
    const [delivery] = await receiver.waitFor('/payments-only', 1);
    expect(JSON.parse(delivery.body).type).toBe('payment.created');
    await sleep(300);
    expect(receiver.at('/payments-only')).toHaveLength(1);
    await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
  });

  it('retries a failing endpoint on the schedule, keeps 1 KiB of its answer, then fails; a retry asked for sends once more', async () => {
    const url = receiver.answer('/failing', (response) => response.writeHead(500).end('e'.repeat(5000)));
    const endpoint = await createEndpoint('/failing');
    expect(endpoint.url).toBe(url);
    await createCustomer();
    const attempts = await receiver.waitFor('/failing', 3);
    expect(new Set(attempts.map((attempt) => attempt.headers['webhook-id'])).size).toBe(1);
    await waitUntil(async () => (await deliveries(endpoint.id))[0]?.status === 'failed');
    const [failed] = await deliveries(endpoint.id);
    expect(failed).toMatchObject({
      attempt: 3,
      status: 'failed',
      responseStatus: 500,
      error: 'the endpoint answered 500',
      nextAttemptAt: null,
    });
    expect(failed.responseBody).toHaveLength(1024);

    receiver.answer('/failing', (response) => response.writeHead(204).end());
    const retried = await post(`${ENDPOINTS}/${endpoint.id}/deliveries/${failed.id}/retry`, {});
    expect(retried.status).toBe(202);
    expect(retried.body.data).toMatchObject({ id: failed.id, status: 'pending' });
    await receiver.waitFor('/failing', 4);
    await waitUntil(async () => (await deliveries(endpoint.id))[0]?.status === 'succeeded');
    const [succeeded] = await deliveries(endpoint.id);
    expect(succeeded).toMatchObject({ attempt: 4, responseStatus: 204 });
    expect(
      succeeded.attempts.map((attempt: { attempt: number; status: string }) => [attempt.attempt, attempt.status]),
    ).toEqual([
      [4, 'succeeded'],
      [3, 'failed'],
      [2, 'failed'],
      [1, 'failed'],
    ]);
    await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
    // The deliveries, and the claims kept in them, go with their endpoint.
    expect(
      await t.db.collection('webhook_deliveries').countDocuments({ endpointId: new Types.ObjectId(endpoint.id) }),
    ).toBe(0);
  });

  it("past the events' retention a done delivery keeps its outcome and drops the event it carried; a pending one keeps it", async () => {
    receiver.answer('/retention', (response) => response.writeHead(204).end());
    const endpoint = await createEndpoint('/retention');
    await createCustomer();
    await receiver.waitFor('/retention', 1);
    await waitUntil(async () => (await deliveries(endpoint.id))[0]?.status === 'succeeded');
    const [done] = await deliveries(endpoint.id);
    const collection = t.db.collection('webhook_deliveries');
    const endpointId = new Types.ObjectId(endpoint.id);
    // A second delivery of the endpoint, still pending, as old as the first.
    const pendingId = new Types.ObjectId();
    await collection.insertOne({
      ...(await collection.findOne({ _id: new Types.ObjectId(done.id) })),
      _id: pendingId,
      eventId: 'evt_000000000000000000000001',
      status: 'pending',
      nextAttemptAt: new Date(Date.now() + 3_600_000),
    });
    const longAgo = new Date(Date.now() - 31 * 24 * 3_600_000);
    await collection.updateMany({ endpointId }, { $set: { createdAt: longAgo } });

    const dispatcher = t.app.get(WebhookDispatcher);
    expect(await dispatcher.dropExpiredPayloads()).toBe(1);
    expect((await collection.findOne({ _id: new Types.ObjectId(done.id) }))?.payload).toBeUndefined();
    expect(typeof (await collection.findOne({ _id: pendingId }))?.payload).toBe('string');
    // Listed as before, outcome and attempts included.
    const listed = (await deliveries(endpoint.id)).find((delivery: { id: string }) => delivery.id === done.id);
    expect(listed).toMatchObject({ status: 'succeeded', responseStatus: 204, attempt: 1 });
    expect(listed.attempts).toHaveLength(1);
    // It cannot be sent again: there is nothing left to send.
    expectError(
      await post(`${ENDPOINTS}/${endpoint.id}/deliveries/${done.id}/retry`, {}),
      409,
      "This delivery is past the events' retention: its event is no longer kept, so it cannot be sent again",
    );
    await collection.deleteOne({ _id: pendingId });
    await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
  });

  it('the deliveries waiting for an attempt are found by an index on status and due time', async () => {
    const indexes = await t.db.collection('webhook_deliveries').indexes();
    expect(indexes.map((index) => index.key)).toContainEqual({ status: 1, nextAttemptAt: 1 });
  });

  it('keeps every attempt: a 500 then a success lists both, newest first, each with at most 1 KiB of its answer', async () => {
    let answered = 0;
    receiver.answer('/flaky', (response) =>
      answered++ === 0 ? response.writeHead(500).end('é'.repeat(2000)) : response.writeHead(200).end('fine'),
    );
    const endpoint = await createEndpoint('/flaky');
    const started = Date.now();
    await createCustomer();
    await receiver.waitFor('/flaky', 2);
    await waitUntil(async () => (await deliveries(endpoint.id))[0]?.status === 'succeeded');
    const [delivery] = await deliveries(endpoint.id);
    expect(delivery).toMatchObject({
      attempt: 2,
      status: 'succeeded',
      responseStatus: 200,
      responseBody: 'fine',
      error: null,
      nextAttemptAt: null,
    });
    expect(delivery.attempts).toHaveLength(2);
    const [second, first] = delivery.attempts;
    expect(second).toEqual({
      attempt: 2,
      status: 'succeeded',
      responseStatus: 200,
      responseBody: 'fine',
      durationMs: expect.any(Number),
      error: null,
      createdAt: expect.any(String),
    });
    expect(first).toEqual({
      attempt: 1,
      status: 'failed',
      responseStatus: 500,
      responseBody: expect.any(String),
      durationMs: expect.any(Number),
      error: 'the endpoint answered 500',
      createdAt: expect.any(String),
    });
    // 1 KiB of bytes: 512 two-byte characters.
    expect(Buffer.byteLength(first.responseBody)).toBeLessThanOrEqual(1024);
    expect(first.responseBody).toBe('é'.repeat(512));
    // The schedule's second wait (1 s) counts from the first attempt.
    expect(Date.parse(first.createdAt)).toBeGreaterThanOrEqual(started - 1000);
    expect(Date.parse(second.createdAt) - Date.parse(first.createdAt)).toBeGreaterThanOrEqual(1000);
    await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
  });

  it("lists one event's deliveries across the project's endpoints, each with its attempts; another project's event is 404", async () => {
    receiver.answer('/event-down', (response) => response.writeHead(503).end('down'));
    const up = await createEndpoint('/event-up');
    const down = await createEndpoint('/event-down');
    const customer = await createCustomer();
    await createCustomer();
    const listed = await t.http.get(`/v1/events?object=${customer}`, { token: admin.token });
    const [event] = listed.body.data as { id: string; type: string }[];
    expect(event.type).toBe('customer.created');
    // Endpoints earlier tests left in the project get the event too: these two are the ones asked about.
    const ours = new Set([up.id, down.id]);
    const ofEvent = async () => {
      const res = await t.http.get(`/v1/events/${event.id}/deliveries`, { token: admin.token });
      expect(res.status).toBe(200);
      const data = res.body.data as { endpointId: string; eventId: string; status: string; attempts: unknown[] }[];
      expect(data.every((delivery) => delivery.eventId === event.id)).toBe(true);
      return data.filter((delivery) => ours.has(delivery.endpointId));
    };
    await waitUntil(async () => {
      const now = await ofEvent();
      return now.length === 2 && now.every((delivery) => delivery.status !== 'pending');
    });
    const found = await ofEvent();
    expect(found).toHaveLength(2);
    const byEndpoint = new Map(found.map((delivery) => [delivery.endpointId, delivery]));
    expect(byEndpoint.get(up.id)).toMatchObject({ status: 'succeeded', attempt: 1, nextAttemptAt: null });
    expect(byEndpoint.get(down.id)).toMatchObject({ status: 'failed', attempt: 3, responseStatus: 503 });
    expect(byEndpoint.get(down.id)!.attempts).toHaveLength(3);

    const developer = await createUser(t.http, 'developer', admin.token);
    expectForbidden(await t.http.get(`/v1/events/${event.id}/deliveries`, { token: developer.token }));
    const stranger = await createFirstAdmin(t.http);
    expectNotFound(await t.http.get(`/v1/events/${event.id}/deliveries`, { token: stranger.token }), 'Event not found');
    expectNotFound(
      await t.http.get('/v1/events/evt_6650c0ffee0000000000ffff/deliveries', { token: admin.token }),
      'Event not found',
    );
    const malformed = await t.http.get('/v1/events/nope/deliveries', { token: admin.token });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('id must be an event id (evt_ and 24 hexadecimal digits)');
    await t.http.delete(`${ENDPOINTS}/${up.id}`, { token: admin.token });
    await t.http.delete(`${ENDPOINTS}/${down.id}`, { token: admin.token });
  });

  it('a retry asked for while an attempt is under way is 409: that attempt is recorded first', async () => {
    const endpoint = await createEndpoint('/under-way');
    await createCustomer();
    await waitUntil(async () => (await deliveries(endpoint.id))[0]?.status === 'succeeded');
    const [delivery] = await deliveries(endpoint.id);
    // As an instance leaves it while it sends attempt 2.
    await t.db.collection('webhook_deliveries').updateOne(
      { _id: new Types.ObjectId(delivery.id) },
      {
        $set: {
          status: 'pending',
          attempt: 2,
          claimedUntil: new Date(Date.now() + 60_000),
          nextAttemptAt: new Date(Date.now() + 60_000),
        },
      },
    );
    expectError(
      await post(`${ENDPOINTS}/${endpoint.id}/deliveries/${delivery.id}/retry`, {}),
      409,
      'An attempt of this delivery is under way: retry it once its outcome is recorded',
    );
    expectNotFound(
      await post(`${ENDPOINTS}/${endpoint.id}/deliveries/${new Types.ObjectId().toHexString()}/retry`, {}),
      'Webhook delivery not found',
    );
    // Every attempt is kept in its delivery: their number is bounded.
    await t.db
      .collection('webhook_deliveries')
      .updateOne(
        { _id: new Types.ObjectId(delivery.id) },
        { $set: { status: 'failed', attempt: 100, claimedUntil: null, nextAttemptAt: null } },
      );
    expectError(
      await post(`${ENDPOINTS}/${endpoint.id}/deliveries/${delivery.id}/retry`, {}),
      409,
      'A delivery is attempted at most 100 times; this one was',
    );
    await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
  });

  it("one claimer wins each attempt, however many claim it at once; a stopped claimer's attempt is taken over, and its sender's outcome refused", async () => {
    const repository = t.app.get(WebhookDeliveriesRepository);
    const endpoint = await createEndpoint('/claims');
    const endpointId = new Types.ObjectId(endpoint.id);
    const projectId = (await t.db.collection('webhook_endpoints').findOne({ _id: endpointId }))!
      .projectId as Types.ObjectId;
    const _id = new Types.ObjectId();
    const later = () => new Date(Date.now() + 60_000);
    // Due later than this test lasts: the service's own poll leaves it to the test.
    await t.db.collection('webhook_deliveries').insertOne({
      _id,
      projectId,
      endpointId,
      eventId: 'evt_claims',
      eventType: 'customer.created',
      payload: '{"id":"evt_claims"}',
      status: 'pending',
      attempt: 0,
      nextAttemptAt: later(),
      claimToken: null,
      claimedUntil: null,
      claimedAt: null,
      attempts: [],
      firstAttemptAt: new Date(),
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    const stored = async () => (await t.db.collection('webhook_deliveries').findOne({ _id }))!;
    const read = { _id, projectId, endpointId, attempt: 0, claimToken: null, claimedUntil: null };
    const outcome = {
      ok: false,
      responseStatus: 500,
      responseBody: 'no',
      durationMs: 5,
      error: 'the endpoint answered 500',
    };

    // Whether a claim of another sender has lapsed is the caller's watch (its own clock): here, told.
    const watching = () => false;
    const lapsed = () => true;
    const claims = await Promise.all(
      Array.from({ length: 12 }, () => repository.claim(read, new Date(Date.now() + 30_000), new Date(), watching)),
    );
    const won = claims.filter((claim) => claim !== null);
    expect(won).toHaveLength(1);
    const [first] = won;
    expect(first).toMatchObject({ attempt: 1 });
    expect(await stored()).toMatchObject({ attempt: 1, claimToken: first!.token, claimedUntil: first!.claimedUntil });
    // A stale read of the delivery claims nothing, even once the claim lapsed.
    expect(await repository.claim(read, later(), new Date(Date.now() + 60_000), lapsed)).toBeNull();

    // Its sender stops answering: another caller watches the claim, then takes it over.
    const atOne = await stored();
    const heldAtOne = {
      ...read,
      attempt: 1,
      claimToken: atOne.claimToken as string,
      claimedUntil: atOne.claimedUntil as Date,
      claimedAt: atOne.claimedAt as Date,
    };
    const asked: string[] = [];
    expect(
      await repository.claim(heldAtOne, later(), new Date(Date.now() + 60_000), (key) => (asked.push(key), false)),
    ).toBeNull();
    // The key names the delivery, the attempt and its claim's token: a later claim of the attempt is watched anew.
    expect(asked).toEqual([`${String(_id)}:1:${first!.token}`]);
    const taken = await repository.claimAndRead(heldAtOne, later(), new Date(Date.now() + 60_000), lapsed);
    expect(taken?.claim).toMatchObject({ attempt: 2 });
    // Read in the same command as the claim, the payload included.
    expect(taken?.delivery).toMatchObject({ attempt: 2, payload: '{"id":"evt_claims"}' });
    expect(taken!.claim.token).not.toBe(first!.token);

    // The stale sender's outcome is refused: the attempt it held is recorded as abandoned, and the
    // attempt under way is the taker's.
    expect(
      await repository.recordAttempt(
        read,
        first!,
        { ...outcome, ok: true, responseStatus: 200 },
        { status: 'succeeded', nextAttemptAt: null },
      ),
    ).toBe(false);
    expect(await stored()).toMatchObject({
      status: 'pending',
      attempt: 2,
      claimToken: taken!.claim.token,
      attempts: [{ attempt: 1, status: 'failed', responseStatus: null, error: ABANDONED }],
    });

    // The taker's outcome is recorded, once: a second record of the same attempt writes nothing.
    expect(
      await repository.recordAttempt(read, taken!.claim, outcome, { status: 'pending', nextAttemptAt: later() }),
    ).toBe(true);
    expect(
      await repository.recordAttempt(
        read,
        taken!.claim,
        { ...outcome, ok: true, responseStatus: 200 },
        { status: 'succeeded', nextAttemptAt: null },
      ),
    ).toBe(false);
    expect(await stored()).toMatchObject({
      attempt: 2,
      status: 'pending',
      responseStatus: 500,
      claimToken: null,
      claimedUntil: null,
      attempts: [
        { attempt: 1, error: ABANDONED },
        { attempt: 2, status: 'failed', responseStatus: 500 },
      ],
    });

    // Won too late to send within it, attempt 3 is given back: never sent, it is not kept, and the
    // next claimer makes it without a watch.
    const atTwo = { ...read, attempt: 2 };
    const third = await repository.claim(atTwo, later(), new Date(), watching);
    expect(third).toMatchObject({ attempt: 3 });
    await repository.release(read, third!);
    expect(await stored()).toMatchObject({
      attempt: 2,
      claimToken: null,
      claimedUntil: null,
      nextAttemptAt: third!.claimedUntil,
    });
    const again = await repository.claim(atTwo, later(), new Date(third!.claimedUntil.getTime() + 1), watching);
    expect(again).toMatchObject({ attempt: 3 });
    // The stale release of the claim given back touches nothing now.
    await repository.release(read, third!);
    expect(await stored()).toMatchObject({ attempt: 3, claimToken: again!.token });
    expect((await stored()).attempts).toHaveLength(2);
    // The list shows them newest first, attempt 3 under way.
    const [listed] = await deliveries(endpoint.id);
    expect(
      listed.attempts.map((attempt: { attempt: number; status: string }) => [attempt.attempt, attempt.status]),
    ).toEqual([
      [3, 'pending'],
      [2, 'failed'],
      [1, 'failed'],
    ]);
    await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
  });

  it('a claim written before claims had a token is taken over once watched, its attempt kept as abandoned', async () => {
    const repository = t.app.get(WebhookDeliveriesRepository);
    const endpoint = await createEndpoint('/old-claims');
    const endpointId = new Types.ObjectId(endpoint.id);
    const projectId = (await t.db.collection('webhook_endpoints').findOne({ _id: endpointId }))!
      .projectId as Types.ObjectId;
    const _id = new Types.ObjectId();
    const claimedAt = new Date(Date.now() - 30_000);
    const claimedUntil = new Date(Date.now() + 60_000);
    // As an earlier build left it while sending attempt 1: no `claimToken` field at all.
    await t.db.collection('webhook_deliveries').insertOne({
      _id,
      projectId,
      endpointId,
      eventId: 'evt_old_claim',
      eventType: 'customer.created',
      payload: '{}',
      status: 'pending',
      attempt: 1,
      nextAttemptAt: claimedUntil,
      claimedUntil,
      claimedAt,
      attempts: [],
      firstAttemptAt: claimedAt,
      createdAt: claimedAt,
      updatedAt: claimedAt,
    });
    const read = { _id, projectId, endpointId, attempt: 1, claimedUntil, claimedAt };
    const asked: string[] = [];
    expect(
      await repository.claim(read, new Date(Date.now() + 30_000), new Date(), (key) => (asked.push(key), false)),
    ).toBeNull();
    expect(asked).toEqual([`${String(_id)}:1:${claimedAt.getTime()}`]);
    // A read of another claim of that attempt (another end) claims nothing: the delivery moved on since.
    expect(
      await repository.claim(
        { ...read, claimedUntil: new Date(claimedUntil.getTime() + 1) },
        new Date(Date.now() + 30_000),
        new Date(),
        () => true,
      ),
    ).toBeNull();
    const taken = await repository.claim(read, new Date(Date.now() + 30_000), new Date(), () => true);
    expect(taken).toMatchObject({ attempt: 2 });
    expect(await t.db.collection('webhook_deliveries').findOne({ _id })).toMatchObject({
      attempt: 2,
      claimToken: taken!.token,
      attempts: [{ attempt: 1, status: 'failed', error: ABANDONED }],
    });
    await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
  });

  it('a rolled secret keeps signing beside the new one for its grace period; with none, only the new one signs', async () => {
    const endpoint = await createEndpoint('/rolled');
    const rolled = await post(`${ENDPOINTS}/${endpoint.id}/roll-secret`, { expiresInHours: 1 });
    expect(rolled.status).toBe(200);
    const newSecret = rolled.body.data.secret;
    expect(newSecret).not.toBe(endpoint.secret);
    await createCustomer();
    const [delivery] = await receiver.waitFor('/rolled', 1);
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [endpoint.secret, newSecret])
      new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);

    const again = (await post(`${ENDPOINTS}/${endpoint.id}/roll-secret`, { expiresInHours: 0 })).body.data.secret;
    await createCustomer();
    const [, second] = await receiver.waitFor('/rolled', 2);
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(1);
    new Webhook(again).verify(second.body, second.headers as Record<string, string>);
    expect(() => new Webhook(newSecret).verify(second.body, second.headers as Record<string, string>)).toThrow();
    await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
  });

  it('sends a test event to that endpoint only, not recorded in the event list', async () => {
    const target = await createEndpoint('/test-target');
    const bystander = await createEndpoint('/bystander');
    const sent = await post(`${ENDPOINTS}/${target.id}/test`, {});
    expect(sent.status).toBe(202);
    expect(sent.body.data).toMatchObject({ eventType: 'webhook.test', status: 'pending' });
    const [delivery] = await receiver.waitFor('/test-target', 1);
    const event = new Webhook(target.secret).verify(delivery.body, delivery.headers as Record<string, string>) as {
      id: string;
      type: string;
    };
    expect(event.type).toBe('webhook.test');
    expectNotFound(await t.http.get(`/v1/events/${event.id}`, { token: admin.token }), 'Event not found');
    await sleep(200);
    expect(receiver.at('/bystander')).toHaveLength(0);
    for (const endpoint of [target, bystander])
      await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
  });

  it("answers a test event to a disabled endpoint with 409: the request is valid, the endpoint's state is not", async () => {
    const endpoint = await createEndpoint('/test-disabled');
    await t.http.patch(`${ENDPOINTS}/${endpoint.id}`, { status: 'disabled' }, { token: admin.token });
    expectError(
      await post(`${ENDPOINTS}/${endpoint.id}/test`, {}),
      409,
      'The endpoint is disabled: enable it to send it a test event',
    );
    await sleep(200);
    expect(receiver.at('/test-disabled')).toHaveLength(0);
    await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
  });

  it('a slow endpoint never holds up the API call whose event it receives', async () => {
    receiver.answer('/hanging', () => undefined);
    const endpoint = await createEndpoint('/hanging');
    await createCustomer();
    await receiver.waitFor('/hanging', 1);
    // The receiver has not answered: the delivery is still open while further calls complete.
    expect(receiver.isOpen('/hanging')).toBe(true);
    const customer = await createCustomer();
    expect(customer).toMatch(/^[0-9a-f]{24}$/);
    expect(receiver.isOpen('/hanging')).toBe(true);
    await t.http.patch(`${ENDPOINTS}/${endpoint.id}`, { status: 'disabled' }, { token: admin.token });
  });

  it('disables an endpoint whose deliveries have all failed for the configured hours, with the reason', async () => {
    receiver.answer('/dead', (response) => response.writeHead(503).end());
    const endpoint = await createEndpoint('/dead');
    await t.db
      .collection('webhook_endpoints')
      .updateOne(
        { _id: new Types.ObjectId(endpoint.id) },
        { $set: { failingSince: new Date(Date.now() - 73 * 3_600_000) } },
      );
    await createCustomer();
    await receiver.waitFor('/dead', 1);
    await waitUntil(
      async () =>
        (await t.http.get(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token })).body.data.status === 'disabled',
    );
    const disabled = (await t.http.get(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token })).body.data;
    expect(disabled.disabledReason).toMatch(/^Every delivery failed for 72 hours \(since /);
    const enabled = await t.http.patch(`${ENDPOINTS}/${endpoint.id}`, { status: 'enabled' }, { token: admin.token });
    expect(enabled.body.data).toMatchObject({ status: 'enabled', disabledReason: null });
    await t.http.delete(`${ENDPOINTS}/${endpoint.id}`, { token: admin.token });
  });

  it('at most 16 endpoints a project', async () => {
    const owner = await createFirstAdmin(t.http);
    for (let i = 0; i < 16; i++) await createEndpoint(`/many-${i}`, {}, owner.token);
    expectError(
      await post(ENDPOINTS, { url: `${receiver.base}/one-more`, enabledEvents: ['*'] }, owner.token),
      400,
      'A platform project can have at most 16 webhook endpoints',
    );
  });

  it('needs an admin; another project sees none of it', async () => {
    const endpoint = await createEndpoint('/private');
    const developer = await createUser(t.http, 'developer', admin.token);
    expectForbidden(await t.http.get(ENDPOINTS, { token: developer.token }));
    const stranger = await createFirstAdmin(t.http);
    expectNotFound(
      await t.http.get(`${ENDPOINTS}/${endpoint.id}`, { token: stranger.token }),
      'Webhook endpoint not found',
    );
    expectNotFound(
      await t.http.get(`${ENDPOINTS}/${endpoint.id}/deliveries`, { token: stranger.token }),
      'Webhook endpoint not found',
    );
    expect((await t.http.get(ENDPOINTS, { token: stranger.token })).text).not.toContain(endpoint.id);
    await createCustomer(stranger.token);
    await sleep(300);
    expect(receiver.at('/private')).toHaveLength(0);
  });
});

describe('webhooks when the service stops', () => {
  const receiver = new WebhookReceiver();

  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('starts no attempt once stopping, not even a retry due at once, and waits for the ones under way', async () => {
    // A retry is due the moment an attempt fails: only the stop keeps it from being sent.
    const t = await createTestApp({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '3000',
      WEBHOOK_RETRY_SCHEDULE: '0,0,0',
    });
    try {
      const admin = await createFirstAdmin(t.http);
      // More deliveries per event than a fan-out sends at once (8): the rest wait for a free lane or a poll.
      for (let i = 0; i < 12; i++) {
        receiver.answer(`/never-${i}`, () => undefined);
        const res = await t.http.post(
          ENDPOINTS,
          { url: `${receiver.base}/never-${i}`, enabledEvents: ['customer.created'] },
          { token: admin.token },
        );
        expect(res.status).toBe(201);
      }
      expect(
        (await t.http.post('/v1/customers', { email: 'stopping@example.com' }, { token: admin.token })).status,
      ).toBe(201);
      for (let i = 0; i < 12; i++) await receiver.waitFor(`/never-${i}`, 1);
    } finally {
      await t.close();
    }
    // Each delivery's first attempt was sent once and timed out while the service stopped; none was
    // sent again, though due at once.
    expect(Array.from({ length: 12 }, (_, i) => receiver.at(`/never-${i}`).length)).toEqual(Array(12).fill(1));
  });
});

describe('webhook URLs without WEBHOOK_ALLOW_PRIVATE_URLS', () => {
  let t: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await createFirstAdmin(t.http);
  });
  afterAll(() => t.close());

  it.each([
    ['http://example.com/hooks', 'url must use https'],
    [
      'https://127.0.0.1/hooks',
      'url must not point to a loopback, private, link-local, unique-local, multicast or metadata address',
    ],
    [
      'https://169.254.169.254/latest/meta-data',
      'url must not point to a loopback, private, link-local, unique-local, multicast or metadata address',
    ],
    [
      'https://[::1]/hooks',
      'url must not point to a loopback, private, link-local, unique-local, multicast or metadata address',
    ],
    [
      'https://localhost/hooks',
      'url must not point to a loopback, private, link-local, unique-local, multicast or metadata address',
    ],
  ])('refuses %s', async (url, message) => {
    expectError(await t.http.post(ENDPOINTS, { url, enabledEvents: ['*'] }, { token: admin.token }), 400, message);
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(50);
  }
}
