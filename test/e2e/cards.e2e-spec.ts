import { Types } from 'mongoose';
import { createStaff, TestUser } from '../support/auth';
import { expectError, expectNotFound, expectUnauthorized, expectValidationError } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';
import type { HttpResponse } from '../support/http';
import { CardsService } from '../../src/cards/cards.service';
import { CustomersService } from '../../src/customers/customers.service';
import { tenantScope, type TenantScope } from '../../src/tenancy/tenant-scope';

const CARD_FIELDS = [
  'id',
  'customer',
  'brand',
  'funding',
  'country',
  'last4',
  'expMonth',
  'expYear',
  'fingerprint',
  'isDefault',
  'createdAt',
  'updatedAt',
].sort();
const UNKNOWN_ID = '6650c0ffee0000000000ffff';
const NOW = new Date();
const THIS_YEAR = NOW.getUTCFullYear();
const THIS_MONTH = NOW.getUTCMonth() + 1;
const FUTURE_YEAR = String(THIS_YEAR + 3);

const TEST_CARDS: [string, string, string, string][] = [
  ['4242424242424242', 'visa', 'credit', 'US'],
  ['4000056655665556', 'visa', 'debit', 'US'],
  ['5555555555554444', 'mastercard', 'credit', 'US'],
  ['2223003122003222', 'mastercard', 'credit', 'US'],
  ['5200828282828210', 'mastercard', 'debit', 'US'],
  ['378282246310005', 'amex', 'credit', 'US'],
  ['371449635398431', 'amex', 'credit', 'US'],
  ['6011111111111117', 'discover', 'credit', 'US'],
  ['6011000990139424', 'discover', 'credit', 'US'],
  ['6011981111111113', 'discover', 'debit', 'US'],
  ['4000001240000000', 'visa', 'credit', 'CA'],
  ['4000000760000002', 'visa', 'credit', 'BR'],
  ['4000000000000002', 'visa', 'credit', 'US'],
  ['4000000000009995', 'visa', 'credit', 'US'],
  ['4000000000009987', 'visa', 'credit', 'US'],
  ['4000000000009979', 'visa', 'credit', 'US'],
  ['4000000000000069', 'visa', 'credit', 'US'],
  ['4000000000000127', 'visa', 'credit', 'US'],
  ['4000000000000119', 'visa', 'credit', 'US'],
  ['4000000000000341', 'visa', 'credit', 'US'],
];

