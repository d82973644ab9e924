import { MongoClient, ObjectId } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { createFirstAdmin, createUser, signupBody, TestUser, uniqueEmail } from '../support/auth';
import { HttpClient } from '../support/http';
import { RoundRobinClient, startInstances, type Instances } from '../support/instances';

jest.setTimeout(180_000);

const INSTANCES = 3;
const LOGIN_MAX_FAILURES = 6;

/**
 * Several instances of the built service on one database, behind a round-robin client: every
 * guarantee must hold across processes, not only inside one.
 */
describe(`${INSTANCES} service instances on one database`, () => {
  let running: Instances;
  let instances: HttpClient[];
  let http: RoundRobinClient;
  let owner: TestUser;
  let mongodbUri: string;

  beforeAll(async () => {
    running = await startInstances(INSTANCES, 'multi', {
      LOGIN_MAX_FAILURES: String(LOGIN_MAX_FAILURES),
      LOGIN_MAX_FAILURES_PER_CLIENT: '100000',
    });
    ({ clients: instances, http, mongodbUri } = running);
    owner = await createFirstAdmin(http);
  });

  afterAll(() => running.stop());

  const as = () => ({ token: owner.token });

  async function customerWithCard(): Promise<string> {
    const customer = (await http.post('/v1/customers', { email: uniqueEmail('payer') }, as())).body.data.id;
    const card = await http.post(
      '/v1/cards',
      { customer, cardNumber: '4242424242424242', expMonth: '12', expYear: '2035', cvc: '123' },
      as(),
    );
    expect(card.status).toBe(201);
    return customer;
  }

  it('20 concurrent retries of one Idempotency-Key create exactly one payment', async () => {
    const customer = await customerWithCard();
    const key = `multi-${randomBytes(8).toString('hex')}`;
    const body = { amount: 20, currency: 'usd', customer, confirm: true };
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        http.post('/api/v1/payments', body, { ...as(), headers: { 'idempotency-key': key } }),
      ),
    );
    const created = results.filter((res) => res.status === 201);
    expect(results.every((res) => res.status === 201 || res.status === 409)).toBe(true);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((res) => res.body.id)).size).toBe(1);
    const list = await http.get('/api/v1/payments?limit=100', as());
    expect(list.body.data.filter((payment: { customer: string }) => payment.customer === customer)).toHaveLength(1);
  });

  it('concurrent refunds never exceed the payment', async () => {
    const customer = await customerWithCard();
    const payment = await http.post('/api/v1/payments', { amount: 10, currency: 'usd', customer, confirm: true }, as());
    expect(payment.body.status).toBe('succeeded');
    const results = await Promise.all(
      Array.from({ length: 9 }, () => http.post(`/api/v1/payments/${payment.body.id}/refund`, { amount: 3 }, as())),
    );
    const refunded = results.filter((res) => res.status < 300).length;
    expect(refunded).toBeLessThanOrEqual(3);
    const after = await http.get(`/api/v1/payments/${payment.body.id}`, as());
    expect(after.body.amountRefunded).toBe(refunded * 3);
    expect(after.body.amountRefunded).toBeLessThanOrEqual(10);
  });

  it('a refund whose answer was never stored, retried through another instance after its lease, moves money once', async () => {
    const customer = await customerWithCard();
    const payment = await http.post('/api/v1/payments', { amount: 10, currency: 'usd', customer, confirm: true }, as());
    const key = `multi-refund-${randomBytes(8).toString('hex')}`;
    const refund = (instance: HttpClient) =>
      instance.post(
        `/api/v1/payments/${payment.body.id}/refund`,
        { amount: 4 },
        { ...as(), headers: { 'idempotency-key': key } },
      );
    expect((await refund(instances[0])).status).toBe(200);
    // Its instance stopped before storing the answer: the record is left in progress, past its 5-minute lease.
    const db = new MongoClient(mongodbUri);
    try {
      const cutOff = await db
        .db()
        .collection('idempotency_keys')
        .updateOne(
          { key },
          {
            $set: {
              state: 'in_progress',
              statusCode: null,
              responseBody: null,
              createdAt: new Date(Date.now() - 6 * 60 * 1000),
            },
          },
        );
      expect(cutOff.modifiedCount).toBe(1);
    } finally {
      await db.close();
    }
    const retry = await refund(instances[1]);
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ amountRefunded: 4, status: 'partially_refunded' });
    expect((await instances[2].get(`/api/v1/payments/${payment.body.id}`, as())).body.amountRefunded).toBe(4);
  });

  it('concurrent first cards and default-card changes leave exactly one default', async () => {
    const customer = (await http.post('/v1/customers', { email: uniqueEmail('cards') }, as())).body.data.id;
    const created = await Promise.all(
      Array.from({ length: 6 }, () =>
        http.post(
          '/v1/cards',
          { customer, cardNumber: '4242424242424242', expMonth: '12', expYear: '2035', cvc: '123' },
          as(),
        ),
      ),
    );
    expect(created.every((res) => res.status === 201)).toBe(true);
    expect(created.filter((res) => res.body.data.isDefault)).toHaveLength(1);
    const cards: string[] = created.map((res) => res.body.data.id);

    await Promise.all(
      cards.flatMap((card) => [
        http.post(`/v1/cards/${card}/default`, undefined, as()),
        http.post(`/v1/cards/${card}/default`, undefined, as()),
      ]),
    );
    const listed = await http.get(`/v1/cards?customer=${customer}`, as());
    const defaults = listed.body.data.filter((card: { isDefault: boolean }) => card.isDefault);
    expect(defaults).toHaveLength(1);
    const stored = await http.get(`/v1/customers/${customer}`, as());
    expect(stored.body.data.defaultMethod).toBe(defaults[0].id);
  });

  it('20 concurrent creates of one channel username give one success', async () => {
    const client = (await http.post('/clients', { name: 'Acme', email: 'acme@example.com' }, as())).body.id;
    const username = `multi_${randomBytes(4).toString('hex')}`;
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        http.post(
          '/channels',
          { clientId: client, name: 'Studio', username, avatarUrl: 'https://cdn.example.com/a.png', role: 'creator' },
          as(),
        ),
      ),
    );
    expect(results.filter((res) => res.status === 200)).toHaveLength(1);
    expect(results.filter((res) => res.status === 409)).toHaveLength(19);
  });

  it('failed logins spread across instances reach the 429 limit at the configured count', async () => {
    const body = signupBody({ email: uniqueEmail('throttled') });
    expect((await http.post('/api/v1/singup', body)).status).toBe(201);
    for (let i = 0; i < LOGIN_MAX_FAILURES; i++) {
      expect((await http.post('/api/v1/login', { email: body.email, password: 'wrong password' })).status).toBe(401);
    }
    for (const instance of instances) {
      expect((await instance.post('/api/v1/login', { email: body.email, password: 'wrong password' })).status).toBe(
        429,
      );
    }
  });

  it.each([2, 10])(
    '%i concurrent ownership transfers through every instance leave exactly one owner, the one account.ownerId names',
    async (count) => {
      const first = await createFirstAdmin(http);
      const heirs: TestUser[] = [];
      for (let i = 0; i < count; i++) heirs.push(await createUser(http, 'developer', first.token));
      const answers = await Promise.all(
        heirs.map((heir, i) =>
          instances[i % instances.length].post(
            `/api/v1/accounts/${first.accountId}/ownership`,
            { userId: heir.id },
            { token: first.token },
          ),
        ),
      );
      const won = heirs.filter((_, i) => answers[i].status === 200).map((heir) => heir.id);
      expect(won).toHaveLength(1);
      expect(answers.filter((res) => res.status !== 200).every((res) => res.status === 403 || res.status === 409)).toBe(
        true,
      );

      const db = new MongoClient(mongodbUri);
      try {
        const stored = await db
          .db()
          .collection('accounts')
          .findOne({ _id: new ObjectId(first.accountId) });
        expect(String(stored?.ownerId)).toBe(won[0]);
      } finally {
        await db.close();
      }
      const members = (await http.get(`/api/v1/accounts/${first.accountId}/members`, { token: first.token })).body
        .data as { userId: string; owner: boolean; role: string }[];
      expect(members.filter((member) => member.owner).map((member) => member.userId)).toEqual(won);
      expect(members.find((member) => member.userId === first.id)).toMatchObject({ owner: false, role: 'admin' });
    },
  );

  it('a member removed through one instance is refused by the others at their next request', async () => {
    const member = await createUser(http, 'developer', owner.token);
    for (const instance of instances)
      expect((await instance.get('/clients', { token: member.token })).status).toBe(200);
    const removed = await instances[0].delete(`/api/v1/accounts/${owner.accountId}/members/${member.id}`, as());
    expect(removed.status).toBe(200);
    for (const instance of instances.slice(1)) {
      const res = await instance.get('/clients', { token: member.token });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('You are not a member of this account');
    }
  });

  it('an API key revoked through one instance is refused by the others at their next request', async () => {
    const created = await http.post(`/api/v1/platform/projects/${owner.projectId}/keys`, { name: 'multi' }, as());
    expect(created.status).toBe(201);
    const key = created.body.data.key;
    for (const instance of instances) expect((await instance.get('/v1/customers', { token: key })).status).toBe(200);
    const revoked = await instances[0].delete(
      `/api/v1/platform/projects/${owner.projectId}/keys/${created.body.data.id}`,
      as(),
    );
    expect(revoked.status).toBe(200);
    for (const instance of instances.slice(1)) {
      const res = await instance.get('/v1/customers', { token: key });
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('Invalid API key');
    }
  });
});
