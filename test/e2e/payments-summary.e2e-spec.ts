import { Types } from 'mongoose';
import { createFirstAdmin, createUser, TestUser } from '../support/auth';
import { expectError, expectValidationError } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';

const PAYMENTS = '/api/v1/payments';
const SUMMARY = `${PAYMENTS}/summary`;

describe('payments summary', () => {
  let t: TestApp;
  let owner: TestUser;
  let developer: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await createFirstAdmin(t.http);
    developer = await createUser(t.http, 'developer', owner.token);
    stranger = await createFirstAdmin(t.http);
  });
  afterAll(() => t.close());

  /** A customer with a default card, in the caller's project (or the one `X-Project-Id` names). */
  async function customerWithCard(
    user: TestUser,
    cardNumber = '4242424242424242',
    headers: Record<string, string> = {},
  ): Promise<string> {
    const customer = await t.http.post(
      '/v1/customers',
      { email: `c.${new Types.ObjectId().toHexString()}@example.com` },
      { token: user.token, headers },
    );
    if (customer.status !== 201) throw new Error(`customer: ${customer.status} ${customer.text}`);
    const card = await t.http.post(
      '/v1/cards',
      { customer: customer.body.data.id, cardNumber, expMonth: '12', expYear: '2035', cvc: '123' },
      { token: user.token, headers },
    );
    if (card.status !== 201) throw new Error(`card: ${card.status} ${card.text}`);
    return customer.body.data.id;
  }

  interface PaymentOptions {
    user?: TestUser;
    currency?: string;
    confirm?: boolean;
    card?: string;
    headers?: Record<string, string>;
  }

  /** Creates a payment through the API, then dates it `createdAt` in the database. Returns its id and status. */
  async function payment(amount: number, createdAt: string, options: PaymentOptions = {}) {
    const user = options.user ?? owner;
    const customer = await customerWithCard(user, options.card, options.headers);
    const res = await t.http.post(
      PAYMENTS,
      { amount, currency: options.currency ?? 'usd', customer, confirm: options.confirm ?? true },
      { token: user.token, headers: options.headers },
    );
    if (res.status !== 201) throw new Error(`payment: ${res.status} ${res.text}`);
    await t.db
      .collection('payments')
      .updateOne({ _id: new Types.ObjectId(res.body.id as string) }, { $set: { createdAt: new Date(createdAt) } });
    return { id: res.body.id as string, status: res.body.status as string };
  }

  function summary(query: string, user: TestUser = owner, headers: Record<string, string> = {}) {
    return t.http.get(`${SUMMARY}?${query}`, { token: user.token, headers });
  }

  function refund(id: string, amount?: number) {
    return t.http.post(`${PAYMENTS}/${id}/refund`, amount === undefined ? {} : { amount }, { token: owner.token });
  }

  const day = (body: any, date: string) => body.days.find((entry: { date: string }) => entry.date === date);

  describe('sums per day', () => {
    let half: string;
    let full: string;

    beforeAll(async () => {
      await payment(19.99, '2026-11-01T00:00:00.000Z');
      await payment(0.01, '2026-11-01T23:59:59.999Z');
      half = (await payment(50, '2026-11-03T12:00:00.000Z')).id;
      full = (await payment(10, '2026-11-03T18:00:00.000Z')).id;
      // Outside the period, on either side.
      await payment(1000, '2026-10-31T23:59:59.999Z');
      await payment(1000, '2026-11-04T00:00:00.000Z');
    });

    it('answers every day of the period with gross, refunded, net and count in major units, and the totals', async () => {
      const res = await summary('currency=usd&from=2026-11-01&to=2026-11-03');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        currency: 'usd',
        from: '2026-11-01',
        to: '2026-11-03',
        days: [
          { date: '2026-11-01', gross: 20, refunded: 0, net: 20, count: 2 },
          { date: '2026-11-02', gross: 0, refunded: 0, net: 0, count: 0 },
          { date: '2026-11-03', gross: 60, refunded: 0, net: 60, count: 2 },
        ],
        totals: { gross: 80, refunded: 0, net: 80, count: 2 + 2 },
      });
    });

    it('reflects refunds, partial and full, on the day of the payment', async () => {
      expect((await refund(half, 25)).body.status).toBe('partially_refunded');
      expect((await refund(full)).body.status).toBe('refunded');
      const res = await summary('currency=USD&from=2026-11-01&to=2026-11-03');
      expect(res.status).toBe(200);
      expect(day(res.body, '2026-11-03')).toEqual({ date: '2026-11-03', gross: 60, refunded: 35, net: 25, count: 2 });
      expect(res.body.totals).toEqual({ gross: 80, refunded: 35, net: 45, count: 4 });
    });

    it('leaves out payments that moved no money: pending, waiting for a card, declined', async () => {
      const pending = await payment(7, '2026-11-02T10:00:00.000Z', { confirm: false });
      const declined = await payment(8, '2026-11-02T11:00:00.000Z', { card: '4000000000000002' });
      const customer = (await t.http.post('/v1/customers', { email: 'no-card@example.com' }, { token: owner.token }))
        .body.data.id;
      const noCard = await t.http.post(
        PAYMENTS,
        { amount: 9, currency: 'usd', customer, confirm: true },
        { token: owner.token },
      );
      expect([pending.status, declined.status, noCard.body.status]).toEqual([
        'requires_confirmation',
        'failed',
        'requires_payment_method',
      ]);
      await t.db
        .collection('payments')
        .updateOne(
          { _id: new Types.ObjectId(noCard.body.id as string) },
          { $set: { createdAt: new Date('2026-11-02T12:00:00Z') } },
        );

      const res = await summary('currency=usd&from=2026-11-02&to=2026-11-02');
      expect(res.body.days).toEqual([{ date: '2026-11-02', gross: 0, refunded: 0, net: 0, count: 0 }]);
    });
  });

  it('counts only the currency asked for, in its own decimals', async () => {
    await payment(12.5, '2026-09-10T09:00:00.000Z', { currency: 'eur' });
    await payment(1.005, '2026-09-10T10:00:00.000Z', { currency: 'kwd' });
    await payment(1500, '2026-09-10T11:00:00.000Z', { currency: 'jpy' });
    await payment(3, '2026-09-10T12:00:00.000Z', { currency: 'usd' });
    const query = (currency: string) => summary(`currency=${currency}&from=2026-09-10&to=2026-09-10`);
    expect((await query('eur')).body.totals).toEqual({ gross: 12.5, refunded: 0, net: 12.5, count: 1 });
    expect((await query('kwd')).body.totals).toEqual({ gross: 1.005, refunded: 0, net: 1.005, count: 1 });
    expect((await query('jpy')).body.totals).toEqual({ gross: 1500, refunded: 0, net: 1500, count: 1 });
    expect((await query('usd')).body.totals).toEqual({ gross: 3, refunded: 0, net: 3, count: 1 });
    expect((await query('gbp')).body.totals).toEqual({ gross: 0, refunded: 0, net: 0, count: 0 });
  });

  it("never counts another account's payments, nor another project's of the same account", async () => {
    await payment(400, '2026-08-15T12:00:00.000Z', { user: stranger });
    const staging = await t.http.post('/api/v1/platform/projects', { name: 'Staging' }, { token: owner.token });
    expect(staging.status).toBe(201);
    const inStaging = { 'x-project-id': staging.body.data.id as string };
    await payment(70, '2026-08-15T13:00:00.000Z', { headers: inStaging });
    await payment(5, '2026-08-15T14:00:00.000Z');

    const period = 'currency=usd&from=2026-08-15&to=2026-08-15';
    expect((await summary(period)).body.totals).toEqual({ gross: 5, refunded: 0, net: 5, count: 1 });
    // Every member of the account sees the same default project.
    expect((await summary(period, developer)).body.totals).toEqual({ gross: 5, refunded: 0, net: 5, count: 1 });
    expect((await summary(period, owner, inStaging)).body.totals).toEqual({
      gross: 70,
      refunded: 0,
      net: 70,
      count: 1,
    });
    expect((await summary(period, stranger)).body.totals).toEqual({ gross: 400, refunded: 0, net: 400, count: 1 });
    // Another account's project is not the stranger's to read.
    expectError(await summary(period, stranger, inStaging), 404, 'Platform project not found');
  });

  it("answers an API key with its own project's volume", async () => {
    await payment(33, '2026-07-01T12:00:00.000Z');
    const created = await t.http.post(
      `/api/v1/platform/projects/${owner.projectId}/keys`,
      { name: 'reports', scopes: ['payments'] },
      { token: owner.token },
    );
    expect(created.status).toBe(201);
    const res = await t.http.get(`${SUMMARY}?currency=usd&from=2026-07-01&to=2026-07-01`, {
      token: created.body.data.key,
    });
    expect(res.status).toBe(200);
    expect(res.body.totals).toEqual({ gross: 33, refunded: 0, net: 33, count: 1 });
  });

  it('defaults to the last 30 days, today (UTC) included', async () => {
    const now = new Date();
    await payment(2, now.toISOString());
    const res = await summary('currency=usd');
    expect(res.status).toBe(200);
    const today = now.toISOString().slice(0, 10);
    expect(res.body.to).toBe(today);
    expect(res.body.days).toHaveLength(30);
    expect(res.body.from).toBe(new Date(Date.parse(today) - 29 * 86_400_000).toISOString().slice(0, 10));
    expect(res.body.days.at(-1)).toMatchObject({ date: today, gross: 2, count: 1 });
  });

  describe('bounds', () => {
    it('takes up to 366 days', async () => {
      const res = await summary('currency=usd&from=2024-01-01&to=2024-12-31');
      expect(res.status).toBe(200);
      expect(res.body.days).toHaveLength(366);
      expect(res.body.days[0].date).toBe('2024-01-01');
      expect(res.body.days.at(-1).date).toBe('2024-12-31');
    });

    it('is 400 for a longer period, naming from', async () => {
      expectValidationError(
        await summary('currency=usd&from=2025-01-01&to=2026-01-02'),
        'from',
        'the period must be at most 366 days (2025-01-01 to 2026-01-02 is 367 days)',
      );
    });

    it('is 400 for from after to', async () => {
      expectValidationError(
        await summary('currency=usd&from=2026-11-05&to=2026-11-04'),
        'from',
        /from must be on or before to/,
      );
    });

    it('is 400 without a currency, or with one that is not ISO 4217', async () => {
      expectValidationError(await summary('from=2026-11-01&to=2026-11-02'), 'currency');
      expectValidationError(await summary('currency=usx'), 'currency', 'currency must be an ISO 4217 currency code');
    });

    it('is 400 for dates that are not YYYY-MM-DD days of the calendar', async () => {
      expectValidationError(await summary('currency=usd&from=2026-02-30'), 'from', 'from must be a date as YYYY-MM-DD');
      expectValidationError(await summary('currency=usd&to=23.11.2026'), 'to', 'to must be a date as YYYY-MM-DD');
      expectValidationError(await summary('currency=usd&from=2026-11-01T00:00:00Z'), 'from');
    });

    it('is 400 for an unknown query field', async () => {
      expectError(await summary('currency=usd&projectId=6650c0ffee0000000000a001'), 400);
    });
  });

  it('is a route of its own, not a payment id', async () => {
    const res = await t.http.get(SUMMARY, { token: owner.token });
    expectValidationError(res, 'currency');
  });

  it('needs a token', async () => {
    expectError(await t.http.get(`${SUMMARY}?currency=usd`), 401);
  });
});