describe('cards /v1/cards', () => {
  let t: TestApp;
  let developer: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    ({ developer } = await createStaff(t.http));
  });
  afterAll(() => t.close());

  const cardBody = (overrides: Record<string, unknown> = {}) => ({
    cardNumber: '4242424242424242',
    expMonth: '12',
    expYear: FUTURE_YEAR,
    cvc: '123',
    ...overrides,
  });
  const post = (path: string, body?: unknown) => t.http.post(path, body, { token: developer.token });
  const get = (path: string) => t.http.get(path, { token: developer.token });

  async function createCustomer(): Promise<string> {
    const res = await post('/v1/customers', { email: 'card.owner@example.com' });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }
  async function createCard(overrides: Record<string, unknown> = {}): Promise<HttpResponse> {
    const res = await post('/v1/cards', cardBody(overrides));
    expect(res.status).toBe(201);
    return res;
  }

  describe('create', () => {
    it.each(TEST_CARDS)('accepts test card %s as %s %s from %s', async (number, brand, funding, country) => {
      const customer = await createCustomer();
      const res = await post(
        '/v1/cards',
        cardBody({ customer, cardNumber: number, cvc: brand === 'amex' ? '1234' : '123' }),
      );
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['data']);
      expect(Object.keys(res.body.data).sort()).toEqual(CARD_FIELDS);
      expect(res.body.data).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        customer,
        brand,
        funding,
        country,
        last4: number.slice(-4),
        expMonth: 12,
        expYear: Number(FUTURE_YEAR),
        fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
        isDefault: true,
      });
      expect(res.text).not.toContain(number);
    });

    it('answers on the trailing-slash path, ignores spaces and dashes, gives equal numbers equal fingerprints', async () => {
      const customer = await createCustomer();
      const a = await post('/v1/cards/', cardBody({ customer, cardNumber: '4242 4242 4242 4242' }));
      const b = await post('/v1/cards', cardBody({ customer, cardNumber: '4242-4242-4242-4242' }));
      const c = await post('/v1/cards', cardBody({ customer, cardNumber: '5555555555554444' }));
      expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
      expect(a.body.data.fingerprint).toBe(b.body.data.fingerprint);
      expect(c.body.data.fingerprint).not.toBe(a.body.data.fingerprint);
    });

    it('the fingerprint is keyed: another key gives another fingerprint for the same number', async () => {
      const other = await createTestApp({ CARD_FINGERPRINT_KEY: 'another-fingerprint-key-of-at-least-32-chars' });
      try {
        const { developer: dev } = await createStaff(other.http);
        const there = await other.http.post('/v1/cards', cardBody(), { token: dev.token });
        const here = await createCard();
        expect(there.status).toBe(201);
        expect(there.body.data.fingerprint).not.toBe(here.body.data.fingerprint);
      } finally {
        await other.close();
      }
    });

    it('without a customer: creates a blank customer (email null) whose default is the card', async () => {
      const res = await createCard();
      const card = res.body.data;
      expect(card.customer).toMatch(/^[0-9a-f]{24}$/);
      expect(card.isDefault).toBe(true);
      const customer = await get(`/v1/customers/${card.customer}`);
      expect(customer.status).toBe(200);
      expect(customer.body.data).toMatchObject({ id: card.customer, email: null, defaultMethod: card.id });
    });

    it('a customer that does not exist is 400, and no card or customer is left behind', async () => {
      const before = await t.db.collection('cards').countDocuments();
      const customersBefore = await t.db.collection('customers').countDocuments();
      expectError(
        await post('/v1/cards', cardBody({ customer: UNKNOWN_ID })),
        400,
        'customer does not match an existing customer',
      );
      expectValidationError(
        await post('/v1/cards', cardBody({ customer: 'cus_123' })),
        'customer',
        'customer must be a valid id',
      );
      expect(await t.db.collection('cards').countDocuments()).toBe(before);
      expect(await t.db.collection('customers').countDocuments()).toBe(customersBefore);
    });

    it('a number that fails the checksum is an invalid card number', async () => {
      const res = await post('/v1/cards', cardBody({ cardNumber: '4242424242424241' }));
      expectValidationError(res, 'cardNumber', /invalid card number/i);
      expect(res.body.message).toMatch(/invalid card number/i);
      expect(res.body.message).not.toMatch(/real card/i);
    });

    it('a valid real card number is refused: real cards are not accepted in test mode', async () => {
      for (const number of ['4111111111111111', '5105105105105100', '4012888888881881']) {
        const res = await post('/v1/cards', cardBody({ cardNumber: number }));
        expectValidationError(res, 'cardNumber', /real cards are not accepted in test mode/i);
        expect(res.text).not.toContain(number);
      }
    });

    it('refuses other characters and missing or non-string fields', async () => {
      expectValidationError(
        await post('/v1/cards', cardBody({ cardNumber: '4242x4242x4242x4242' })),
        'cardNumber',
        /only digits, spaces and dashes/,
      );
      expectValidationError(await post('/v1/cards', cardBody({ cardNumber: 4242424242424242 })), 'cardNumber');
      expectValidationError(await post('/v1/cards', cardBody({ expMonth: 12 })), 'expMonth');
      const empty = await post('/v1/cards', {});
      expect(empty.status).toBe(400);
      expect(empty.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        'cardNumber',
        'cvc',
        'expMonth',
        'expYear',
      ]);
    });

    it('reads expMonth "4" and "04" alike and refuses months outside 1-12', async () => {
      const a = await createCard({ expMonth: '4' });
      const b = await createCard({ expMonth: '04' });
      expect(a.body.data.expMonth).toBe(4);
      expect(b.body.data.expMonth).toBe(4);
      for (const month of ['0', '13', '00', '123', 'ab']) {
        expectValidationError(await post('/v1/cards', cardBody({ expMonth: month })), 'expMonth');
      }
    });

    it('reads a 2-digit year as 20yy and refuses other lengths', async () => {
      const res = await createCard({ expYear: FUTURE_YEAR.slice(2) });
      expect(res.body.data.expYear).toBe(Number(FUTURE_YEAR));
      for (const year of ['3', '203', '20300'])
        expectValidationError(await post('/v1/cards', cardBody({ expYear: year })), 'expYear');
    });

    it('accepts the current month and refuses a past expiry', async () => {
      const current = await createCard({ expMonth: String(THIS_MONTH), expYear: String(THIS_YEAR) });
      expect(current.body.data).toMatchObject({ expMonth: THIS_MONTH, expYear: THIS_YEAR });
      const lastYear = await post('/v1/cards', cardBody({ expYear: String(THIS_YEAR - 1) }));
      expectValidationError(lastYear, 'expYear', /expired/);
      if (THIS_MONTH > 1) {
        expectValidationError(
          await post('/v1/cards', cardBody({ expMonth: String(THIS_MONTH - 1), expYear: String(THIS_YEAR) })),
          'expYear',
          /expired/,
        );
      }
      expectValidationError(await post('/v1/cards', cardBody({ expMonth: '12', expYear: '20' })), 'expYear', /expired/);
    });

    it('wants a 3-digit cvc, 4 digits for American Express', async () => {
      expectValidationError(await post('/v1/cards', cardBody({ cvc: '12' })), 'cvc');
      expectValidationError(await post('/v1/cards', cardBody({ cvc: '1234' })), 'cvc', /3 digits/);
      expectValidationError(await post('/v1/cards', cardBody({ cvc: 'abc' })), 'cvc');
      expectValidationError(
        await post('/v1/cards', cardBody({ cardNumber: '378282246310005', cvc: '123' })),
        'cvc',
        /4 digits for American Express/,
      );
      await createCard({ cardNumber: '3714 496353 98431', cvc: '1234' });
    });

    it('refuses unknown fields: nothing can be mass-assigned', async () => {
      for (const field of ['id', '_id', 'fingerprint', 'brand', 'last4', 'isDefault', 'createdAt', 'number']) {
        expectValidationError(
          await post('/v1/cards', cardBody({ [field]: 'x' })),
          field,
          `property ${field} should not exist`,
        );
      }
    });

    it('needs a token', async () => {
      expectUnauthorized(await t.http.post('/v1/cards', cardBody()));
    });
  });

  it("stores the card's customer as an ObjectId, the type of the customer's _id and of a payment's customer", async () => {
    const customer = await createCustomer();
    const card = (await createCard({ customer })).body.data;
    const payment = await post('/api/v1/payments', { amount: 1, currency: 'usd', customer });
    expect(payment.status).toBe(201);
    const storedCard = await t.db.collection('cards').findOne({ _id: new Types.ObjectId(card.id) });
    const storedPayment = await t.db.collection('payments').findOne({ _id: new Types.ObjectId(payment.body.id) });
    expect(storedCard?.customer?._bsontype).toBe('ObjectId');
    expect(String(storedCard?.customer)).toBe(customer);
    expect(storedCard?.customer).toEqual(storedPayment?.customer);
    // One value finds the customer, its cards and its payments alike.
    const id = new Types.ObjectId(customer);
    expect(await t.db.collection('customers').countDocuments({ _id: id })).toBe(1);
    expect(await t.db.collection('cards').countDocuments({ customer: id })).toBe(1);
    expect(await t.db.collection('payments').countDocuments({ customer: id })).toBe(1);
    expect(card.customer).toBe(customer);
  });

  it('never stores the card number or the cvc', async () => {
    const customer = await createCustomer();
    await createCard({ customer, cardNumber: '4000 0566 5566 5556', cvc: '987' });
    await createCard({ customer, cardNumber: '378282246310005', cvc: '4321' });
    const docs = await t.db
      .collection('cards')
      .find({ customer: new Types.ObjectId(customer) })
      .toArray();
    expect(docs).toHaveLength(2);
    const stored = JSON.stringify(docs);
    for (const secret of [
      '4000056655665556',
      '378282246310005',
      '400005665566',
      '37828224631',
      '"987"',
      '"4321"',
      'cvc',
      'cardNumber',
    ]) {
      expect(stored).not.toContain(secret);
    }
    for (const doc of docs) {
      expect(Object.values(doc).map(String)).not.toContain('987');
      expect(Object.values(doc).map(String)).not.toContain('4321');
    }
    const all = JSON.stringify(await t.db.collection('cards').find({}).toArray());
    for (const [number] of TEST_CARDS) expect(all).not.toContain(number);
  });

  describe('get', () => {
    it('returns the card', async () => {
      const created = (await createCard()).body.data;
      const res = await get(`/v1/cards/${created.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: created });
    });

    it('unknown id is 404, malformed id 400, no token 401', async () => {
      expectNotFound(await get(`/v1/cards/${UNKNOWN_ID}`), 'Card not found');
      expectError(await get('/v1/cards/card_123'), 400);
      expectUnauthorized(await t.http.get(`/v1/cards/${UNKNOWN_ID}`));
    });
  });

  describe('update', () => {
    it('changes the expiry, month and year alone or together', async () => {
      const card = (await createCard({ expMonth: '01', expYear: FUTURE_YEAR })).body.data;
      const month = await post(`/v1/cards/${card.id}`, { expMonth: '6' });
      expect(month.status).toBe(200);
      expect(month.body.data).toMatchObject({
        id: card.id,
        expMonth: 6,
        expYear: Number(FUTURE_YEAR),
        last4: '4242',
        fingerprint: card.fingerprint,
      });
      const year = await post(`/v1/cards/${card.id}`, { expYear: String(THIS_YEAR + 5).slice(2) });
      expect(year.body.data).toMatchObject({ expMonth: 6, expYear: THIS_YEAR + 5 });
      const both = await post(`/v1/cards/${card.id}`, { expMonth: '02', expYear: String(THIS_YEAR + 1) });
      expect(both.body.data).toMatchObject({ expMonth: 2, expYear: THIS_YEAR + 1 });
      expect((await get(`/v1/cards/${card.id}`)).body.data).toMatchObject({ expMonth: 2, expYear: THIS_YEAR + 1 });
    });

    it('checks the merged expiry against today', async () => {
      const card = (await createCard({ expMonth: '12', expYear: String(THIS_YEAR) })).body.data;
      expectValidationError(
        await post(`/v1/cards/${card.id}`, { expYear: String(THIS_YEAR - 1) }),
        'expYear',
        /expired/,
      );
      if (THIS_MONTH < 12) {
        // Month alone, merged with the stored year: a month before the current one is past.
        const past = THIS_MONTH > 1 ? String(THIS_MONTH - 1) : null;
        if (past) expectValidationError(await post(`/v1/cards/${card.id}`, { expMonth: past }), 'expYear', /expired/);
      }
      expectValidationError(await post(`/v1/cards/${card.id}`, { expMonth: '13' }), 'expMonth');
      expect((await get(`/v1/cards/${card.id}`)).body.data).toMatchObject({ expMonth: 12, expYear: THIS_YEAR });
    });

    it('takes only the expiry fields', async () => {
      const card = (await createCard()).body.data;
      for (const field of ['cardNumber', 'cvc', 'customer', 'brand', 'fingerprint', 'isDefault']) {
        expectValidationError(
          await post(`/v1/cards/${card.id}`, { [field]: 'x' }),
          field,
          `property ${field} should not exist`,
        );
      }
      expectValidationError(await post(`/v1/cards/${card.id}`, { expMonth: null }), 'expMonth');
      const empty = await post(`/v1/cards/${card.id}`, {});
      expect(empty.status).toBe(200);
      expect(empty.body.data).toEqual(card);
    });

    it('unknown id is 404, malformed id 400, no token 401', async () => {
      expectNotFound(await post(`/v1/cards/${UNKNOWN_ID}`, { expMonth: '5' }), 'Card not found');
      expectError(await post('/v1/cards/nope', { expMonth: '5' }), 400);
      expectUnauthorized(await t.http.post(`/v1/cards/${UNKNOWN_ID}`, { expMonth: '5' }));
    });
  });

  describe('list', () => {
    it("pages a customer's cards newest first with limit, hasMore and startingAfter", async () => {
      const customer = await createCustomer();
      const other = await createCustomer();
      await createCard({ customer: other });
      const ids: string[] = [];
      for (const cardNumber of ['4242424242424242', '5555555555554444', '6011111111111117']) {
        ids.push((await createCard({ customer, cardNumber })).body.data.id);
      }
      const first = await get(`/v1/cards?customer=${customer}&limit=2`);
      expect(first.status).toBe(200);
      expect(Object.keys(first.body).sort()).toEqual(['data', 'hasMore']);
      expect(first.body.hasMore).toBe(true);
      expect(first.body.data.map((card: { id: string }) => card.id)).toEqual([ids[2], ids[1]]);
      expect(first.body.data.map((card: { isDefault: boolean }) => card.isDefault)).toEqual([false, false]);
      const second = await get(`/v1/cards?customer=${customer}&limit=2&startingAfter=${ids[1]}`);
      expect(second.body.hasMore).toBe(false);
      expect(second.body.data).toEqual([expect.objectContaining({ id: ids[0], customer, isDefault: true })]);
      const all = await get(`/v1/cards?customer=${customer}`);
      expect(all.body.data).toHaveLength(3);
    });

    it('a customer without cards gives an empty page', async () => {
      const customer = await createCustomer();
      expect((await get(`/v1/cards?customer=${customer}`)).body).toEqual({ data: [], hasMore: false });
    });

    it('customer is required (400), must be an id (400) and must exist (404)', async () => {
      expectValidationError(await get('/v1/cards'), 'customer', 'customer is required');
      expectValidationError(await get('/v1/cards?customer=cus_1'), 'customer', 'customer must be a valid id');
      expectNotFound(await get(`/v1/cards?customer=${UNKNOWN_ID}`), 'Customer not found');
      const customer = await createCustomer();
      expectValidationError(await get(`/v1/cards?customer=${customer}&limit=500`), 'limit');
      expectValidationError(await get(`/v1/cards?customer=${customer}&startingAfter=x`), 'startingAfter');
      expectUnauthorized(await t.http.get(`/v1/cards?customer=${customer}`));
    });
  });

  describe('default card', () => {
    it('the first card becomes the default, later ones do not', async () => {
      const customer = await createCustomer();
      const first = (await createCard({ customer })).body.data;
      const second = (await createCard({ customer, cardNumber: '5555555555554444' })).body.data;
      expect(first.isDefault).toBe(true);
      expect(second.isDefault).toBe(false);
      expect((await get(`/v1/customers/${customer}`)).body.data.defaultMethod).toBe(first.id);
    });

    it('concurrent first cards leave exactly one default', async () => {
      const customer = await createCustomer();
      const results = await Promise.all(
        ['4242424242424242', '5555555555554444', '6011111111111117', '4000056655665556'].map((cardNumber) =>
          post('/v1/cards', cardBody({ customer, cardNumber })),
        ),
      );
      expect(results.map((res) => res.status)).toEqual([201, 201, 201, 201]);
      const defaults = results.filter((res) => res.body.data.isDefault);
      expect(defaults).toHaveLength(1);
      expect((await get(`/v1/customers/${customer}`)).body.data.defaultMethod).toBe(defaults[0].body.data.id);
    });

    it('POST /v1/cards/:id/default makes the card the default and returns the customer', async () => {
      const customer = await createCustomer();
      const first = (await createCard({ customer })).body.data;
      const second = (await createCard({ customer, cardNumber: '378282246310005', cvc: '1234' })).body.data;
      const res = await post(`/v1/cards/${second.id}/default`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['data']);
      expect(res.body.data).toMatchObject({
        id: customer,
        defaultMethod: second.id,
        email: 'card.owner@example.com',
        Taxable: false,
      });
      expect((await get(`/v1/cards/${second.id}`)).body.data.isDefault).toBe(true);
      expect((await get(`/v1/cards/${first.id}`)).body.data.isDefault).toBe(false);
      const again = await post(`/v1/cards/${second.id}/default`, {});
      expect(again.status).toBe(200);
      expect(again.body.data.defaultMethod).toBe(second.id);
    });

    it('set default: unknown card 404, malformed id 400, a body field 400, no token 401', async () => {
      expectNotFound(await post(`/v1/cards/${UNKNOWN_ID}/default`), 'Card not found');
      expectError(await post('/v1/cards/xyz/default'), 400);
      expectUnauthorized(await t.http.post(`/v1/cards/${UNKNOWN_ID}/default`));
    });

    it('deleting the default card clears defaultMethod; deleting another card keeps it', async () => {
      const customer = await createCustomer();
      const first = (await createCard({ customer })).body.data;
      const second = (await createCard({ customer, cardNumber: '5555555555554444' })).body.data;

      const other = await t.http.delete(`/v1/cards/${second.id}`, { token: developer.token });
      expect(other.status).toBe(200);
      expect((await get(`/v1/customers/${customer}`)).body.data.defaultMethod).toBe(first.id);

      const res = await t.http.delete(`/v1/cards/${first.id}`, { token: developer.token });
      expect(res.body).toEqual({ id: first.id, deleted: true, message: 'Card deleted' });
      expect((await get(`/v1/customers/${customer}`)).body.data.defaultMethod).toBeNull();

      // A customer left without a default gets the next card as default.
      const third = (await createCard({ customer, cardNumber: '6011111111111117' })).body.data;
      expect(third.isDefault).toBe(true);
    });
  });

  describe('delete', () => {
    it('removes the card', async () => {
      const card = (await createCard()).body.data;
      const res = await t.http.delete(`/v1/cards/${card.id}`, { token: developer.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: card.id, deleted: true, message: 'Card deleted' });
      expectNotFound(await get(`/v1/cards/${card.id}`), 'Card not found');
      expect(await t.db.collection('cards').countDocuments({ customer: new Types.ObjectId(card.customer) })).toBe(0);
      expectNotFound(await t.http.delete(`/v1/cards/${card.id}`, { token: developer.token }), 'Card not found');
    });

    it('malformed id 400, no token 401', async () => {
      expectError(await t.http.delete('/v1/cards/zzz', { token: developer.token }), 400);
      expectUnauthorized(await t.http.delete(`/v1/cards/${UNKNOWN_ID}`));
    });
  });

  describe('for payments (exported services)', () => {
    // The scope the tenancy guard gives the developer's requests: their account's default project.
    let scope: TenantScope;
    beforeAll(() => {
      scope = tenantScope(developer.accountId, developer.projectId);
    });

    it('getDefaultCardForCharge: the default card, with the failure code of a decline test card', async () => {
      const cards = t.app.get(CardsService);
      const customer = await createCustomer();
      expect(await cards.getDefaultCardForCharge(scope, customer)).toBeNull();

      const good = (await createCard({ customer })).body.data;
      expect(await cards.getDefaultCardForCharge(scope, customer)).toEqual({ cardId: good.id, failureCode: null });

      const declines: [string, string][] = [
        ['4000000000000002', 'card_declined'],
        ['4000000000009995', 'insufficient_funds'],
        ['4000000000009987', 'lost_card'],
        ['4000000000009979', 'stolen_card'],
        ['4000000000000069', 'expired_card'],
        ['4000000000000127', 'incorrect_cvc'],
        ['4000000000000119', 'processing_error'],
        ['4000000000000341', 'card_declined'],
      ];
      for (const [cardNumber, failureCode] of declines) {
        const card = (await createCard({ customer, cardNumber })).body.data;
        expect((await post(`/v1/cards/${card.id}/default`)).status).toBe(200);
        expect(await cards.getDefaultCardForCharge(scope, customer)).toEqual({ cardId: card.id, failureCode });
      }

      const current = (await get(`/v1/customers/${customer}`)).body.data.defaultMethod;
      await t.http.delete(`/v1/cards/${current}`, { token: developer.token });
      expect(await cards.getDefaultCardForCharge(scope, customer)).toBeNull();
      expect(await cards.getDefaultCardForCharge(scope, UNKNOWN_ID)).toBeNull();
      expect(await cards.getDefaultCardForCharge(scope, 'not-an-id')).toBeNull();
    });

    it('getDefaultCardForCharge: a default card past its expiry fails with expired_card', async () => {
      const cards = t.app.get(CardsService);
      const card = (await createCard()).body.data;
      await t.db
        .collection('cards')
        .updateOne({ customer: new Types.ObjectId(card.customer) }, { $set: { expYear: THIS_YEAR - 1 } });
      expect(await cards.getDefaultCardForCharge(scope, card.customer)).toEqual({
        cardId: card.id,
        failureCode: 'expired_card',
      });
    });

    it('CustomersService.exists: true for a customer, false for unknown or malformed ids', async () => {
      const customers = t.app.get(CustomersService);
      expect(await customers.exists(scope, await createCustomer())).toBe(true);
      expect(await customers.exists(scope, UNKNOWN_ID)).toBe(false);
      expect(await customers.exists(scope, 'nope')).toBe(false);
    });
  });

  it('cards go with their customer when an admin deletes it', async () => {
    const fresh = await createTestApp();
    try {
      const { admin, developer: dev } = await createStaff(fresh.http);
      const card = await fresh.http.post('/v1/cards', cardBody(), { token: dev.token });
      const customer = card.body.data.customer;
      expect(await fresh.db.collection('cards').countDocuments({ customer: new Types.ObjectId(customer) })).toBe(1);
      expect((await fresh.http.delete(`/v1/customers/${customer}`, { token: admin.token })).status).toBe(200);
      expect(await fresh.db.collection('cards').countDocuments({})).toBe(0);
      expectNotFound(await fresh.http.get(`/v1/cards/${card.body.data.id}`, { token: dev.token }), 'Card not found');
      expectNotFound(
        await fresh.http.get(`/v1/cards?customer=${customer}`, { token: dev.token }),
        'Customer not found',
      );
    } finally {
      await fresh.close();
    }
  });
});
