import { JwtService } from '@nestjs/jwt';
import { createHash } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { createFirstAdmin, createUser, TestUser, uniqueEmail } from '../support/auth';
import { expectError } from '../support/expect-error';
import { signIn } from '../support/sessions';
import { createTestApp, TEST_JWT_SECRET, TestApp } from '../support/test-app';

/** Older than `STEP_UP_MINUTES` (10). */
const STALE_MS = 11 * 60_000;

/** `depth` objects nested in one another, the innermost holding 1. */
function nested(depth: number): string {
  let json = '1';
  for (let level = 0; level < depth; level++) json = `{"a":${json}}`;
  return json;
}

/**
 * The paths beside the ones issue 48 named, tried from outside as an attacker would: each refusal a
 * clear 4xx with its code, never a 500.
 */
describe('side doors', () => {
  let t: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    // Webhook endpoints on a local address, which no delivery here reaches.
    t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    admin = await createFirstAdmin(t.http);
  });

  afterAll(async () => {
    await t.close();
  });

  /** A token as the service signs them, with a password, issued `msAgo`. */
  const tokenIssued = (user: TestUser, msAgo: number) =>
    new JwtService({ secret: TEST_JWT_SECRET }).sign(
      { sub: user.id, acc: user.accountId, asr: 'password', ims: Date.now() - msAgo },
      { expiresIn: 3600 },
    );

  describe("a key's scopes hold on the events API too", () => {
    it('a key scoped to events reads no event of an API outside its scopes, listed, filtered or by id', async () => {
      const owner = await createFirstAdmin(t.http);
      const keys = `/api/v1/platform/projects/${owner.projectId}/keys`;
      const keyOf = async (scopes: string[]) =>
        (await t.http.post(keys, { name: scopes.join('+'), scopes }, { token: owner.token })).body.data.key as string;
      const eventsOnly = await keyOf(['events']);
      const withCustomers = await keyOf(['events', 'customers']);
      const created = await t.http.post(
        '/v1/customers',
        { email: uniqueEmail('scoped'), firstName: 'Private' },
        { token: owner.token },
      );
      expect(created.status).toBe(201);
      const all = (await t.http.get('/v1/events?type=customer.created', { token: owner.token })).body.data;
      expect(all).toHaveLength(1);
      const eventId = all[0].id as string;
      // The customers API is refused to this key; its records must not come through the events.
      expectError(await t.http.get('/v1/customers', { token: eventsOnly }), 403);
      expect((await t.http.get('/v1/events', { token: eventsOnly })).body.data).toEqual([]);
      expect((await t.http.get('/v1/events?type=customer.created', { token: eventsOnly })).body.data).toEqual([]);
      expectError(await t.http.get(`/v1/events/${eventId}`, { token: eventsOnly }), 404, 'Event not found');
      // A key whose scopes include the API reads them, as a user does.
      const listed = (await t.http.get('/v1/events', { token: withCustomers })).body.data;
      expect(listed.map((event: { id: string }) => event.id)).toEqual([eventId]);
      expect((await t.http.get(`/v1/events/${eventId}`, { token: withCustomers })).status).toBe(200);
    });
  });

  describe("a key's scopes hold on the webhooks API too", () => {
    it('a key scoped to webhooks points no endpoint at events of an API outside its scopes, new or existing', async () => {
      const owner = await createFirstAdmin(t.http);
      const keys = `/api/v1/platform/projects/${owner.projectId}/keys`;
      const hooksOnly = (
        await t.http.post(keys, { name: 'hooks', scopes: ['webhooks', 'payments'] }, { token: owner.token })
      ).body.data.key as string;
      const url = 'http://127.0.0.1:9/hook';
      for (const enabledEvents of [['customer.created'], ['*'], ['payment.created', 'card.created']]) {
        const res = await t.http.post('/v1/webhook-endpoints', { url, enabledEvents }, { token: hooksOnly });
        expectError(res, 403, /scopes do not include the (customers|cards) API/);
      }
      expect(await t.db.collection('webhook_endpoints').countDocuments({})).toBe(0);
      // Within its scopes, it may.
      const own = await t.http.post(
        '/v1/webhook-endpoints',
        { url, enabledEvents: ['payment.created'] },
        { token: hooksOnly },
      );
      expect(own.status).toBe(201);
      expectError(
        await t.http.patch(
          `/v1/webhook-endpoints/${own.body.data.id}`,
          { enabledEvents: ['customer.updated'] },
          { token: hooksOnly },
        ),
        403,
      );
      // An admin's endpoint for customer events is not the key's to move to another address or switch on again.
      const admins = await t.http.post(
        '/v1/webhook-endpoints',
        { url, enabledEvents: ['customer.created'] },
        { token: owner.token },
      );
      expect(admins.status).toBe(201);
      const path = `/v1/webhook-endpoints/${admins.body.data.id}`;
      expectError(await t.http.patch(path, { url: 'http://127.0.0.1:10/elsewhere' }, { token: hooksOnly }), 403);
      expectError(await t.http.patch(path, { status: 'enabled' }, { token: hooksOnly }), 403);
      expect((await t.http.get(path, { token: owner.token })).body.data.url).toBe(url);
      // The admin's own token is not held to any scope.
      expect((await t.http.patch(path, { enabledEvents: ['*'] }, { token: owner.token })).status).toBe(200);
    });
  });

  describe("a key's scopes hold on the cards API's answer too", () => {
    it('a key scoped to cards makes no card a default: the answer is the customer, a record of the customers API', async () => {
      const owner = await createFirstAdmin(t.http);
      const keys = `/api/v1/platform/projects/${owner.projectId}/keys`;
      const keyOf = async (scopes: string[]) =>
        (await t.http.post(keys, { name: scopes.join('+'), scopes }, { token: owner.token })).body.data.key as string;
      const cardsOnly = await keyOf(['cards']);
      const withCustomers = await keyOf(['cards', 'customers']);
      const email = uniqueEmail('holder');
      const customer = (await t.http.post('/v1/customers', { email, firstName: 'Private' }, { token: owner.token }))
        .body.data.id as string;
      const card = { customer, cardNumber: '4242424242424242', expMonth: '12', expYear: '2030', cvc: '123' };
      await t.http.post('/v1/cards', card, { token: owner.token });
      const second = (await t.http.post('/v1/cards', card, { token: cardsOnly })).body.data.id as string;
      expectError(await t.http.get(`/v1/customers/${customer}`, { token: cardsOnly }), 403);
      const refused = await t.http.post(`/v1/cards/${second}/default`, undefined, { token: cardsOnly });
      expectError(refused, 403, "This API key's scopes do not include the customers API");
      expect(refused.text).not.toContain(email);
      expect(String((await t.db.collection('customers').findOne({ email }))?.defaultMethod)).not.toBe(second);
      const made = await t.http.post(`/v1/cards/${second}/default`, undefined, { token: withCustomers });
      expect(made.status).toBe(200);
      expect(made.body.data.defaultMethod).toBe(second);
    });
  });

  describe('a card that creates its customer reaches the customers API', () => {
    it('sent without customer by a cards-only key or in a project without customers: 403, nothing written', async () => {
      const owner = await createFirstAdmin(t.http);
      const as = { token: owner.token };
      const cardsOnly = (
        await t.http.post(`/api/v1/platform/projects/${owner.projectId}/keys`, { name: 'cards', scopes: ['cards'] }, as)
      ).body.data.key as string;
      const narrow = (
        await t.http.post('/api/v1/platform/projects', { name: 'Cards only', enabledApis: ['cards'] }, as)
      ).body.data.id as string;
      const inNarrow = { ...as, headers: { 'x-project-id': narrow } };
      const card = { cardNumber: '4242424242424242', expMonth: '12', expYear: '2030', cvc: '123' };
      const projects = { projectId: { $in: [new ObjectId(owner.projectId), new ObjectId(narrow)] } };
      const written = async () =>
        (await t.db.collection('customers').countDocuments(projects)) +
        (await t.db.collection('cards').countDocuments(projects));

      for (const body of [card, { ...card, customer: null }]) {
        expectError(
          await t.http.post('/v1/cards', body, { token: cardsOnly }),
          403,
          "This API key's scopes do not include the customers API",
        );
        expectError(
          await t.http.post('/v1/cards', body, inNarrow),
          403,
          'The customers API is not enabled for this project',
        );
      }
      expect(await written()).toBe(0);
      // A body that is no card at all is still told what is wrong with it.
      expectError(await t.http.post('/v1/cards', undefined, { token: cardsOnly }), 400);

      // Naming a customer of the project, the cards API is enough; where customers are on, the user makes one.
      const customer = (await t.http.post('/v1/customers', { email: uniqueEmail('named') }, as)).body.data.id as string;
      expect((await t.http.post('/v1/cards', { ...card, customer }, { token: cardsOnly })).status).toBe(201);
      const made = await t.http.post('/v1/cards', card, as);
      expect(made.status).toBe(201);
      expect(made.body.data.customer).not.toBe(customer);
    });
  });

  describe('step-up is not bypassed by bringing in another admin', () => {
    it('a stale token neither invites anyone nor changes a role: 403 step_up_required, nothing written', async () => {
      const owner = await createFirstAdmin(t.http);
      const developer = await createUser(t.http, 'developer', owner.token);
      const stale = { token: tokenIssued(owner, STALE_MS) };
      const account = `/api/v1/accounts/${owner.accountId}`;
      // The stale credential would invite the attacker's own address as admin (the answer shows the
      // token), or promote an accomplice; either then signs in fresh and makes the key it was refused.
      const keys = await t.http.post(`/api/v1/platform/projects/${owner.projectId}/keys`, { name: 'refused' }, stale);
      expect(keys.body.code).toBe('step_up_required');
      const email = uniqueEmail('stale');
      const invited = await t.http.post(`${account}/invitations`, { email, role: 'admin' }, stale);
      expectError(invited, 403);
      expect(invited.body.code).toBe('step_up_required');
      const promoted = await t.http.patch(`${account}/members/${developer.id}`, { role: 'admin' }, stale);
      expectError(promoted, 403);
      expect(promoted.body.code).toBe('step_up_required');
      expect(await t.db.collection('invitations').countDocuments({ email })).toBe(0);
      const members = (await t.http.get(`${account}/members`, { token: owner.token })).body.data;
      expect(members.find((member: { userId: string }) => member.userId === developer.id).role).toBe('developer');
    });

    it('a stale session is asked the same; a fresh token invites and changes roles', async () => {
      const owner = await createFirstAdmin(t.http);
      const developer = await createUser(t.http, 'developer', owner.token);
      const browser = await signIn(t.http, owner);
      const tokenHash = createHash('sha256').update(browser.cookie.split('=')[1]).digest('hex');
      const stale = new Date(Date.now() - STALE_MS);
      await t.db.collection('sessions').updateOne({ tokenHash }, { $set: { passwordAt: stale, createdAt: stale } });
      const account = `/api/v1/accounts/${owner.accountId}`;
      const invited = await browser.post(`${account}/invitations`, { email: uniqueEmail('stale'), role: 'manager' });
      expect(invited.body.code).toBe('step_up_required');
      const promoted = await browser.patch(`${account}/members/${developer.id}`, { role: 'manager' });
      expect(promoted.body.code).toBe('step_up_required');
      const fresh = { token: tokenIssued(owner, 0) };
      expect(
        (await t.http.post(`${account}/invitations`, { email: uniqueEmail('fresh'), role: 'admin' }, fresh)).status,
      ).toBe(201);
      expect((await t.http.patch(`${account}/members/${developer.id}`, { role: 'manager' }, fresh)).status).toBe(200);
    });
  });

  describe('malformed bodies', () => {
    it('a body nested thousands deep is a 400 body_too_deep on every JSON route, signed in or not', async () => {
      const login = await t.http.post('/api/v1/login', undefined, {
        raw: `{"email":"deep@example.com","password":"correct horse battery","x":${nested(5000)}}`,
      });
      expectError(login, 400, /nests too deeply/);
      expect(login.body.code).toBe('body_too_deep');
      const customer = await t.http.post('/v1/customers', undefined, {
        token: admin.token,
        raw: `{"email":"deep@example.com","address":${nested(5000)}}`,
      });
      expectError(customer, 400, /nests too deeply/);
      expect(customer.body.code).toBe('body_too_deep');
      // Just past the limit as well, not only where the stack gives out.
      const past = await t.http.post('/v1/customers', undefined, {
        token: admin.token,
        raw: `{"email":"deep@example.com","address":${nested(33)}}`,
      });
      expect(past.body.code).toBe('body_too_deep');
      expect(await t.db.collection('customers').countDocuments({ email: 'deep@example.com' })).toBe(0);
    });

    it("a path Fastify cannot decode is a 400 in the service's error shape", async () => {
      const res = await t.http.get('/projects/%ff', { token: admin.token });
      expectError(res, 400, /path is not valid/);
      expect(JSON.stringify(res.body)).not.toContain('FST_');
    });

    it('a body within the limit reaches the validation, which names the field', async () => {
      const res = await t.http.post('/v1/customers', undefined, {
        token: admin.token,
        raw: `{"email":"shallow@example.com","address":${nested(20)}}`,
      });
      expectError(res, 400);
      expect(res.body.code).toBeUndefined();
      expect(res.body.errors[0].field).toBe('address.a');
    });
  });
});
