import { Records } from '../../src/database/records';
import { EventRelay } from '../../src/events/event-relay';
import { EventsRepository } from '../../src/events/events.repository';
import { Types } from 'mongoose';
import { createFirstAdmin, TestUser } from '../support/auth';
import { expectNotFound, expectValidationError } from '../support/expect-error';
import { pollUntil } from '../support/deadline';
import { createTestApp, TestApp } from '../support/test-app';

const FUTURE_YEAR = String(new Date().getUTCFullYear() + 3);

interface EventBody {
  id: string;
  type: string;
  createdAt: string;
  projectId: string;
  apiVersion: string;
  data: { object: Record<string, unknown>; previousAttributes?: Record<string, unknown> };
  request: { id: string | null; idempotencyKey: string | null };
}

describe('events /v1/events', () => {
  let t: TestApp;
  let admin: TestUser;
  let relay: EventRelay;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await createFirstAdmin(t.http);
    relay = t.app.get(EventRelay);
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    t.http.post(path, body, { token: admin.token, headers });
  async function events(query = ''): Promise<EventBody[]> {
    const res = await t.http.get(`/v1/events${query}`, { token: admin.token });
    expect(res.status).toBe(200);
    return res.body.data;
  }
  /** The events recorded for one record, oldest first. */
  /** The stored record once its outbox is emptied (the relay does it within a second), or as it is after 10 s. */
  async function outboxEmptied(collection: string, id: string) {
    const read = () => t.db.collection(collection).findOne({ _id: new Types.ObjectId(id) });
    await pollUntil(async () => !(await read())?.outbox, 10_000, 100);
    return read();
  }

  async function eventsOf(id: string): Promise<EventBody[]> {
    // The finance APIs name a record `id`; the content APIs, as the specification has them, `_id`.
    return (await events('?limit=100'))
      .filter((event) => (event.data.object.id ?? event.data.object._id) === id)
      .reverse();
  }
  async function createCustomer(
    body: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ): Promise<string> {
    const res = await post(
      '/v1/customers',
      { email: 'jenny@example.com', SocialNumber: '078-05-1120', ...body },
      headers,
    );
    expect(res.status).toBe(201);
    return res.body.data.id;
  }

  it('records a create with the object as its GET returns it, the request id and key, and no secret', async () => {
    const id = await createCustomer({}, { 'x-request-id': 'req-events-1', 'idempotency-key': 'events-key-1' });
    const [created] = await eventsOf(id);
    const get = await t.http.get(`/v1/customers/${id}`, { token: admin.token });
    expect(created).toMatchObject({
      type: 'customer.created',
      apiVersion: '2026-11-24',
      request: { id: 'req-events-1', idempotencyKey: 'events-key-1' },
    });
    expect(created.id).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(created.data.object).toEqual(get.body.data);
    expect(created.data.previousAttributes).toBeUndefined();
    expect(JSON.stringify(created)).not.toContain('078-05-1120');
    expect(JSON.stringify(created)).not.toContain('SocialNumber');

    const one = await t.http.get(`/v1/events/${created.id}`, { token: admin.token });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(created);
  });

  it('records an update with the fields it changed, as they were, and a delete with the record as it was', async () => {
    const id = await createCustomer({ firstName: 'Jenny' });
    expect((await post(`/v1/customers/${id}`, { firstName: 'Jane', lastName: 'Rosen' })).status).toBe(200);
    // Once relayed, the record keeps no copy of its state before (emptied off the request, within a
    // second): only its version, the change's event id.
    const stored = await outboxEmptied('customers', id);
    expect(stored).not.toHaveProperty('outbox');
    expect(stored?.lastChange).toBe((await eventsOf(id)).at(-1)!.id);
    expect((await t.http.delete(`/v1/customers/${id}`, { token: admin.token })).status).toBe(200);
    const [created, updated, deleted] = await eventsOf(id);
    expect([created.type, updated.type, deleted.type]).toEqual([
      'customer.created',
      'customer.updated',
      'customer.deleted',
    ]);
    expect(updated.data.object).toMatchObject({ firstName: 'Jane', lastName: 'Rosen' });
    expect(updated.data.previousAttributes).toMatchObject({ firstName: 'Jenny', lastName: null });
    expect(Object.keys(updated.data.previousAttributes!).sort()).toEqual(['firstName', 'lastName', 'updatedAt']);
    expect(deleted.data.object).toMatchObject({ id, firstName: 'Jane' });
  });

  it('records nothing for an update that changes nothing, and keeps its updatedAt', async () => {
    const id = await createCustomer({ firstName: 'Jenny' });
    const before = (await t.http.get(`/v1/customers/${id}`, { token: admin.token })).body.data;
    const same = await post(`/v1/customers/${id}`, { firstName: 'Jenny', email: 'jenny@example.com' });
    expect(same.status).toBe(200);
    expect(same.body.data).toEqual(before);
    expect((await post(`/v1/customers/${id}`, {})).status).toBe(200);
    expect((await eventsOf(id)).map((event) => event.type)).toEqual(['customer.created']);

    const client = await t.http.post(
      '/clients',
      { name: 'Same Co', email: 'same@example.com' },
      { token: admin.token },
    );
    expect(client.status).toBe(201);
    const clientId = client.body.id as string;
    const stored = await t.db.collection('clients').findOne({ _id: new Types.ObjectId(clientId) });
    expect((await t.http.put(`/clients/${clientId}`, {}, { token: admin.token })).status).toBe(200);
    expect((await t.http.put(`/clients/${clientId}`, { name: 'Same Co' }, { token: admin.token })).status).toBe(200);
    const kept = await t.db.collection('clients').findOne({ _id: new Types.ObjectId(clientId) });
    expect(kept?.updatedAt).toEqual(stored?.updatedAt);
    expect((await eventsOf(clientId)).map((event) => event.type)).toEqual(['client.created']);

    // A change of one field among unchanged ones is recorded, with that field alone before.
    expect((await post(`/v1/customers/${id}`, { firstName: 'Jenny', lastName: 'Rosen' })).status).toBe(200);
    const [, updated] = await eventsOf(id);
    expect(Object.keys(updated.data.previousAttributes!).sort()).toEqual(['lastName', 'updatedAt']);
  });

  it('a payment records created, its outcome, and one refunded per refund with the totals before', async () => {
    const customer = await createCustomer();
    const card = await post('/v1/cards', {
      customer,
      cardNumber: '4242424242424242',
      expMonth: '12',
      expYear: FUTURE_YEAR,
      cvc: '123',
    });
    expect(card.status).toBe(201);
    const payment = await post('/api/v1/payments', { amount: 10, currency: 'usd', customer, confirm: true });
    expect(payment.status).toBe(201);
    const id = payment.body.id;
    expect((await post(`/api/v1/payments/${id}/refund`, { amount: 3 })).status).toBe(200);
    expect((await post(`/api/v1/payments/${id}/refund`, { amount: 7 })).status).toBe(200);
    const recorded = await eventsOf(id);
    expect(recorded.map((event) => event.type)).toEqual([
      'payment.created',
      'payment.succeeded',
      'payment.refunded',
      'payment.refunded',
    ]);
    expect(recorded[2].data.previousAttributes).toMatchObject({ status: 'succeeded', amountRefunded: 0 });
    expect(recorded[3].data.previousAttributes).toMatchObject({ status: 'partially_refunded', amountRefunded: 3 });
    expect(recorded[3].data.object).toMatchObject({ status: 'refunded', amountRefunded: 10 });
    const cardEvents = await eventsOf(card.body.data.id);
    expect(cardEvents.map((event) => event.type)).toEqual(['card.created']);
    expect(JSON.stringify(cardEvents)).not.toContain('4242424242424242');
    const defaults = (await eventsOf(customer)).filter((event) => event.type === 'customer.default_card_changed');
    expect(defaults).toHaveLength(1);
    expect(defaults[0].data.previousAttributes).toMatchObject({ defaultMethod: null });
  });

  it('a request replayed from its Idempotency-Key records nothing new', async () => {
    const headers = { 'idempotency-key': 'events-replay-1' };
    const first = await post('/v1/customers', { email: 'replay@example.com' }, headers);
    const before = (await events('?limit=100')).length;
    const again = await post('/v1/customers', { email: 'replay@example.com' }, headers);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect((await events('?limit=100')).length).toBe(before);
  });

  it('soft delete, restore and hard delete of a collection are recorded', async () => {
    const created = await post('/collections', { name: 'Evented' });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await t.http.patch(`/collections/${id}/soft-delete`, {}, { token: admin.token })).status).toBe(200);
    expect((await t.http.patch(`/collections/${id}/restore`, {}, { token: admin.token })).status).toBe(200);
    expect((await t.http.delete(`/collections/${id}`, { token: admin.token })).status).toBe(200);
    const recorded = (await eventsOf(id)).map((event) => [
      event.type,
      event.data.object.deletedAt ? 'soft-deleted' : 'live',
    ]);
    expect(recorded).toEqual([
      ['collection.created', 'live'],
      ['collection.deleted', 'soft-deleted'],
      ['collection.restored', 'live'],
      ['collection.deleted', 'live'],
    ]);
  });

  it('filters by type and time, pages with startingAfter, and refuses bad filters', async () => {
    await createCustomer();
    await createCustomer();
    const all = await events('?limit=100');
    const createdOnly = await events('?type=customer.created&limit=100');
    expect(createdOnly.length).toBeGreaterThanOrEqual(2);
    expect(createdOnly.every((event) => event.type === 'customer.created')).toBe(true);
    expect(all.map((event) => event.id)).toEqual([...all.map((event) => event.id)].sort().reverse());

    const first = await t.http.get('/v1/events?limit=1', { token: admin.token });
    expect(first.body.hasMore).toBe(true);
    const second = await events(`?limit=1&startingAfter=${first.body.data[0].id}`);
    expect(second[0].id).toBe(all[1].id);

    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await events(`?createdFrom=${future}`)).toEqual([]);
    expect((await events(`?createdTo=${future}&limit=100`)).length).toBe(all.length);

    expectValidationError(
      await t.http.get('/v1/events?type=customer.exploded', { token: admin.token }),
      'type',
      /^type must be one of: customer.created/,
    );
    expectValidationError(
      await t.http.get('/v1/events?startingAfter=nope', { token: admin.token }),
      'startingAfter',
      /must be an event id/,
    );
    expectValidationError(await t.http.get('/v1/events?limit=101', { token: admin.token }), 'limit');
    expectValidationError(
      await t.http.get('/v1/events?createdFrom=yesterday', { token: admin.token }),
      'createdFrom',
      'createdFrom must be an ISO 8601 date-time',
    );
    // Longer than any ISO 8601 date-time (the documented maxLength), however it would parse.
    const padded = encodeURIComponent(`${' '.repeat(30)}${new Date().toISOString()}`);
    expectValidationError(
      await t.http.get(`/v1/events?createdTo=${padded}`, { token: admin.token }),
      'createdTo',
      'createdTo must be an ISO 8601 date-time',
    );
    const malformed = await t.http.get('/v1/events/nope', { token: admin.token });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe('id must be an event id (evt_ and 24 hexadecimal digits)');
  });

  it("lists one object's events by its id, a deleted record's included, and no other project's", async () => {
    const kept = await createCustomer();
    const deleted = await createCustomer();
    await createCustomer();
    expect((await post(`/v1/customers/${kept}`, { firstName: 'Jane' })).status).toBe(200);
    expect((await t.http.delete(`/v1/customers/${deleted}`, { token: admin.token })).status).toBe(200);

    const ofKept = await events(`?object=${kept}`);
    expect(ofKept.map((event) => event.type)).toEqual(['customer.updated', 'customer.created']);
    expect(ofKept.every((event) => event.data.object.id === kept)).toBe(true);
    expect(await events(`?object=${kept.toUpperCase()}&type=customer.created`)).toEqual([ofKept[1]]);
    expect((await events(`?object=${deleted}`)).map((event) => event.type)).toEqual([
      'customer.deleted',
      'customer.created',
    ]);
    expect(await events(`?object=${new Types.ObjectId().toHexString()}`)).toEqual([]);

    const other = await createFirstAdmin(t.http);
    const foreign = await t.http.get(`/v1/events?object=${kept}`, { token: other.token });
    expect(foreign.status).toBe(200);
    expect(foreign.body.data).toEqual([]);
    expectValidationError(
      await t.http.get('/v1/events?object=cus_123', { token: admin.token }),
      'object',
      'object must be the id of a resource (24 hexadecimal digits)',
    );
  });

  it("another project's event is 404, as a missing one", async () => {
    const id = await createCustomer();
    const [created] = await eventsOf(id);
    const other = await createFirstAdmin(t.http);
    expectNotFound(await t.http.get(`/v1/events/${created.id}`, { token: other.token }), 'Event not found');
    expect((await t.http.get('/v1/events', { token: other.token })).body.data).toEqual([]);
    expectNotFound(
      await t.http.get('/v1/events/evt_6650c0ffee0000000000ffff', { token: admin.token }),
      'Event not found',
    );
  });

  describe('a process that stops between two writes loses no event and records none twice', () => {
    const stopped = () => Promise.reject(new Error('process stopped here'));

    it('an outbox waits in its record as sub-documents until it is copied, then is removed; a change written meanwhile keeps its own', async () => {
      const id = await createCustomer({ firstName: 'Jenny' });
      const _id = new Types.ObjectId(id);
      const customers = () => t.db.collection('customers');
      jest.spyOn(EventsRepository.prototype, 'recordMany').mockImplementationOnce(stopped);
      expect((await post(`/v1/customers/${id}`, { firstName: 'Jane' })).status).toBe(200);
      const stranded = await customers().findOne({ _id });
      expect(stranded?.outbox).toEqual([
        expect.objectContaining({
          type: 'customer.updated',
          before: expect.objectContaining({ id, firstName: 'Jenny' }),
        }),
      ]);
      expect(stranded?.lastChange).toBe(stranded?.outbox[0].id);

      // While the sweep empties that outbox, another instance's change lands, its own events not copied yet.
      const theirs = {
        id: `evt_${new Types.ObjectId().toHexString()}`,
        type: 'customer.updated',
        createdAt: new Date(),
        before: null,
        request: { id: null, idempotencyKey: null },
      };
      const updateManyStored = Records.prototype.updateManyStored;
      // Only the emptying of this record: the relay's timer also empties other tests' records meanwhile.
      let landed = false;
      jest.spyOn(Records.prototype, 'updateManyStored').mockImplementation(async function (
        this: Records<unknown>,
        ...args
      ) {
        const ids = (args[0]._id as { $in?: unknown[] } | undefined)?.$in ?? [];
        if (!landed && ids.some((one) => String(one) === id)) {
          landed = true;
          await customers().updateOne({ _id }, { $set: { outbox: [theirs], lastChange: theirs.id } });
        }
        return updateManyStored.apply(this, args);
      });
      await relay.sweep(0);
      await relay.emptyCopiedOutboxes();
      expect(landed).toBe(true);
      expect((await eventsOf(id)).map((event) => event.type)).toEqual(['customer.created', 'customer.updated']);
      const kept = await customers().findOne({ _id });
      expect(kept?.outbox).toEqual([expect.objectContaining({ id: theirs.id })]);
      expect(kept?.lastChange).toBe(theirs.id);

      // The next sweep copies that one and removes it.
      await relay.sweep(0);
      await relay.emptyCopiedOutboxes();
      expect((await eventsOf(id)).map((event) => event.id)).toContain(theirs.id);
      const emptied = await customers().findOne({ _id });
      expect(emptied).not.toHaveProperty('outbox');
      expect(emptied?.lastChange).toBe(theirs.id);
    });

    it('between the change and the event: the sweep records it once', async () => {
      jest.spyOn(EventsRepository.prototype, 'recordMany').mockImplementationOnce(stopped);
      const id = await createCustomer();
      expect(await eventsOf(id)).toEqual([]);
      await relay.sweep(0);
      await relay.sweep(0);
      expect((await eventsOf(id)).map((event) => event.type)).toEqual(['customer.created']);
    });

    it('a change never replaces an outbox whose events may not be recorded yet: they are recorded first, once', async () => {
      const id = await createCustomer();
      // Another instance wrote this record's outbox a moment ago and has not published it yet.
      const theirs = {
        id: `evt_${new Types.ObjectId().toHexString()}`,
        type: 'customer.updated',
        createdAt: new Date(),
        before: null,
        request: { id: null, idempotencyKey: null },
      };
      await t.db.collection('customers').updateOne({ _id: new Types.ObjectId(id) }, { $set: { outbox: [theirs] } });
      expect((await post(`/v1/customers/${id}`, { firstName: 'Jenny' })).status).toBe(200);
      const recorded = await eventsOf(id);
      expect(recorded.map((event) => event.type)).toEqual(['customer.created', 'customer.updated', 'customer.updated']);
      expect(recorded[1].id).toBe(theirs.id);
      expect(recorded[2].data.object.firstName).toBe('Jenny');
      const stored = await outboxEmptied('customers', id);
      expect(stored).not.toHaveProperty('outbox');
      expect(stored?.lastChange).toBe(recorded[2].id);
    });

    it('changes under way side by side each record their own event, once', async () => {
      const ids = await Promise.all(
        Array.from({ length: 8 }, (_, i) => createCustomer({ email: `side-${i}@example.com` })),
      );
      // Each update is guarded while the others are under way on this instance.
      const updates = await Promise.all(
        ids.flatMap((id) => [
          post(`/v1/customers/${id}`, { firstName: 'Ada' }),
          post(`/v1/customers/${id}`, { lastName: 'Lovelace' }),
        ]),
      );
      expect(updates.map((res) => res.status)).toEqual(updates.map(() => 200));
      await relay.sweep(0);
      for (const id of ids)
        expect((await eventsOf(id)).map((event) => event.type)).toEqual([
          'customer.created',
          'customer.updated',
          'customer.updated',
        ]);
    });

    it('a change that fails records nothing', async () => {
      const channel = (name: string) => ({
        clientId: client,
        name,
        username: name,
        avatarUrl: 'https://cdn.example.com/a.png',
        role: 'creator',
      });
      const client = (await post('/clients', { name: 'Events client', email: 'events-client@example.com' })).body.id;
      expect((await post('/channels', channel('taken_events'))).status).toBe(200);
      const mine = await post('/channels', channel('mine_events'));
      expect(mine.status).toBe(200);
      const mineId = mine.body.id;
      const before = (await eventsOf(mineId)).length;
      expect(before).toBe(1);
      const clash = await t.http.put(`/channels/${mineId}`, { username: 'taken_events' }, { token: admin.token });
      expect(clash.status).toBe(409);
      await relay.sweep(0);
      expect((await eventsOf(mineId)).length).toBe(before);
    });

    it('between the delete event and the delete: the sweep drops the event, the record being there', async () => {
      const id = await createCustomer();
      jest.spyOn(Records.prototype, 'deleteMany').mockImplementationOnce(stopped);
      expect((await t.http.delete(`/v1/customers/${id}`, { token: admin.token })).status).toBeGreaterThanOrEqual(500);
      expect((await eventsOf(id)).map((event) => event.type)).toEqual(['customer.created']);
      await relay.sweep(0);
      expect((await t.http.get(`/v1/customers/${id}`, { token: admin.token })).status).toBe(200);
      expect((await eventsOf(id)).map((event) => event.type)).toEqual(['customer.created']);
      expect(await t.db.collection('event_deletions').countDocuments({ _id: `customers:${id}` } as never)).toBe(0);
      expect(await t.db.collection('events').countDocuments({ type: 'customer.deleted', body: { $regex: id } })).toBe(
        0,
      );
    });

    it('between the delete and settling its event: the sweep lists it, the record being gone', async () => {
      const id = await createCustomer();
      jest.spyOn(EventsRepository.prototype, 'settleDeletions').mockImplementationOnce(stopped);
      expect((await t.http.delete(`/v1/customers/${id}`, { token: admin.token })).status).toBe(200);
      expect((await eventsOf(id)).map((event) => event.type)).toEqual(['customer.created']);
      // Found by one indexed value, not by reading every event.
      const unsettled = await t.db
        .collection('event_deletions')
        .find({ unsettled: true, type: 'customer.deleted' })
        .toArray();
      expect(unsettled.map((deletion) => String(deletion.deleting?.id))).toEqual([id]);
      await relay.sweep(0);
      expect((await eventsOf(id)).map((event) => event.type)).toEqual(['customer.created', 'customer.deleted']);
      expect(await t.db.collection('event_deletions').countDocuments({ unsettled: { $exists: true } })).toBe(0);
      // Kept, listed, as the record's one deletion event: a late retry of the delete finds it.
      const [kept] = await t.db
        .collection('event_deletions')
        .find({ _id: `customers:${id}` } as never)
        .toArray();
      expect(kept.eventId).toBe((await eventsOf(id))[1].id);
    });

    it("finds a change stranded by a writer whose clock is 4 minutes behind, after a sweep's mark passed its time", async () => {
      const events = t.app.get(EventsRepository);
      const fence = 2_000_000;
      try {
        jest.spyOn(EventsRepository.prototype, 'recordMany').mockImplementationOnce(stopped);
        const id = await createCustomer();
        expect(await eventsOf(id)).toEqual([]);
        // Its writer's clock stamped it 4 minutes before the sweeper's; a sweep has just finished since.
        await t.db
          .collection('customers')
          .updateOne({ _id: new Types.ObjectId(id) }, { $set: { updatedAt: new Date(Date.now() - 4 * 60_000) } });
        await events.markSwept(new Date(Date.now() - 30_000), fence);
        await relay.sweepSinceLast(fence + 1);
        expect((await eventsOf(id)).map((event) => event.type)).toEqual(['customer.created']);
      } finally {
        await t.db.collection('event_sweeps').deleteMany({});
      }
    });

    it('the sweeps go on from one mark in the database, which only moves forward, and never under an older lease token', async () => {
      const events = t.app.get(EventsRepository);
      // Ahead of every real sweep's mark, which the instance's own sweeps (every 15 s) cannot pass;
      // the tokens above any its own sweeps take.
      const at = (minute: number) => new Date(Date.UTC(2099, 0, 1, 0, minute));
      const fence = 1_000_000;
      try {
        await events.markSwept(at(0), fence);
        await events.markSwept(at(2), fence + 1);
        await events.markSwept(at(1), fence + 1);
        expect(await events.sweptUntil()).toEqual(at(2));
        // A sweeper taken over (its token older) moves it no more, however far ahead its clock is.
        await events.markSwept(at(30), fence);
        expect(await events.sweptUntil()).toEqual(at(2));
        await events.markSwept(at(3), fence + 2);
        expect(await events.sweptUntil()).toEqual(at(3));
        expect(await t.db.collection('event_sweeps').countDocuments()).toBe(1);
      } finally {
        await t.db.collection('event_sweeps').deleteMany({});
      }
    });
  });
});
