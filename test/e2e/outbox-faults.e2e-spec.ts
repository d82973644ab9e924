import { Logger } from '@nestjs/common';
import { Types } from 'mongoose';
import { Records } from '../../src/database/records';
import { EventRelay } from '../../src/events/event-relay';
import { EventsRepository } from '../../src/events/events.repository';
import { createFirstAdmin, TestUser } from '../support/auth';
import { createCard as createCardAs, createCustomer as createCustomerAs } from '../support/finance';
import { pollUntil } from '../support/deadline';
import { failOnce, networkError, stopBeforeRecording, stopBeforeSettling, type RecordWrite } from '../support/faults';
import { HttpResponse } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Faults injected into every recorded write kind: a process that stops between two of a change's
 * writes (the step after the last write done throws), and a write the database applied whose answer
 * was lost (the driver throws after the write). After recovery (the sweep), every change that
 * happened has exactly its events, once, and a change that did not happen has none.
 */
describe('the outbox under faults', () => {
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

  const post = (path: string, body: unknown) => t.http.post(path, body, { token: admin.token });

  /** The event types recorded for one record, oldest first. */
  async function typesOf(id: string): Promise<string[]> {
    const res = await t.http.get('/v1/events?limit=100', { token: admin.token });
    expect(res.status).toBe(200);
    const events = res.body.data as { type: string; data: { object: Record<string, unknown> } }[];
    return events
      .filter((event) => (event.data.object.id ?? event.data.object._id) === id)
      .map((event) => event.type)
      .reverse();
  }

  /** Recovery: sweeps with no grace, twice, so that a second pass is seen to add nothing. */
  async function recover(): Promise<void> {
    await relay.sweep(0);
    await relay.sweep(0);
  }

  const expectUnavailable = (res: HttpResponse) => expect(res.status).toBeGreaterThanOrEqual(500);

  const createCustomer = () => createCustomerAs(t.http, admin.token, 'fault@example.com');
  const createCard = (customer: string) => createCardAs(t.http, admin.token, customer);
  async function createCollection(): Promise<string> {
    const res = await post('/collections', { name: 'Faulty' });
    expect(res.status).toBe(201);
    return res.body.id;
  }
  async function createPayment(): Promise<string> {
    const customer = await createCustomer();
    await createCard(customer);
    const res = await post('/api/v1/payments', { amount: 10, currency: 'usd', customer, confirm: true });
    expect(res.status).toBe(201);
    return res.body.id;
  }
  async function customerIds(): Promise<Set<string>> {
    const res = await t.http.get('/v1/customers?limit=100', { token: admin.token });
    return new Set((res.body.data as { id: string }[]).map((customer) => customer.id));
  }

  describe('insert', () => {
    it('stopped before the write: no record, no event', async () => {
      const before = await customerIds();
      failOnce('insert', 'customers', 'stop');
      expectUnavailable(await post('/v1/customers', { email: 'never@example.com' }));
      await recover();
      const created = [...(await customerIds())].filter((id) => !before.has(id));
      expect(created).toEqual([]);
    });

    it('stopped between the write and its events: the sweep records them once', async () => {
      stopBeforeRecording();
      const id = await createCustomer();
      expect(await typesOf(id)).toEqual([]);
      await recover();
      expect(await typesOf(id)).toEqual(['customer.created']);
    });

    it('applied, its answer lost: settled by reading the record, answered, recorded once', async () => {
      const before = await customerIds();
      failOnce('insert', 'customers', 'lost');
      const res = await post('/v1/customers', { email: 'lost@example.com' });
      expect(res.status).toBe(201);
      await recover();
      const created = [...(await customerIds())].filter((id) => !before.has(id));
      expect(created).toEqual([res.body.data.id]);
      expect(await typesOf(res.body.data.id)).toEqual(['customer.created']);
    });

    it('applied, its answer lost and the record unreadable: 503, the Idempotency-Key kept, so a retry makes no second record', async () => {
      const before = await customerIds();
      failOnce('insert', 'customers', 'lost');
      const findOne = Records.prototype.findOne;
      jest.spyOn(Records.prototype, 'findOne').mockImplementation(function (
        this: Records<unknown>,
        ...args: unknown[]
      ) {
        if (this.collectionName === 'customers')
          return Promise.reject(Object.assign(new Error('connection reset'), { name: 'MongoNetworkError' }));
        return (findOne as (...args: unknown[]) => Promise<unknown>).apply(this, args);
      } as never);
      const headers = { 'idempotency-key': 'outbox-faults-unknown' };
      const body = { email: 'unknown@example.com' };
      expect((await t.http.post('/v1/customers', body, { token: admin.token, headers })).status).toBe(503);
      jest.restoreAllMocks();
      const retry = await t.http.post('/v1/customers', body, { token: admin.token, headers });
      expect(retry.status).toBe(409);
      await recover();
      const created = [...(await customerIds())].filter((id) => !before.has(id));
      expect(created).toHaveLength(1);
      expect(await typesOf(created[0])).toEqual(['customer.created']);
    });
  });

  describe('a write whose answer is lost and whose record cannot be read at first', () => {
    /**
     * The next `method` on `collection`'s records fails as `failOnce` has it, and from then on every
     * read of a record of that collection fails too, until the mocks are restored (the database answers again).
     */
    function outage(method: RecordWrite, collection: string, mode: 'stop' | 'lost'): void {
      const write = Records.prototype[method] as (...args: unknown[]) => Promise<unknown>;
      const read = Records.prototype.findOne as (...args: unknown[]) => Promise<unknown>;
      let down = false;
      jest.spyOn(Records.prototype, method).mockImplementation(async function (
        this: Records<unknown>,
        ...args: unknown[]
      ) {
        if (down || this.collectionName !== collection) return write.apply(this, args);
        down = true;
        if (mode === 'lost') await write.apply(this, args);
        throw networkError('connection reset');
      } as never);
      jest.spyOn(Records.prototype, 'findOne').mockImplementation(function (
        this: Records<unknown>,
        ...args: unknown[]
      ) {
        return down && this.collectionName === collection
          ? Promise.reject(networkError('connection reset'))
          : read.apply(this, args);
      } as never);
    }
    const keyRecord = (key: string) => t.db.collection('idempotency_keys').findOne({ key });

    it('applied: once the database answers, the relay records its event by itself and the key never runs again', async () => {
      const before = await customerIds();
      const created = async () => [...(await customerIds())].filter((id) => !before.has(id));
      const headers = { 'idempotency-key': 'outbox-faults-settled-later' };
      const send = () => t.http.post('/v1/customers', { email: 'later@example.com' }, { token: admin.token, headers });
      outage('insert', 'customers', 'lost');
      expect((await send()).status).toBe(503);
      // Unsettled: the key is held.
      expect((await send()).status).toBe(409);
      jest.restoreAllMocks();
      // No sweep here: the relay reads the record again as soon as the database answers.
      expect(
        await pollUntil(async () => (await keyRecord(headers['idempotency-key']))?.state === 'unstored', 20_000),
      ).toBe(true);
      const [id, ...others] = await created();
      expect(others).toEqual([]);
      expect(await typesOf(id)).toEqual(['customer.created']);
      const retry = await send();
      expect(retry.status).toBe(409);
      expect(retry.body.message).toContain('its response could not be stored');
      await recover();
      expect(await created()).toEqual([id]);
      expect(await typesOf(id)).toEqual(['customer.created']);
    });

    it('not applied: once the database answers, the key is released and a retry runs once', async () => {
      const id = await createCustomer();
      const headers = { 'idempotency-key': 'outbox-faults-released-later' };
      const send = () => t.http.post(`/v1/customers/${id}`, { firstName: 'Later' }, { token: admin.token, headers });
      outage('updateAndGet', 'customers', 'stop');
      expect((await send()).status).toBe(503);
      expect((await send()).status).toBe(409);
      jest.restoreAllMocks();
      expect(await pollUntil(async () => (await keyRecord(headers['idempotency-key'])) === null, 20_000)).toBe(true);
      const retry = await send();
      expect(retry.status).toBe(200);
      expect(retry.body.data.firstName).toBe('Later');
      const replay = await send();
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      await recover();
      expect(await typesOf(id)).toEqual(['customer.created', 'customer.updated']);
    });

    it('applied, on a route that keeps its key with what it creates (a payment): the key is released and a retry answers that payment', async () => {
      const customer = await createCustomer();
      await createCard(customer);
      const headers = { 'idempotency-key': 'outbox-faults-payment-later' };
      const send = () =>
        t.http.post(
          '/api/v1/payments',
          { amount: 10, currency: 'usd', customer, confirm: true },
          { token: admin.token, headers },
        );
      outage('insert', 'payments', 'lost');
      expect((await send()).status).toBe(503);
      expect((await send()).status).toBe(409);
      jest.restoreAllMocks();
      expect(await pollUntil(async () => (await keyRecord(headers['idempotency-key'])) === null, 20_000)).toBe(true);
      const retry = await send();
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      const stored = await t.db
        .collection('payments')
        .find({ customer: new Types.ObjectId(customer) })
        .toArray();
      expect(stored.map((payment) => String(payment._id))).toEqual([retry.body.id]);
      await recover();
      expect(await typesOf(retry.body.id)).toEqual(['payment.created', 'payment.succeeded']);
    });
  });

  describe('update', () => {
    it('stopped before the write: no change, no event', async () => {
      const id = await createCustomer();
      failOnce('updateAndGet', 'customers', 'stop');
      expectUnavailable(await post(`/v1/customers/${id}`, { firstName: 'Never' }));
      await recover();
      expect((await t.http.get(`/v1/customers/${id}`, { token: admin.token })).body.data.firstName).toBeNull();
      expect(await typesOf(id)).toEqual(['customer.created']);
    });

    it('stopped between the write and its events: the sweep records them once', async () => {
      const id = await createCustomer();
      stopBeforeRecording();
      expect((await post(`/v1/customers/${id}`, { firstName: 'Ada' })).status).toBe(200);
      await recover();
      expect(await typesOf(id)).toEqual(['customer.created', 'customer.updated']);
    });

    it('applied, its answer lost: settled by reading the record, answered, recorded once', async () => {
      const id = await createCustomer();
      failOnce('updateAndGet', 'customers', 'lost');
      const res = await post(`/v1/customers/${id}`, { firstName: 'Lost' });
      expect(res.status).toBe(200);
      expect(res.body.data.firstName).toBe('Lost');
      await recover();
      expect(await typesOf(id)).toEqual(['customer.created', 'customer.updated']);
    });
  });

  describe('soft delete', () => {
    const softDelete = (id: string) => t.http.patch(`/collections/${id}/soft-delete`, {}, { token: admin.token });

    it('stopped before the write: still live, no event', async () => {
      const id = await createCollection();
      failOnce('updateAndGet', 'collections', 'stop');
      expectUnavailable(await softDelete(id));
      await recover();
      expect((await t.http.get(`/collections/${id}`, { token: admin.token })).status).toBe(200);
      expect(await typesOf(id)).toEqual(['collection.created']);
    });

    it('stopped between the write and its events: the sweep records them once', async () => {
      const id = await createCollection();
      stopBeforeRecording();
      expect((await softDelete(id)).status).toBe(200);
      await recover();
      expect(await typesOf(id)).toEqual(['collection.created', 'collection.deleted']);
    });

    it('applied, its answer lost: settled by reading the record, answered, recorded once', async () => {
      const id = await createCollection();
      failOnce('updateAndGet', 'collections', 'lost');
      expect((await softDelete(id)).status).toBe(200);
      await recover();
      expect(await typesOf(id)).toEqual(['collection.created', 'collection.deleted']);
    });
  });

  describe('hard delete', () => {
    const hardDelete = (id: string) => t.http.delete(`/collections/${id}`, { token: admin.token });

    it('stopped between its pending event and the delete: the record stays, the sweep drops the event', async () => {
      const id = await createCollection();
      failOnce('deleteMany', 'collections', 'stop');
      expectUnavailable(await hardDelete(id));
      await recover();
      expect((await t.http.get(`/collections/${id}`, { token: admin.token })).status).toBe(200);
      expect(await typesOf(id)).toEqual(['collection.created']);
      // The delete can no longer apply: a retry deletes it, recorded once.
      expect((await hardDelete(id)).status).toBe(200);
      await recover();
      expect(await typesOf(id)).toEqual(['collection.created', 'collection.deleted']);
    });

    it('stopped between the delete and settling its event: the sweep lists it once', async () => {
      const id = await createCollection();
      stopBeforeSettling();
      expect((await hardDelete(id)).status).toBe(200);
      expect(await typesOf(id)).toEqual(['collection.created']);
      await recover();
      expect(await typesOf(id)).toEqual(['collection.created', 'collection.deleted']);
    });

    it('applied, its answer lost: settled by reading (the record is gone), answered, recorded once', async () => {
      const id = await createCollection();
      failOnce('deleteMany', 'collections', 'lost');
      expect((await hardDelete(id)).status).toBe(200);
      await recover();
      expect(await typesOf(id)).toEqual(['collection.created', 'collection.deleted']);
    });

    it('two deletes of one record at once: one removes it, one event is recorded', async () => {
      const id = await createCollection();
      const answers = await Promise.all([hardDelete(id), hardDelete(id), hardDelete(id)]);
      expect(answers.map((res) => res.status).sort()).toEqual([200, 404, 404]);
      await recover();
      expect(await typesOf(id)).toEqual(['collection.created', 'collection.deleted']);
    });

    it('the events of its last change, not yet recorded, are recorded before the record goes', async () => {
      const id = await createCollection();
      stopBeforeRecording();
      expect((await t.http.patch(`/collections/${id}/soft-delete`, {}, { token: admin.token })).status).toBe(200);
      expect((await hardDelete(id)).status).toBe(200);
      await recover();
      expect(await typesOf(id)).toEqual(['collection.created', 'collection.deleted', 'collection.deleted']);
    });
  });

  describe("cascade: a customer's cards", () => {
    async function customerWithCards(): Promise<{ customer: string; cards: string[] }> {
      const customer = await createCustomer();
      return { customer, cards: [await createCard(customer), await createCard(customer)] };
    }
    const deleteCustomer = (id: string) => t.http.delete(`/v1/customers/${id}`, { token: admin.token });

    it('without faults: each card removed records card.deleted', async () => {
      const { customer, cards } = await customerWithCards();
      expect((await deleteCustomer(customer)).status).toBe(200);
      for (const card of cards) expect(await typesOf(card)).toEqual(['card.created', 'card.deleted']);
      expect((await typesOf(customer)).slice(-1)).toEqual(['customer.deleted']);
    });

    it('stopped between the pending events and the delete: nothing removed, no event', async () => {
      const { customer, cards } = await customerWithCards();
      failOnce('deleteMany', 'cards', 'stop');
      expectUnavailable(await deleteCustomer(customer));
      await recover();
      for (const card of cards) expect(await typesOf(card)).toEqual(['card.created']);
      expect(await typesOf(customer)).not.toContain('customer.deleted');
      expect((await t.http.get(`/v1/customers/${customer}`, { token: admin.token })).status).toBe(200);
    });

    it('stopped between the delete and settling the events: the sweep lists them once', async () => {
      const { customer, cards } = await customerWithCards();
      stopBeforeSettling();
      expect((await deleteCustomer(customer)).status).toBe(200);
      await recover();
      for (const card of cards) expect(await typesOf(card)).toEqual(['card.created', 'card.deleted']);
      expect((await typesOf(customer)).filter((type) => type === 'customer.deleted')).toHaveLength(1);
    });

    it('applied, its answer lost: settled by reading, answered, each card recorded once', async () => {
      const { customer, cards } = await customerWithCards();
      failOnce('deleteMany', 'cards', 'lost');
      expect((await deleteCustomer(customer)).status).toBe(200);
      await recover();
      for (const card of cards) expect(await typesOf(card)).toEqual(['card.created', 'card.deleted']);
      expect((await typesOf(customer)).filter((type) => type === 'customer.deleted')).toHaveLength(1);
    });
  });

  describe("cascade: a channel's projects", () => {
    async function channelWithProjects(): Promise<{ channel: string; projects: string[] }> {
      const client = (await post('/clients', { name: 'Cascade client', email: 'cascade@example.com' })).body.id;
      const username = `cascade_${Date.now()}`;
      const created = await post('/channels', {
        clientId: client,
        name: username,
        username,
        avatarUrl: 'https://cdn.example.com/a.png',
        role: 'creator',
      });
      expect(created.status).toBe(200);
      const channel = created.body.id;
      const projects: string[] = [];
      for (const title of ['One', 'Two']) {
        const project = await post(`/channels/${channel}/projects`, { primaryTitle: title, projectTypeId: 'album' });
        expect(project.status).toBe(201);
        projects.push(project.body._id ?? project.body.id);
      }
      return { channel, projects };
    }

    it('each project removed records project.deleted once, a lost answer included', async () => {
      const { channel, projects } = await channelWithProjects();
      failOnce('deleteMany', 'projects', 'lost');
      expect((await t.http.delete(`/channels/${channel}`, { token: admin.token })).status).toBe(200);
      await recover();
      for (const project of projects) expect((await typesOf(project)).slice(-1)).toEqual(['project.deleted']);
      for (const project of projects)
        expect((await typesOf(project)).filter((type) => type === 'project.deleted')).toHaveLength(1);
      expect((await typesOf(channel)).slice(-1)).toEqual(['channel.deleted']);
    });
  });

  describe('refund', () => {
    const refund = (id: string) => post(`/api/v1/payments/${id}/refund`, { amount: 3 });
    const refundedOf = async (id: string) =>
      (await t.http.get(`/api/v1/payments/${id}`, { token: admin.token })).body.amountRefunded;

    it('stopped before the payment is written: nothing refunded, no event', async () => {
      const id = await createPayment();
      failOnce('updateAndGet', 'payments', 'stop');
      expectUnavailable(await refund(id));
      await recover();
      expect(await refundedOf(id)).toBe(0);
      expect(await typesOf(id)).toEqual(['payment.created', 'payment.succeeded']);
    });

    it('stopped between the write and its events: the sweep records them once', async () => {
      const id = await createPayment();
      stopBeforeRecording();
      expect((await refund(id)).status).toBe(200);
      await recover();
      expect(await typesOf(id)).toEqual(['payment.created', 'payment.succeeded', 'payment.refunded']);
    });

    it('applied, its answer lost: settled by reading the record, answered, recorded once', async () => {
      const id = await createPayment();
      failOnce('updateAndGet', 'payments', 'lost');
      const res = await refund(id);
      expect(res.status).toBe(200);
      expect(res.body.amountRefunded).toBe(3);
      await recover();
      expect(await refundedOf(id)).toBe(3);
      expect(await typesOf(id)).toEqual(['payment.created', 'payment.succeeded', 'payment.refunded']);
    });
  });

  describe('a write replacing an outbox', () => {
    const update = (id: string) => post(`/v1/customers/${id}`, { firstName: `Changed${Date.now()}` });
    const customers = () => t.db.collection('customers');

    it('asks the events collection nothing after a published change: its outbox is gone', async () => {
      const id = await createCustomer();
      const asked = jest.spyOn(EventsRepository.prototype, 'recordedIds');
      expect((await update(id)).status).toBe(200);
      expect((await update(id)).status).toBe(200);
      expect(asked).not.toHaveBeenCalled();
      // Emptied off the request, within a second.
      expect(
        await pollUntil(async () => !(await customers().findOne({ _id: new Types.ObjectId(id) }))?.outbox, 10_000, 100),
      ).toBe(true);
      expect(await typesOf(id)).toEqual(['customer.created', 'customer.updated', 'customer.updated']);
    });

    it('copies an unpublished event of another instance first, but none past the events retention (it would be sent twice)', async () => {
      for (const [ageDays, copied] of [
        [0, true],
        [40, false],
      ] as const) {
        const id = await createCustomer();
        // As another instance's write would leave it: an event this instance never wrote, not in the events collection.
        const foreign = `evt_${new Types.ObjectId().toHexString()}`;
        const outbox = [
          {
            id: foreign,
            type: 'customer.updated',
            createdAt: new Date(Date.now() - ageDays * 24 * 3600_000),
            before: null,
            request: { id: null, idempotencyKey: null },
          },
        ];
        await customers().updateOne({ _id: new Types.ObjectId(id) }, { $set: { outbox, lastChange: foreign } });
        expect((await update(id)).status).toBe(200);
        expect(await t.db.collection('events').countDocuments({ _id: foreign } as never)).toBe(copied ? 1 : 0);
      }
    });
  });
  describe('the sweep', () => {
    it('goes on past a record it cannot relay, logging its id, and relays that record on a later sweep', async () => {
      // Three customers whose events never reached the events collection (their process stopped).
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        stopBeforeRecording();
        ids.push(await createCustomer());
      }
      for (const id of ids) expect(await typesOf(id)).toEqual([]);
      const [bad, ...good] = ids;
      // Relaying anything of the first customer fails (a poison record), the others' events pass.
      jest.restoreAllMocks();
      const recordMany = EventsRepository.prototype.recordMany;
      jest.spyOn(EventsRepository.prototype, 'recordMany').mockImplementation(async function (
        this: EventsRepository,
        events,
      ) {
        if (events.some((event) => event.body.includes(bad))) throw new Error('this record cannot be relayed');
        return recordMany.call(this, events);
      });
      const warnings: string[] = [];
      jest
        .spyOn(Logger.prototype, 'warn')
        .mockImplementation((message: unknown) => void warnings.push(String(message)));

      await relay.sweep(0);
      for (const id of good) expect(await typesOf(id)).toEqual(['customer.created']);
      expect(await typesOf(bad)).toEqual([]);
      expect(warnings.some((line) => line.includes(`customers ${bad}`) && line.includes('read again next sweep'))).toBe(
        true,
      );

      jest.restoreAllMocks();
      await recover();
      for (const id of ids) expect(await typesOf(id)).toEqual(['customer.created']);
    });
  });
});
