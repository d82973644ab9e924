import { setTimeout as sleep } from 'node:timers/promises';
import { Types } from 'mongoose';
import { EventRelay } from '../../src/events/event-relay';
import { createFirstAdmin, TestUser } from '../support/auth';
import { createCard as createCardAs, createCustomer as createCustomerAs } from '../support/finance';
import { pollUntil } from '../support/deadline';
import { delayedAndLostOnce, failEveryDiscard, failOnce } from '../support/faults';
import { createTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

interface ListedEvent {
  id: string;
  type: string;
  data: { object: Record<string, unknown> };
}

/**
 * A hard delete is one event whatever happens: retried after a 503, run twice at once, with a lost
 * answer, a delayed write or a failing discard, through a cascade, and with a webhook endpoint
 * listening. Its event id follows from the record and the change, so every copy is the same event:
 * listed once, stored once, delivered once per endpoint. The sweep runs before each assertion, as
 * it would later on its own, so a copy left pending would show.
 */
describe('a hard delete, one event whatever happens', () => {
  const receiver = new WebhookReceiver();
  let t: TestApp;
  let admin: TestUser;
  let relay: EventRelay;

  beforeAll(async () => {
    await receiver.start();
    t = await createTestApp({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0,1,1',
      WEBHOOK_TIMEOUT_MS: '1000',
    });
    admin = await createFirstAdmin(t.http);
    relay = t.app.get(EventRelay);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });
  afterEach(() => jest.restoreAllMocks());

  const post = (path: string, body: unknown) => t.http.post(path, body, { token: admin.token });
  const deleteCustomer = (id: string) => t.http.delete(`/v1/customers/${id}`, { token: admin.token });

  const createCustomer = () => createCustomerAs(t.http, admin.token, 'once@example.com');
  const createCard = (customer: string) => createCardAs(t.http, admin.token, customer);

  /** The listed events of one record, oldest first. */
  async function listedOf(id: string): Promise<ListedEvent[]> {
    const res = await t.http.get('/v1/events?limit=100', { token: admin.token });
    expect(res.status).toBe(200);
    return (res.body.data as ListedEvent[])
      .filter((event) => (event.data.object.id ?? event.data.object._id) === id)
      .reverse();
  }

  /** Every stored event of one record and type, listed or not. */
  const storedOf = (id: string, type: string) =>
    t.db
      .collection('events')
      .find({ type, body: { $regex: id } })
      .toArray();

  /**
   * After the sweep (twice, the second seeing nothing new): one `type` event for the record, listed
   * and stored, with nothing of it left pending; answers its id.
   */
  async function expectOneDeleteEvent(id: string, type: string, createdType: string): Promise<string> {
    await relay.sweep(0);
    await relay.sweep(0);
    const listed = await listedOf(id);
    expect(listed[0].type).toBe(createdType);
    expect(listed.filter((event) => event.type === type)).toHaveLength(1);
    const deleted = listed.at(-1)!;
    expect(deleted.type).toBe(type);
    const stored = await storedOf(id, type);
    expect(stored.map((event) => String(event._id))).toEqual([deleted.id]);
    // Listed last, its id in time order like any other event's.
    expect(deleted.id).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(listed.every((event) => event === deleted || event.id < deleted.id)).toBe(true);
    return deleted.id;
  }

  it('a delete that answered 503 before it applied, retried at once (before any sweep), lists one event', async () => {
    const id = await createCustomer();
    failOnce('deleteMany', 'customers', 'stop');
    expect((await deleteCustomer(id)).status).toBe(503);
    expect(await t.db.collection('customers').countDocuments({ _id: new Types.ObjectId(id) })).toBe(1);
    jest.restoreAllMocks();
    expect((await deleteCustomer(id)).status).toBe(200);
    expect(await t.db.collection('customers').countDocuments({ _id: new Types.ObjectId(id) })).toBe(0);
    await expectOneDeleteEvent(id, 'customer.deleted', 'customer.created');
  });

  it('a delete that answered 503 before it applied, then a change, then a delete: one event, of the record as the last delete read it', async () => {
    const id = await createCustomer();
    failOnce('deleteMany', 'customers', 'stop');
    expect((await deleteCustomer(id)).status).toBe(503);
    jest.restoreAllMocks();
    // The first delete's event names the version it read; the record is now at another.
    expect((await post(`/v1/customers/${id}`, { firstName: 'Later' })).status).toBe(200);
    expect((await deleteCustomer(id)).status).toBe(200);
    const eventId = await expectOneDeleteEvent(id, 'customer.deleted', 'customer.created');
    const listed = await listedOf(id);
    expect(listed.map((event) => event.type)).toEqual(['customer.created', 'customer.updated', 'customer.deleted']);
    const [stored] = await storedOf(id, 'customer.deleted');
    expect(JSON.parse(stored.body as string)).toMatchObject({
      id: eventId,
      data: { object: { id, firstName: 'Later' } },
    });
  });

  it('two deletes of one customer at once while every discard fails: one event', async () => {
    const id = await createCustomer();
    failEveryDiscard();
    const answers = await Promise.all([deleteCustomer(id), deleteCustomer(id)]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 404]);
    jest.restoreAllMocks();
    expect(await t.db.collection('customers').countDocuments({ _id: new Types.ObjectId(id) })).toBe(0);
    await expectOneDeleteEvent(id, 'customer.deleted', 'customer.created');
  });

  it("two deletes of one customer at once, the first one's write 300 ms late and its answer lost: both 200, one event", async () => {
    const id = await createCustomer();
    const started = delayedAndLostOnce('deleteMany', 'customers');
    const first = deleteCustomer(id);
    await started;
    const second = await deleteCustomer(id);
    expect(second.status).toBe(200);
    expect((await first).status).toBe(200);
    expect(await t.db.collection('customers').countDocuments({ _id: new Types.ObjectId(id) })).toBe(0);
    await expectOneDeleteEvent(id, 'customer.deleted', 'customer.created');
  });

  it('the same, with a webhook endpoint: the receiver gets that one event once', async () => {
    const endpoint = await post('/v1/webhook-endpoints', {
      url: `${receiver.base}/once`,
      enabledEvents: ['customer.deleted'],
    });
    expect(endpoint.status).toBe(201);
    try {
      const id = await createCustomer();
      const started = delayedAndLostOnce('deleteMany', 'customers');
      const first = deleteCustomer(id);
      await started;
      expect((await deleteCustomer(id)).status).toBe(200);
      expect((await first).status).toBe(200);
      const eventId = await expectOneDeleteEvent(id, 'customer.deleted', 'customer.created');
      const deliveredHere = () => receiver.at('/once').filter((request) => request.body.includes(id));
      expect(await pollUntil(() => Promise.resolve(deliveredHere().length > 0), 10_000)).toBe(true);
      // Long enough for a second delivery, sent at once as the first was, to arrive.
      await sleep(1500);
      expect(deliveredHere().map((request) => request.headers['webhook-id'])).toEqual([eventId]);
      const deliveries = await t.db
        .collection('webhook_deliveries')
        .find({ endpointId: new Types.ObjectId(endpoint.body.data.id) })
        .toArray();
      expect(deliveries.map((delivery) => delivery.eventId)).toEqual([eventId]);
    } finally {
      await t.http.delete(`/v1/webhook-endpoints/${endpoint.body.data.id}`, { token: admin.token });
    }
  });

  it("a customer's cards, their delete answering 503 before it applied and retried at once: each card's event once", async () => {
    const customer = await createCustomer();
    const cards = [await createCard(customer), await createCard(customer)];
    failOnce('deleteMany', 'cards', 'stop');
    expect((await deleteCustomer(customer)).status).toBe(503);
    expect(await t.db.collection('cards').countDocuments({ customer: new Types.ObjectId(customer) })).toBe(2);
    jest.restoreAllMocks();
    expect((await deleteCustomer(customer)).status).toBe(200);
    expect(await t.db.collection('cards').countDocuments({ customer: new Types.ObjectId(customer) })).toBe(0);
    for (const card of cards) await expectOneDeleteEvent(card, 'card.deleted', 'card.created');
    await expectOneDeleteEvent(customer, 'customer.deleted', 'customer.created');
  });

  it("a channel's projects, their delete answering 503 before it applied and retried at once: each project's event once", async () => {
    const client = (await post('/clients', { name: 'Once client', email: 'once-client@example.com' })).body.id;
    const username = `once_${Date.now()}`;
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
    failOnce('deleteMany', 'projects', 'stop');
    expect((await t.http.delete(`/channels/${channel}`, { token: admin.token })).status).toBe(503);
    jest.restoreAllMocks();
    // The channel went first; the retry finds it gone (404) and finishes its cascade all the same.
    expect((await t.http.delete(`/channels/${channel}`, { token: admin.token })).status).toBe(404);
    expect(
      await t.db
        .collection('projects')
        .countDocuments({ _id: { $in: projects.map((project) => new Types.ObjectId(project)) } }),
    ).toBe(0);
    await relay.sweep(0);
    await relay.sweep(0);
    for (const project of projects) {
      expect((await listedOf(project)).filter((event) => event.type === 'project.deleted')).toHaveLength(1);
      expect(await storedOf(project, 'project.deleted')).toHaveLength(1);
    }
  });
});
