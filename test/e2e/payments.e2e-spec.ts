import { Types } from 'mongoose';
import { createStaff, TestUser } from '../support/auth';
import { expectError, expectNotFound, expectValidationError } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';

const PAYMENTS = '/api/v1/payments';
const MISSING_ID = '6650c0ffee0000000000dead';

describe('payments', () => {
  let t: TestApp;
  let admin: TestUser;
  let manager: TestUser;
  let developer: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, manager, developer } = await createStaff(t.http));
  });
  afterAll(() => t.close());

  async function createCustomer(): Promise<string> {
    const res = await t.http.post(
      '/v1/customers',
      { email: `c.${new Types.ObjectId().toHexString()}@example.com` },
      { token: admin.token },
    );
    if (res.status !== 201) throw new Error(`customer: ${res.status} ${res.text}`);
    return res.body.data.id;
  }

  async function addCard(customer: string, cardNumber: string): Promise<string> {
    const res = await t.http.post(
      '/v1/cards',
      { customer, cardNumber, expMonth: '12', expYear: '2035', cvc: '123' },
      { token: admin.token },
    );
    if (res.status !== 201) throw new Error(`card: ${res.status} ${res.text}`);
    return res.body.data.id;
  }

  async function customerWithCard(cardNumber = '4242424242424242'): Promise<string> {
    const customer = await createCustomer();
    await addCard(customer, cardNumber);
    return customer;
  }

  function createPayment(body: Record<string, unknown>, token = developer.token) {
    return t.http.post(PAYMENTS, body, { token });
  }

  async function succeededPayment(amount: number, currency = 'usd'): Promise<string> {
    const res = await createPayment({ amount, currency, customer: await customerWithCard(), confirm: true });
    expect(res.body.status).toBe('succeeded');
    return res.body.id;
  }

  const storedPayment = (id: string) => t.db.collection('payments').findOne({ _id: new Types.ObjectId(id) });

  describe('create', () => {
    it('without confirm waits in requires_confirmation and returns the payment unwrapped', async () => {
      const customer = await createCustomer();
      const res = await createPayment({ amount: 19.99, currency: 'USD', customer, description: 'Order #1' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(
        [
          'amount',
          'amountRefunded',
          'createdAt',
          'currency',
          'customer',
          'description',
          'failureCode',
          'id',
          'reciver',
          'status',
          'updatedAt',
        ].sort(),
      );
      expect(res.body).toMatchObject({
        amount: 19.99,
        currency: 'usd',
        customer,
        reciver: null,
        description: 'Order #1',
        status: 'requires_confirmation',
        failureCode: null,
        amountRefunded: 0,
      });
      expect(res.body.id).toMatch(/^[0-9a-f]{24}$/);
      expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);

      const get = await t.http.get(`${PAYMENTS}/${res.body.id}`, { token: developer.token });
      expect(get.status).toBe(200);
      expect(get.body).toEqual(res.body);
    });

    it('stores amounts as integer minor units', async () => {
      const customer = await createCustomer();
      const usd = await createPayment({ amount: 19.99, currency: 'usd', customer });
      const kwd = await createPayment({ amount: 1.005, currency: 'KWD', customer });
      const jpy = await createPayment({ amount: 10, currency: 'jpy', customer });
      expect([usd.status, kwd.status, jpy.status]).toEqual([201, 201, 201]);
      expect(kwd.body).toMatchObject({ amount: 1.005, currency: 'kwd' });
      expect(jpy.body).toMatchObject({ amount: 10, currency: 'jpy' });
      const stored = await Promise.all([usd, kwd, jpy].map((res) => storedPayment(res.body.id)));
      expect(stored.map((doc) => doc?.amountMinor)).toEqual([1999, 1005, 10]);
      for (const doc of stored) {
        expect(Number.isInteger(doc?.amountMinor)).toBe(true);
        expect(doc?.amountRefundedMinor).toBe(0);
        expect(doc?.amount).toBeUndefined();
      }
      expect(String(stored[0]?.customer)).toBe(customer);
    });

    it('with confirm and a charging card succeeds', async () => {
      const customer = await customerWithCard('4242424242424242');
      const res = await createPayment({ amount: 25, currency: 'eur', customer, confirm: true });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'succeeded', failureCode: null, amount: 25 });
    });

    it.each([
      ['4000000000000002', 'card_declined'],
      ['4000000000009995', 'insufficient_funds'],
    ])('with confirm and the declining card %s fails with %s', async (cardNumber, failureCode) => {
      const customer = await customerWithCard(cardNumber);
      const res = await createPayment({ amount: 5, currency: 'usd', customer, confirm: true });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'failed', failureCode });
    });

    it('with confirm and no card requires a payment method; confirming after adding a card succeeds', async () => {
      const customer = await createCustomer();
      const res = await createPayment({ amount: 7.5, currency: 'usd', customer, confirm: true });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'requires_payment_method', failureCode: null });

      const stillNoCard = await t.http.post(`${PAYMENTS}/${res.body.id}/confirm`, undefined, {
        token: developer.token,
      });
      expect(stillNoCard.status).toBe(200);
      expect(stillNoCard.body.status).toBe('requires_payment_method');

      await addCard(customer, '4242424242424242');
      const confirmed = await t.http.post(`${PAYMENTS}/${res.body.id}/confirm`, undefined, { token: developer.token });
      expect(confirmed.status).toBe(200);
      expect(confirmed.body).toMatchObject({ id: res.body.id, status: 'succeeded', amount: 7.5 });
    });

    it('takes a reciver that exists and differs from the customer', async () => {
      const customer = await createCustomer();
      const reciver = await createCustomer();
      const res = await createPayment({ amount: 1, currency: 'usd', customer, reciver });
      expect(res.status).toBe(201);
      expect(res.body.reciver).toBe(reciver);
    });

    it('refuses an unknown customer or reciver, and a reciver equal to the customer, with 400', async () => {
      const customer = await createCustomer();
      expectError(
        await createPayment({ amount: 1, currency: 'usd', customer: MISSING_ID }),
        400,
        'customer does not exist',
      );
      expectError(
        await createPayment({ amount: 1, currency: 'usd', customer, reciver: MISSING_ID }),
        400,
        'reciver does not exist',
      );
      expectError(
        await createPayment({ amount: 1, currency: 'usd', customer, reciver: customer }),
        400,
        /reciver must be a different customer/,
      );
      expect(await t.db.collection('payments').countDocuments({ customer: new Types.ObjectId(customer) })).toBe(0);
    });

    it('enforces the currency decimals', async () => {
      const customer = await createCustomer();
      expectValidationError(
        await createPayment({ amount: 10.005, currency: 'usd', customer }),
        'amount',
        /more than 2 decimals/,
      );
      expectValidationError(
        await createPayment({ amount: 1.5, currency: 'JPY', customer }),
        'amount',
        /whole number in JPY/,
      );
      expectValidationError(
        await createPayment({ amount: 1.0005, currency: 'kwd', customer }),
        'amount',
        /more than 3 decimals/,
      );
      expect((await createPayment({ amount: 10, currency: 'JPY', customer })).status).toBe(201);
      expect((await createPayment({ amount: 1.005, currency: 'kwd', customer })).status).toBe(201);
    });

    it('enforces the amount limits', async () => {
      const customer = await createCustomer();
      expectValidationError(
        await createPayment({ amount: 0, currency: 'usd', customer }),
        'amount',
        'amount must be greater than 0',
      );
      expectValidationError(
        await createPayment({ amount: -5, currency: 'usd', customer }),
        'amount',
        'amount must be greater than 0',
      );
      expectValidationError(
        await createPayment({ amount: 100_000_000, currency: 'usd', customer }),
        'amount',
        /must not exceed 99999999/,
      );
      expectValidationError(
        await createPayment({ amount: 99_999_999.01, currency: 'usd', customer }),
        'amount',
        /must not exceed/,
      );
      expectValidationError(
        await createPayment({ amount: '10', currency: 'usd', customer }),
        'amount',
        'amount must be a number',
      );
      const max = await createPayment({ amount: 99_999_999, currency: 'usd', customer });
      expect(max.status).toBe(201);
      expect(max.body.amount).toBe(99_999_999);
      expect((await storedPayment(max.body.id))?.amountMinor).toBe(9_999_999_900);
      const smallest = await createPayment({ amount: 0.01, currency: 'usd', customer });
      expect(smallest.body.amount).toBe(0.01);
    });

    it('validates the other fields', async () => {
      const customer = await createCustomer();
      expectValidationError(await createPayment({ amount: 1, currency: 'xyz', customer }), 'currency', /ISO 4217/);
      expectValidationError(await createPayment({ amount: 1, currency: 'usd', customer: 'nope' }), 'customer');
      expectValidationError(await createPayment({ amount: 1, currency: 'usd', customer, reciver: '123' }), 'reciver');
      expectValidationError(await createPayment({ amount: 1, currency: 'usd', customer, confirm: 'yes' }), 'confirm');
      expectValidationError(
        await createPayment({ amount: 1, currency: 'usd', customer, description: 'x'.repeat(1001) }),
        'description',
      );
      expectValidationError(
        await createPayment({ amount: 1, currency: 'usd', customer, status: 'succeeded' }),
        'status',
      );
      const missing = await createPayment({});
      expect((missing.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
        'amount',
        'currency',
        'customer',
      ]);
    });
  });

  describe('get', () => {
    it('unknown id is 404, malformed id is 400', async () => {
      expectNotFound(await t.http.get(`${PAYMENTS}/${MISSING_ID}`, { token: developer.token }), 'Payment not found');
      expectError(await t.http.get(`${PAYMENTS}/not-an-id`, { token: developer.token }), 400);
    });

    it('needs a token', async () => {
      expectError(await t.http.get(`${PAYMENTS}/${MISSING_ID}`), 401);
      expectError(await t.http.post(PAYMENTS, {}), 401);
    });
  });

  describe('confirm', () => {
    it('charges a payment waiting for confirmation, once', async () => {
      const customer = await customerWithCard();
      const created = await createPayment({ amount: 3, currency: 'usd', customer });
      const confirmed = await t.http.post(`${PAYMENTS}/${created.body.id}/confirm`, undefined, {
        token: developer.token,
      });
      expect(confirmed.status).toBe(200);
      expect(confirmed.body).toMatchObject({ status: 'succeeded', failureCode: null });
      expect(confirmed.body.updatedAt >= created.body.updatedAt).toBe(true);

      const again = await t.http.post(`${PAYMENTS}/${created.body.id}/confirm`, undefined, { token: developer.token });
      expectError(again, 409, /its status is succeeded/);
    });

    it('fails with the failure code of a declining default card', async () => {
      const customer = await customerWithCard('4000000000009995');
      const created = await createPayment({ amount: 3, currency: 'usd', customer });
      const confirmed = await t.http.post(`${PAYMENTS}/${created.body.id}/confirm`, {}, { token: developer.token });
      expect(confirmed.body).toMatchObject({ status: 'failed', failureCode: 'insufficient_funds' });
      expectError(
        await t.http.post(`${PAYMENTS}/${created.body.id}/confirm`, {}, { token: developer.token }),
        409,
        /failed/,
      );
    });

    it('charges the current default card', async () => {
      const customer = await customerWithCard('4242424242424242');
      const declining = await addCard(customer, '4000000000000002');
      const setDefault = await t.http.post(`/v1/cards/${declining}/default`, undefined, { token: admin.token });
      expect(setDefault.status).toBe(200);
      const created = await createPayment({ amount: 3, currency: 'usd', customer, confirm: true });
      expect(created.body).toMatchObject({ status: 'failed', failureCode: 'card_declined' });
    });

    it('of concurrent confirmations exactly one charges', async () => {
      const customer = await customerWithCard();
      const created = await createPayment({ amount: 3, currency: 'usd', customer });
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          t.http.post(`${PAYMENTS}/${created.body.id}/confirm`, undefined, { token: developer.token }),
        ),
      );
      expect(results.filter((res) => res.status === 200)).toHaveLength(1);
      expect(results.filter((res) => res.status === 409)).toHaveLength(7);
    });

    it('unknown id is 404, malformed id is 400', async () => {
      expectNotFound(
        await t.http.post(`${PAYMENTS}/${MISSING_ID}/confirm`, undefined, { token: developer.token }),
        'Payment not found',
      );
      expectError(await t.http.post(`${PAYMENTS}/xyz/confirm`, undefined, { token: developer.token }), 400);
    });
  });

  describe('refund', () => {
    const refund = (id: string, body: unknown, token = manager.token) =>
      t.http.post(`${PAYMENTS}/${id}/refund`, body, { token });

    it('needs the manager or admin role', async () => {
      const id = await succeededPayment(10);
      expectError(await refund(id, { amount: 1 }, developer.token), 403);
      expect((await refund(id, { amount: 1 }, manager.token)).status).toBe(200);
      expect((await refund(id, { amount: 1 }, admin.token)).status).toBe(200);
      expect((await storedPayment(id))?.amountRefundedMinor).toBe(200);
    });

    it('refunds exactly: 0.1 and 0.2 of 0.3 leave nothing, and the status follows', async () => {
      const id = await succeededPayment(0.3);
      const first = await refund(id, { amount: 0.1 });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ status: 'partially_refunded', amountRefunded: 0.1, amount: 0.3 });
      const second = await refund(id, { amount: 0.2 });
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ status: 'refunded', amountRefunded: 0.3 });
      const stored = await storedPayment(id);
      expect(stored).toMatchObject({ amountMinor: 30, amountRefundedMinor: 30, status: 'refunded' });
      expectError(await refund(id, { amount: 0.01 }), 409, 'Payment is already fully refunded');
    });

    it('without amount refunds the rest', async () => {
      const id = await succeededPayment(12.5);
      expect((await refund(id, { amount: 2.25 })).body.amountRefunded).toBe(2.25);
      const rest = await refund(id, undefined);
      expect(rest.status).toBe(200);
      expect(rest.body).toMatchObject({ status: 'refunded', amountRefunded: 12.5 });
    });

    it('refuses more than is left with 400, and too many decimals with 400', async () => {
      const id = await succeededPayment(1);
      expectError(await refund(id, { amount: 1.01 }), 400, /exceeds the 1.00 usd left to refund/);
      expect((await refund(id, { amount: 0.6 })).status).toBe(200);
      expectError(await refund(id, { amount: 0.5 }), 400, /exceeds the 0.40 usd left/);
      expectError(await refund(id, { amount: 0.001 }), 400, /more than 2 decimals/);
      expectValidationError(await refund(id, { amount: 0 }), 'amount', 'amount must be greater than 0');
      expectValidationError(await refund(id, { amount: -1 }), 'amount');
      expectValidationError(await refund(id, { amount: null }), 'amount');
      expectValidationError(await refund(id, { reason: 'x' }), 'reason');
      expect((await storedPayment(id))?.amountRefundedMinor).toBe(60);
    });

    it('refuses payments that did not succeed with 409', async () => {
      const pending = await createPayment({ amount: 1, currency: 'usd', customer: await createCustomer() });
      expectError(await refund(pending.body.id, {}), 409, /its status is requires_confirmation/);
      const failed = await createPayment({
        amount: 1,
        currency: 'usd',
        customer: await customerWithCard('4000000000000002'),
        confirm: true,
      });
      expectError(await refund(failed.body.id, {}), 409, /its status is failed/);
    });

    it('never refunds more than the payment under concurrent refunds', async () => {
      const id = await succeededPayment(0.5);
      const results = await Promise.all(Array.from({ length: 10 }, () => refund(id, { amount: 0.1 })));
      const ok = results.filter((res) => res.status === 200);
      expect(ok).toHaveLength(5);
      for (const res of results.filter((r) => r.status !== 200)) expect([400, 409]).toContain(res.status);
      const amounts = ok.map((res) => res.body.amountRefunded).sort();
      expect(amounts).toEqual([0.1, 0.2, 0.3, 0.4, 0.5]);
      expect(await storedPayment(id)).toMatchObject({ amountRefundedMinor: 50, status: 'refunded' });
    });

    it('of concurrent full refunds exactly one succeeds', async () => {
      const id = await succeededPayment(9.99);
      const results = await Promise.all(Array.from({ length: 6 }, () => refund(id, {})));
      expect(results.filter((res) => res.status === 200)).toHaveLength(1);
      expect((await storedPayment(id))?.amountRefundedMinor).toBe(999);
    });

    it('unknown id is 404, malformed id is 400', async () => {
      expectNotFound(await refund(MISSING_ID, {}), 'Payment not found');
      expectError(await refund('nope', {}), 400);
    });
  });

  describe('list', () => {
    let customer: string;
    let other: string;
    const ids: string[] = [];

    beforeAll(async () => {
      customer = await customerWithCard();
      other = await createCustomer();
      for (let i = 0; i < 5; i++) {
        const res = await createPayment({ amount: i + 1, currency: 'usd', customer, confirm: i % 2 === 0 });
        ids.push(res.body.id);
      }
      await createPayment({ amount: 1, currency: 'usd', customer: other });
    });

    it('returns { data, hasMore }, newest first, filtered by customer', async () => {
      const res = await t.http.get(`${PAYMENTS}?customer=${customer}`, { token: developer.token });
      expect(res.status).toBe(200);
      expect(res.body.hasMore).toBe(false);
      expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([...ids].reverse());
      expect(res.body.data[0]).toMatchObject({ customer, currency: 'usd', amount: 5 });
    });

    it('filters by status', async () => {
      const res = await t.http.get(`${PAYMENTS}?customer=${customer}&status=succeeded`, { token: developer.token });
      expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([ids[4], ids[2], ids[0]]);
      const pending = await t.http.get(`${PAYMENTS}?status=requires_confirmation&limit=100`, {
        token: developer.token,
      });
      expect(pending.body.data.every((p: { status: string }) => p.status === 'requires_confirmation')).toBe(true);
      expect(pending.body.data.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([ids[3], ids[1]]));
    });

    it('pages with limit and startingAfter', async () => {
      const first = await t.http.get(`${PAYMENTS}?customer=${customer}&limit=2`, { token: developer.token });
      expect(first.body).toMatchObject({ hasMore: true });
      expect(first.body.data.map((p: { id: string }) => p.id)).toEqual([ids[4], ids[3]]);
      const second = await t.http.get(`${PAYMENTS}?customer=${customer}&limit=2&startingAfter=${ids[3]}`, {
        token: developer.token,
      });
      expect(second.body.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
      expect(second.body.hasMore).toBe(true);
      const last = await t.http.get(`${PAYMENTS}?customer=${customer}&limit=2&startingAfter=${ids[1]}`, {
        token: developer.token,
      });
      expect(last.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], hasMore: false });
    });

    it('defaults to 20 and lists every customer without a filter', async () => {
      const res = await t.http.get(PAYMENTS, { token: developer.token });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(20);
      expect(res.body.data.length).toBeGreaterThan(0);
      const all = await t.http.get(`${PAYMENTS}?limit=100`, { token: developer.token });
      expect(new Set(all.body.data.map((p: { customer: string }) => p.customer))).toContain(other);
    });

    it('validates the query', async () => {
      expectValidationError(await t.http.get(`${PAYMENTS}?customer=abc`, { token: developer.token }), 'customer');
      expectValidationError(await t.http.get(`${PAYMENTS}?status=paid`, { token: developer.token }), 'status');
      expectValidationError(await t.http.get(`${PAYMENTS}?limit=101`, { token: developer.token }), 'limit');
      expectValidationError(await t.http.get(`${PAYMENTS}?limit=0`, { token: developer.token }), 'limit');
      expectValidationError(
        await t.http.get(`${PAYMENTS}?startingAfter=zzz`, { token: developer.token }),
        'startingAfter',
      );
    });
  });
});
