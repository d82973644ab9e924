import { Types } from 'mongoose';
import { createFirstAdmin, TestUser } from '../support/auth';
import { expectError } from '../support/expect-error';
import type { HttpResponse } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

const PAYMENTS = '/api/v1/payments';
const UNKNOWN_ID = '6650c0ffee0000000000ffff';
const FUTURE_YEAR = String(new Date().getUTCFullYear() + 3);
const REPLAYED = 'idempotent-replayed';

/** Where a request acts: a user's token, and optionally another platform project of their account. */
interface Tenant {
  user: TestUser;
  projectId: string;
  headers: Record<string, string>;
}

/** One tenant's finance records. */
interface Records {
  customer: string;
  card: string;
  cardNumber: string;
  pending: string;
  succeeded: string;
}

/** A foreign id must answer exactly as an id that does not exist: same status, same body. */
function expectSameAsUnknown(foreign: HttpResponse, unknown: HttpResponse, status: number, message: string): void {
  expectError(unknown, status, message);
  expect({ status: foreign.status, body: foreign.body }).toEqual({ status: unknown.status, body: unknown.body });
}

describe('finance isolation between tenants (customers, cards, payments, Idempotency-Key)', () => {
  let t: TestApp;
  let ownerA: TestUser;
  let ownerB: TestUser;
  let a: Tenant;
  let b: Tenant;
  let recordsA: Records;
  let recordsB: Records;
  let keyCounter = 0;

  const newKey = () => `tenancy-key-${Date.now()}-${++keyCounter}`;
  const opts = (tenant: Tenant, headers: Record<string, string> = {}) => ({
    token: tenant.user.token,
    headers: { ...tenant.headers, ...headers },
  });
  const get = (tenant: Tenant, path: string) => t.http.get(path, opts(tenant));
  const post = (tenant: Tenant, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    t.http.post(path, body, opts(tenant, headers));
  const del = (tenant: Tenant, path: string) => t.http.delete(path, opts(tenant));
  /** The record as stored, without its outbox: the relay empties that on its own, a second after a change. */
  const stored = (collection: string, id: string) =>
    t.db.collection(collection).findOne({ _id: new Types.ObjectId(id) }, { projection: { outbox: 0 } });
  const counts = async () => ({
    customers: await t.db.collection('customers').countDocuments(),
    cards: await t.db.collection('cards').countDocuments(),
    payments: await t.db.collection('payments').countDocuments(),
  });

  async function created(res: HttpResponse, what: string): Promise<HttpResponse> {
    if (res.status !== 201) throw new Error(`${what}: ${res.status} ${res.text}`);
    return res;
  }

  async function seed(tenant: Tenant, cardNumber: string): Promise<Records> {
    const customer = (
      await created(await post(tenant, '/v1/customers', { email: `owner.${newKey()}@example.com` }), 'customer')
    ).body.data.id;
    const card = (
      await created(
        await post(tenant, '/v1/cards', { customer, cardNumber, expMonth: '12', expYear: FUTURE_YEAR, cvc: '123' }),
        'card',
      )
    ).body.data.id;
    const pending = (await created(await post(tenant, PAYMENTS, { amount: 5, currency: 'usd', customer }), 'payment'))
      .body.id;
    const succeeded = (
      await created(await post(tenant, PAYMENTS, { amount: 10, currency: 'usd', customer, confirm: true }), 'payment')
    ).body;
    expect(succeeded.status).toBe('succeeded');
    return { customer, card, cardNumber, pending, succeeded: succeeded.id };
  }

  beforeAll(async () => {
    t = await createTestApp();
    // Two fresh signups: each owns an account of its own and its default project.
    ownerA = await createFirstAdmin(t.http);
    ownerB = await createFirstAdmin(t.http);
    expect(ownerA.accountId).not.toBe(ownerB.accountId);
    a = { user: ownerA, projectId: ownerA.projectId, headers: {} };
    b = { user: ownerB, projectId: ownerB.projectId, headers: {} };
    recordsA = await seed(a, '4242424242424242');
    recordsB = await seed(b, '4242424242424242');
  });
  afterAll(() => t.close());

  describe('another account', () => {
    it('stores each record in its own project and never shows the project', async () => {
      for (const [tenant, records] of [
        [a, recordsA],
        [b, recordsB],
      ] as const) {
        expect(String((await stored('customers', records.customer))?.projectId)).toBe(tenant.projectId);
        expect(String((await stored('cards', records.card))?.projectId)).toBe(tenant.projectId);
        expect(String((await stored('payments', records.pending))?.projectId)).toBe(tenant.projectId);
      }
      const responses = [
        await get(a, `/v1/customers/${recordsA.customer}`),
        await get(a, '/v1/customers'),
        await get(a, `/v1/cards/${recordsA.card}`),
        await get(a, `/v1/cards?customer=${recordsA.customer}`),
        await get(a, `${PAYMENTS}/${recordsA.pending}`),
        await get(a, PAYMENTS),
      ];
      for (const res of responses) {
        expect(res.status).toBe(200);
        expect(res.text).not.toContain('projectId');
        expect(res.text).not.toContain(a.projectId);
      }
    });

    it('a customer of another account is the same 404 as an unknown one on get, update, delete and the card list; nothing changes', async () => {
      const before = await stored('customers', recordsA.customer);
      const routes: [string, (id: string) => Promise<HttpResponse>][] = [
        ['get', (id) => get(b, `/v1/customers/${id}`)],
        ['update', (id) => post(b, `/v1/customers/${id}`, { firstName: 'Mallory', email: 'mallory@example.com' })],
        ['update defaultMethod', (id) => post(b, `/v1/customers/${id}`, { defaultMethod: recordsB.card })],
        ['delete', (id) => del(b, `/v1/customers/${id}`)],
        ['list cards', (id) => get(b, `/v1/cards?customer=${id}`)],
      ];
      for (const [, call] of routes) {
        expectSameAsUnknown(await call(recordsA.customer), await call(UNKNOWN_ID), 404, 'Customer not found');
      }
      expect(await stored('customers', recordsA.customer)).toEqual(before);
      expect(await stored('cards', recordsA.card)).not.toBeNull();
    });

    it('a card of another account is the same 404 as an unknown one on get, update, set default and delete; nothing changes', async () => {
      const before = await stored('cards', recordsA.card);
      const customerBefore = await stored('customers', recordsB.customer);
      const routes: ((id: string) => Promise<HttpResponse>)[] = [
        (id) => get(b, `/v1/cards/${id}`),
        (id) => post(b, `/v1/cards/${id}`, { expMonth: '1', expYear: String(Number(FUTURE_YEAR) + 1) }),
        (id) => post(b, `/v1/cards/${id}/default`),
        (id) => del(b, `/v1/cards/${id}`),
      ];
      for (const call of routes)
        expectSameAsUnknown(await call(recordsA.card), await call(UNKNOWN_ID), 404, 'Card not found');
      expect(await stored('cards', recordsA.card)).toEqual(before);
      expect(await stored('customers', recordsB.customer)).toEqual(customerBefore);
      expect((await get(a, `/v1/customers/${recordsA.customer}`)).body.data.defaultMethod).toBe(recordsA.card);
    });

    it('a payment of another account is the same 404 as an unknown one on get, confirm and refund; nothing changes', async () => {
      const pending = await stored('payments', recordsA.pending);
      const succeeded = await stored('payments', recordsA.succeeded);
      const routes: ((id: string) => Promise<HttpResponse>)[] = [
        (id) => get(b, `${PAYMENTS}/${id}`),
        (id) => post(b, `${PAYMENTS}/${id}/confirm`),
        (id) => post(b, `${PAYMENTS}/${id}/refund`, { amount: 1 }),
        (id) => post(b, `${PAYMENTS}/${id}/refund`, {}),
      ];
      for (const id of [recordsA.pending, recordsA.succeeded]) {
        for (const call of routes)
          expectSameAsUnknown(await call(id), await call(UNKNOWN_ID), 404, 'Payment not found');
      }
      expect(await stored('payments', recordsA.pending)).toEqual(pending);
      expect(await stored('payments', recordsA.succeeded)).toEqual(succeeded);
    });

    it("lists never show another account's records", async () => {
      const customersA = (await get(a, '/v1/customers?limit=100')).body.data.map((c: { id: string }) => c.id);
      const customersB = (await get(b, '/v1/customers?limit=100')).body.data.map((c: { id: string }) => c.id);
      expect(customersA).toContain(recordsA.customer);
      expect(customersA).not.toContain(recordsB.customer);
      expect(customersB).toContain(recordsB.customer);
      expect(customersB).not.toContain(recordsA.customer);
      // Paging past another tenant's id does not reveal anything either.
      expect(
        (await get(b, `/v1/customers?startingAfter=${recordsA.customer}&limit=100`)).body.data.map(
          (c: { id: string }) => c.id,
        ),
      ).not.toContain(recordsA.customer);

      const cardsB = (await get(b, `/v1/cards?customer=${recordsB.customer}`)).body.data.map(
        (c: { id: string }) => c.id,
      );
      expect(cardsB).toEqual([recordsB.card]);

      const paymentsA = (await get(a, `${PAYMENTS}?limit=100`)).body.data.map((p: { id: string }) => p.id);
      const paymentsB = (await get(b, `${PAYMENTS}?limit=100`)).body.data.map((p: { id: string }) => p.id);
      expect(paymentsA).toEqual(expect.arrayContaining([recordsA.pending, recordsA.succeeded]));
      expect(paymentsA).not.toContain(recordsB.pending);
      expect(paymentsB).not.toContain(recordsA.pending);
      expect(paymentsB).not.toContain(recordsA.succeeded);
      // Filtering by another tenant's customer finds nothing, as for an unknown customer.
      expect((await get(b, `${PAYMENTS}?customer=${recordsA.customer}`)).body).toEqual({ data: [], hasMore: false });
      expect((await get(b, `${PAYMENTS}?customer=${recordsA.customer}&status=succeeded`)).body).toEqual({
        data: [],
        hasMore: false,
      });
    });

    it("another account's customer or reciver on a payment, or customer on a card, is the same 400 as an unknown one and writes nothing", async () => {
      const before = await counts();
      const payment = (fields: Record<string, unknown>) => post(b, PAYMENTS, { amount: 1, currency: 'usd', ...fields });
      expectSameAsUnknown(
        await payment({ customer: recordsA.customer }),
        await payment({ customer: UNKNOWN_ID }),
        400,
        'customer does not exist',
      );
      expectSameAsUnknown(
        await payment({ customer: recordsA.customer, confirm: true }),
        await payment({ customer: UNKNOWN_ID, confirm: true }),
        400,
        'customer does not exist',
      );
      expectSameAsUnknown(
        await payment({ customer: recordsB.customer, reciver: recordsA.customer }),
        await payment({ customer: recordsB.customer, reciver: UNKNOWN_ID }),
        400,
        'reciver does not exist',
      );
      const card = (customer: string) =>
        post(b, '/v1/cards', {
          customer,
          cardNumber: '5555555555554444',
          expMonth: '12',
          expYear: FUTURE_YEAR,
          cvc: '123',
        });
      expectSameAsUnknown(
        await card(recordsA.customer),
        await card(UNKNOWN_ID),
        400,
        'customer does not match an existing customer',
      );
      expect(await counts()).toEqual(before);
    });

    it("another account's card as a customer's defaultMethod is the same 400 as an unknown id, and the default stays", async () => {
      const update = (defaultMethod: string) => post(b, `/v1/customers/${recordsB.customer}`, { defaultMethod });
      expectSameAsUnknown(
        await update(recordsA.card),
        await update(UNKNOWN_ID),
        400,
        "defaultMethod must be the id of one of this customer's cards",
      );
      expect((await get(b, `/v1/customers/${recordsB.customer}`)).body.data.defaultMethod).toBe(recordsB.card);
      expect((await stored('customers', recordsB.customer))?.defaultMethod).toBe(recordsB.card);
    });

    it('the same card number gives different fingerprints in two accounts, the same within one', async () => {
      const fingerprintA = (await get(a, `/v1/cards/${recordsA.card}`)).body.data.fingerprint;
      const fingerprintB = (await get(b, `/v1/cards/${recordsB.card}`)).body.data.fingerprint;
      expect(fingerprintA).toMatch(/^[0-9a-f]{64}$/);
      expect(fingerprintB).not.toBe(fingerprintA);
      const again = await created(
        await post(a, '/v1/cards', {
          customer: recordsA.customer,
          cardNumber: '4242 4242 4242 4242',
          expMonth: '1',
          expYear: FUTURE_YEAR,
          cvc: '999',
        }),
        'card',
      );
      expect(again.body.data.fingerprint).toBe(fingerprintA);
    });

    it('the same Idempotency-Key in two accounts creates two payments', async () => {
      const key = newKey();
      const inA = await post(
        a,
        PAYMENTS,
        { amount: 7, currency: 'usd', customer: recordsA.customer },
        { 'Idempotency-Key': key },
      );
      const inB = await post(
        b,
        PAYMENTS,
        { amount: 7, currency: 'usd', customer: recordsB.customer },
        { 'Idempotency-Key': key },
      );
      expect([inA.status, inB.status]).toEqual([201, 201]);
      expect(inB.headers.get(REPLAYED)).toBeNull();
      expect(inB.body.id).not.toBe(inA.body.id);
      expect(inB.body.customer).toBe(recordsB.customer);
      expect(String((await stored('payments', inB.body.id))?.projectId)).toBe(b.projectId);

      // Each tenant's retry replays its own payment.
      const retryA = await post(
        a,
        PAYMENTS,
        { amount: 7, currency: 'usd', customer: recordsA.customer },
        { 'Idempotency-Key': key },
      );
      expect(retryA.headers.get(REPLAYED)).toBe('true');
      expect(retryA.body.id).toBe(inA.body.id);
      const records = await t.db.collection('idempotency_keys').find({ key }).toArray();
      expect(records.map((record) => String(record.projectId)).sort()).toEqual([a.projectId, b.projectId].sort());
    });

    it("an admin of another account cannot delete a customer's cards through the cascade", async () => {
      const customer = (await created(await post(a, '/v1/customers', { email: 'kept@example.com' }), 'customer')).body
        .data.id;
      const card = (
        await created(
          await post(a, '/v1/cards', {
            customer,
            cardNumber: '6011111111111117',
            expMonth: '12',
            expYear: FUTURE_YEAR,
            cvc: '123',
          }),
          'card',
        )
      ).body.data.id;
      expectError(await del(b, `/v1/customers/${customer}`), 404, 'Customer not found');
      expect(await stored('cards', card)).not.toBeNull();
      expect((await get(a, `/v1/cards?customer=${customer}`)).body.data.map((c: { id: string }) => c.id)).toEqual([
        card,
      ]);
    });
  });

  describe('two projects of one account', () => {
    let one: Tenant;
    let two: Tenant;
    let recordsOne: Records;
    let recordsTwo: Records;

    beforeAll(async () => {
      const project = await t.http.post(
        '/api/v1/platform/projects',
        { name: 'Second project' },
        { token: ownerA.token },
      );
      if (project.status !== 201) throw new Error(`platform project: ${project.status} ${project.text}`);
      one = a;
      two = { user: ownerA, projectId: project.body.data.id, headers: { 'X-Project-Id': project.body.data.id } };
      recordsOne = recordsA;
      recordsTwo = await seed(two, '4242424242424242');
    });

    it('records are created in the project the request names', async () => {
      expect(two.projectId).not.toBe(one.projectId);
      expect(String((await stored('customers', recordsTwo.customer))?.projectId)).toBe(two.projectId);
      expect(String((await stored('payments', recordsTwo.pending))?.projectId)).toBe(two.projectId);
    });

    it("the other project's customer, card and payment are the same 404 as unknown ones", async () => {
      expectSameAsUnknown(
        await get(two, `/v1/customers/${recordsOne.customer}`),
        await get(two, `/v1/customers/${UNKNOWN_ID}`),
        404,
        'Customer not found',
      );
      expectSameAsUnknown(
        await get(one, `/v1/customers/${recordsTwo.customer}`),
        await get(one, `/v1/customers/${UNKNOWN_ID}`),
        404,
        'Customer not found',
      );
      expectSameAsUnknown(
        await get(two, `/v1/cards?customer=${recordsOne.customer}`),
        await get(two, `/v1/cards?customer=${UNKNOWN_ID}`),
        404,
        'Customer not found',
      );
      expectSameAsUnknown(
        await get(two, `/v1/cards/${recordsOne.card}`),
        await get(two, `/v1/cards/${UNKNOWN_ID}`),
        404,
        'Card not found',
      );
      expectSameAsUnknown(
        await post(two, `/v1/cards/${recordsOne.card}/default`),
        await post(two, `/v1/cards/${UNKNOWN_ID}/default`),
        404,
        'Card not found',
      );
      expectSameAsUnknown(
        await del(two, `/v1/cards/${recordsOne.card}`),
        await del(two, `/v1/cards/${UNKNOWN_ID}`),
        404,
        'Card not found',
      );
      expectSameAsUnknown(
        await get(two, `${PAYMENTS}/${recordsOne.pending}`),
        await get(two, `${PAYMENTS}/${UNKNOWN_ID}`),
        404,
        'Payment not found',
      );
      expectSameAsUnknown(
        await post(two, `${PAYMENTS}/${recordsOne.pending}/confirm`),
        await post(two, `${PAYMENTS}/${UNKNOWN_ID}/confirm`),
        404,
        'Payment not found',
      );
      expectSameAsUnknown(
        await post(two, `${PAYMENTS}/${recordsOne.succeeded}/refund`, {}),
        await post(two, `${PAYMENTS}/${UNKNOWN_ID}/refund`, {}),
        404,
        'Payment not found',
      );
      expect((await stored('payments', recordsOne.pending))?.status).toBe('requires_confirmation');
      expect((await stored('payments', recordsOne.succeeded))?.amountRefundedMinor).toBe(0);
      expect(await stored('cards', recordsOne.card)).not.toBeNull();
    });

    it('lists and cross-references stay inside the project', async () => {
      const customersTwo = (await get(two, '/v1/customers?limit=100')).body.data.map((c: { id: string }) => c.id);
      expect(customersTwo).toEqual([recordsTwo.customer]);
      const paymentsTwo = (await get(two, `${PAYMENTS}?limit=100`)).body.data.map((p: { id: string }) => p.id);
      expect(paymentsTwo.sort()).toEqual([recordsTwo.pending, recordsTwo.succeeded].sort());

      const before = await counts();
      expectSameAsUnknown(
        await post(two, PAYMENTS, { amount: 1, currency: 'usd', customer: recordsOne.customer }),
        await post(two, PAYMENTS, { amount: 1, currency: 'usd', customer: UNKNOWN_ID }),
        400,
        'customer does not exist',
      );
      expectSameAsUnknown(
        await post(two, PAYMENTS, {
          amount: 1,
          currency: 'usd',
          customer: recordsTwo.customer,
          reciver: recordsOne.customer,
        }),
        await post(two, PAYMENTS, { amount: 1, currency: 'usd', customer: recordsTwo.customer, reciver: UNKNOWN_ID }),
        400,
        'reciver does not exist',
      );
      expect(await counts()).toEqual(before);
    });

    it('the same card number has the same fingerprint in both projects of the account', async () => {
      const fingerprintOne = (await get(one, `/v1/cards/${recordsOne.card}`)).body.data.fingerprint;
      const fingerprintTwo = (await get(two, `/v1/cards/${recordsTwo.card}`)).body.data.fingerprint;
      expect(fingerprintTwo).toBe(fingerprintOne);
    });

    it('the same Idempotency-Key in two projects creates two payments', async () => {
      const key = newKey();
      const inOne = await post(
        one,
        PAYMENTS,
        { amount: 3, currency: 'usd', customer: recordsOne.customer },
        { 'Idempotency-Key': key },
      );
      const inTwo = await post(
        two,
        PAYMENTS,
        { amount: 3, currency: 'usd', customer: recordsTwo.customer },
        { 'Idempotency-Key': key },
      );
      expect([inOne.status, inTwo.status]).toEqual([201, 201]);
      expect(inTwo.headers.get(REPLAYED)).toBeNull();
      expect(inTwo.body.id).not.toBe(inOne.body.id);
      expect(String((await stored('payments', inTwo.body.id))?.projectId)).toBe(two.projectId);
    });
  });

  describe('an API key of a project', () => {
    let keyed: Tenant;

    beforeAll(async () => {
      const res = await t.http.post(
        `/api/v1/platform/projects/${ownerB.projectId}/keys`,
        { name: 'Checkout server' },
        { token: ownerB.token },
      );
      if (res.status !== 201) throw new Error(`API key: ${res.status} ${res.text}`);
      // The key acts in its own project, with the key as the bearer token.
      keyed = { user: { ...ownerB, token: res.body.data.key }, projectId: ownerB.projectId, headers: {} };
    });

    it("acts in its project only: another account's records are unknown ids to it", async () => {
      expect((await get(keyed, `/v1/customers/${recordsB.customer}`)).status).toBe(200);
      expectSameAsUnknown(
        await get(keyed, `/v1/customers/${recordsA.customer}`),
        await get(keyed, `/v1/customers/${UNKNOWN_ID}`),
        404,
        'Customer not found',
      );
      expectSameAsUnknown(
        await get(keyed, `${PAYMENTS}/${recordsA.pending}`),
        await get(keyed, `${PAYMENTS}/${UNKNOWN_ID}`),
        404,
        'Payment not found',
      );
    });

    it('is another caller than the user: the same Idempotency-Key from each creates two payments', async () => {
      const key = newKey();
      const body = { amount: 2, currency: 'usd', customer: recordsB.customer };
      const byUser = await post(b, PAYMENTS, body, { 'Idempotency-Key': key });
      const byKey = await post(keyed, PAYMENTS, body, { 'Idempotency-Key': key });
      expect([byUser.status, byKey.status]).toEqual([201, 201]);
      expect(byKey.headers.get(REPLAYED)).toBeNull();
      expect(byKey.body.id).not.toBe(byUser.body.id);
      const retry = await post(keyed, PAYMENTS, body, { 'Idempotency-Key': key });
      expect(retry.headers.get(REPLAYED)).toBe('true');
      expect(retry.body.id).toBe(byKey.body.id);
      const callers = (await t.db.collection('idempotency_keys').find({ key }).toArray()).map(
        (record) => String(record.scope).split(' ')[0],
      );
      expect(callers.sort()).toEqual([expect.stringMatching(/^key:[0-9a-f]{24}$/), `user:${ownerB.id}`]);
    });
  });
});
