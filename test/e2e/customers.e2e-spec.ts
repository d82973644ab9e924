import { EventEmitter2 } from '@nestjs/event-emitter';
import { Types } from 'mongoose';
import { CUSTOMER_DELETING } from '../../src/customers/customers.events';
import { PaymentMethodLookup } from '../../src/customers/customers.ports';
import { createStaff, TestUser } from '../support/auth';
import {
  expectError,
  expectForbidden,
  expectNotFound,
  expectUnauthorized,
  expectValidationError,
} from '../support/expect-error';
import { FieldEncryption, parseEncryptionKeys } from '../../src/common/crypto/field-encryption';
import { CustomersRepository } from '../../src/customers/customers.repository';
import { SocialNumberReencryption } from '../../src/customers/social-number-reencryption';
import { SettingsService } from '../../src/settings/settings.service';
import { createTestApp, TEST_FIELD_ENCRYPTION_KEY, TestApp } from '../support/test-app';

/** The social number as stored: encrypted at rest, readable only with the server's key. */
function storedSocialNumber(stored: unknown): string {
  const document = stored as { _id?: unknown; SocialNumber?: unknown } | null;
  const value = document?.SocialNumber;
  if (typeof value !== 'string') throw new Error(`no stored social number: ${JSON.stringify(value)}`);
  expect(value).toMatch(/^enc:v2:t1:/);
  return new FieldEncryption(parseEncryptionKeys(TEST_FIELD_ENCRYPTION_KEY)).decrypt(value, {
    record: String(document?._id),
    field: 'SocialNumber',
  });
}

const CREATE_FIELDS = [
  'id',
  'email',
  'firstName',
  'lastName',
  'address',
  'country',
  'balance',
  'verified',
  'liveMode',
  'createdAt',
  'updatedAt',
  'defaultMethod',
].sort();
const READ_FIELDS = [...CREATE_FIELDS, 'phone', 'Taxable'].sort();
const SOCIAL_NUMBER = '078-05-1120';
const UNKNOWN_ID = '6650c0ffee0000000000ffff';
const FUTURE_YEAR = String(new Date().getUTCFullYear() + 3);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('customers /v1/customers', () => {
  let t: TestApp;
  let admin: TestUser;
  let developer: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, developer } = await createStaff(t.http));
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>, token = developer.token) =>
    t.http.post('/v1/customers', body, { token });
  async function createCustomer(body: Record<string, unknown> = {}): Promise<string> {
    const res = await create({ email: 'someone@example.com', ...body });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }
  const addCard = async (customer: string, cardNumber = '4242424242424242') => {
    const res = await t.http.post(
      '/v1/cards',
      { customer, cardNumber, expMonth: '12', expYear: FUTURE_YEAR, cvc: cardNumber.length === 15 ? '1234' : '123' },
      { token: developer.token },
    );
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };

  describe('create', () => {
    it('with only an email: 201 with exactly the contract fields and their defaults', async () => {
      const res = await create({ email: 'jenny@example.com' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['data']);
      expect(Object.keys(res.body.data).sort()).toEqual(CREATE_FIELDS);
      expect(res.body.data).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        email: 'jenny@example.com',
        firstName: null,
        lastName: null,
        address: {},
        country: null,
        balance: 0,
        verified: false,
        liveMode: false,
        defaultMethod: null,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
    });

    it('with every field: stores them all, the social number included, and returns none of the write-only ones', async () => {
      const body = {
        email: 'full@example.com',
        firstName: 'Jenny',
        lastName: 'Rosen',
        country: 'us',
        address: { line1: '510 Townsend St', city: 'San Francisco' },
        phone: '+1 415 555 0100',
        SocialNumber: SOCIAL_NUMBER,
        liveMode: true,
        verified: true,
        Taxable: true,
        balance: 12.5,
        defaultMethod: null,
      };
      const res = await create(body);
      expect(res.status).toBe(201);
      expect(Object.keys(res.body.data).sort()).toEqual(CREATE_FIELDS);
      expect(res.body.data).toMatchObject({
        firstName: 'Jenny',
        lastName: 'Rosen',
        country: 'US',
        address: body.address,
        liveMode: true,
        verified: true,
        balance: 12.5,
      });
      expect(res.text).not.toContain(SOCIAL_NUMBER);
      const stored = await t.db.collection('customers').findOne({ email: 'full@example.com' });
      expect(stored).toMatchObject({ phone: '+1 415 555 0100', Taxable: true });
      expect(JSON.stringify(stored)).not.toContain(SOCIAL_NUMBER);
      expect(storedSocialNumber(stored)).toBe(SOCIAL_NUMBER);
    });

    it('answers on the trailing-slash path of the spec too', async () => {
      const res = await t.http.post('/v1/customers/', { email: 'slash@example.com' }, { token: developer.token });
      expect(res.status).toBe(201);
      expect(res.body.data.email).toBe('slash@example.com');
      const list = await t.http.get('/v1/customers/?limit=1', { token: developer.token });
      expect(list.status).toBe(200);
    });

    it('requires a valid email', async () => {
      expectValidationError(await create({}), 'email', 'email must be an email');
      expectValidationError(await create({ email: 'not-an-email' }), 'email', 'email must be an email');
      expectValidationError(await create({ email: null }), 'email');
    });

    it('country must be ISO 3166-1 alpha-2', async () => {
      expectValidationError(await create({ email: 'c@example.com', country: 'USA' }), 'country', /ISO 3166-1 alpha-2/);
      expectValidationError(await create({ email: 'c@example.com', country: 'XX' }), 'country');
    });

    it('checks the types of the other fields', async () => {
      expectValidationError(await create({ email: 'c@example.com', balance: '10' }), 'balance');
      expectValidationError(await create({ email: 'c@example.com', verified: 'yes' }), 'verified');
      expectValidationError(await create({ email: 'c@example.com', Taxable: 1 }), 'Taxable');
      expectValidationError(await create({ email: 'c@example.com', address: 'Main St' }), 'address');
      expectValidationError(
        await create({ email: 'c@example.com', address: { nested: { deep: true } } }),
        'address.nested',
      );
      expectValidationError(await create({ email: 'c@example.com', address: { city: ['x'] } }), 'address.city');
      expectValidationError(await create({ email: 'c@example.com', country: 'Us' }), 'country');
      expectValidationError(await create({ email: 'c@example.com', SocialNumber: 123 }), 'SocialNumber');
    });

    it('refuses a defaultMethod: a new customer has no cards', async () => {
      expectValidationError(
        await create({ email: 'd@example.com', defaultMethod: '6650c0ffee0000000000e001' }),
        'defaultMethod',
        /null on create/,
      );
    });

    it('refuses unknown fields, so ids, timestamps and the like cannot be mass-assigned', async () => {
      for (const field of ['id', '_id', 'createdAt', 'updatedAt', 'role', 'cards']) {
        const res = await create({ email: 'm@example.com', [field]: field === '_id' ? UNKNOWN_ID : 'x' });
        expectValidationError(res, field, `property ${field} should not exist`);
      }
    });

    it('needs a token', async () => {
      expectUnauthorized(await t.http.post('/v1/customers', { email: 'a@example.com' }));
    });
  });

  it('no customer response ever carries the social number: create, get, update, list', async () => {
    const secret = '987-65-4329';
    const created = await create({ email: 'secret@example.com', SocialNumber: secret });
    const id = created.body.data.id;
    const responses = [
      created,
      await t.http.get(`/v1/customers/${id}`, { token: developer.token }),
      await t.http.post(`/v1/customers/${id}`, { SocialNumber: secret, firstName: 'Sam' }, { token: developer.token }),
      await t.http.get('/v1/customers?limit=100', { token: developer.token }),
    ];
    expect(responses.map((res) => res.status)).toEqual([201, 200, 200, 200]);
    for (const res of responses) {
      expect(res.text).not.toContain(secret);
      expect(res.text).not.toContain('SocialNumber');
    }
    expect(responses[3].body.data.some((customer: { id: string }) => customer.id === id)).toBe(true);
    const stored = await t.db.collection('customers').findOne({ email: 'secret@example.com' });
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(storedSocialNumber(stored)).toBe(secret);
  });

  describe('get', () => {
    it('returns the read customer with phone and Taxable', async () => {
      const id = await createCustomer({ phone: '+44 20 7946 0000', Taxable: true, SocialNumber: SOCIAL_NUMBER });
      const res = await t.http.get(`/v1/customers/${id}`, { token: developer.token });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(READ_FIELDS);
      expect(res.body.data).toMatchObject({ id, phone: '+44 20 7946 0000', Taxable: true });
      expect(res.text).not.toContain(SOCIAL_NUMBER);
    });

    it('defaults phone to null and Taxable to false', async () => {
      const id = await createCustomer();
      const res = await t.http.get(`/v1/customers/${id}`, { token: developer.token });
      expect(res.body.data).toMatchObject({ phone: null, Taxable: false });
    });

    it('unknown id is 404, malformed id is 400, no token is 401', async () => {
      expectNotFound(await t.http.get(`/v1/customers/${UNKNOWN_ID}`, { token: developer.token }), 'Customer not found');
      expectError(await t.http.get('/v1/customers/not-an-id', { token: developer.token }), 400);
      expectUnauthorized(await t.http.get(`/v1/customers/${UNKNOWN_ID}`));
    });
  });

  describe('update', () => {
    it('changes only the given fields and returns the read customer', async () => {
      const id = await createCustomer({ firstName: 'Jenny', country: 'US' });
      const res = await t.http.post(
        `/v1/customers/${id}`,
        { lastName: 'Rosen', verified: true, balance: -3, SocialNumber: SOCIAL_NUMBER },
        { token: developer.token },
      );
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(READ_FIELDS);
      expect(res.body.data).toMatchObject({
        id,
        firstName: 'Jenny',
        lastName: 'Rosen',
        country: 'US',
        verified: true,
        balance: -3,
        email: 'someone@example.com',
      });
      expect(res.text).not.toContain(SOCIAL_NUMBER);
      const stored = await t.db.collection('customers').findOne({ lastName: 'Rosen', verified: true });
      expect(storedSocialNumber(stored)).toBe(SOCIAL_NUMBER);
    });

    it('takes a new email, refuses an invalid or null one', async () => {
      const id = await createCustomer();
      const ok = await t.http.post(`/v1/customers/${id}`, { email: 'new@example.com' }, { token: developer.token });
      expect(ok.body.data.email).toBe('new@example.com');
      expectValidationError(
        await t.http.post(`/v1/customers/${id}`, { email: 'nope' }, { token: developer.token }),
        'email',
      );
      expectValidationError(
        await t.http.post(`/v1/customers/${id}`, { email: null }, { token: developer.token }),
        'email',
      );
    });

    it('clears nullable fields with null and refuses null on the others', async () => {
      const id = await createCustomer({ firstName: 'Jenny', phone: '123' });
      const res = await t.http.post(
        `/v1/customers/${id}`,
        { firstName: null, phone: null },
        { token: developer.token },
      );
      expect(res.body.data).toMatchObject({ firstName: null, phone: null });
      expectValidationError(
        await t.http.post(`/v1/customers/${id}`, { balance: null }, { token: developer.token }),
        'balance',
      );
      expectValidationError(
        await t.http.post(`/v1/customers/${id}`, { verified: null }, { token: developer.token }),
        'verified',
      );
    });

    it('an empty body changes nothing', async () => {
      const id = await createCustomer({ firstName: 'Same' });
      const res = await t.http.post(`/v1/customers/${id}`, {}, { token: developer.token });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id, firstName: 'Same' });
    });

    it("defaultMethod must be one of this customer's cards", async () => {
      const id = await createCustomer();
      const other = await createCustomer();
      const first = await addCard(id);
      const second = await addCard(id, '5555555555554444');
      const othersCard = await addCard(other);

      const ok = await t.http.post(`/v1/customers/${id}`, { defaultMethod: second }, { token: developer.token });
      expect(ok.status).toBe(200);
      expect(ok.body.data.defaultMethod).toBe(second);
      expect(first).not.toBe(second);

      const foreign = await t.http.post(
        `/v1/customers/${id}`,
        { defaultMethod: othersCard },
        { token: developer.token },
      );
      expectError(foreign, 400, "defaultMethod must be the id of one of this customer's cards");
      expectError(
        await t.http.post(`/v1/customers/${id}`, { defaultMethod: UNKNOWN_ID }, { token: developer.token }),
        400,
      );
      expectValidationError(
        await t.http.post(`/v1/customers/${id}`, { defaultMethod: 'card_123' }, { token: developer.token }),
        'defaultMethod',
      );
      expect((await t.http.get(`/v1/customers/${id}`, { token: developer.token })).body.data.defaultMethod).toBe(
        second,
      );

      const cleared = await t.http.post(`/v1/customers/${id}`, { defaultMethod: null }, { token: developer.token });
      expect(cleared.body.data.defaultMethod).toBeNull();
    });

    it('a refused defaultMethod writes nothing: the other fields of the update stay as they were', async () => {
      const id = await createCustomer({ email: 'before@example.com', firstName: 'Before' });
      const other = await createCustomer();
      const othersCard = await addCard(other);
      for (const defaultMethod of [othersCard, UNKNOWN_ID]) {
        const res = await t.http.post(
          `/v1/customers/${id}`,
          { email: 'after@example.com', firstName: 'After', defaultMethod },
          { token: developer.token },
        );
        expectError(res, 400, "defaultMethod must be the id of one of this customer's cards");
      }
      const stored = await t.db.collection('customers').findOne({ _id: new Types.ObjectId(id) });
      expect(stored).toMatchObject({ email: 'before@example.com', firstName: 'Before', defaultMethod: null });
    });

    it('a card deleted between the check and the write: the update stands and the default is cleared, never a 400 after a write', async () => {
      const id = await createCustomer({ email: 'race.before@example.com' });
      // A card that exists when the update checks it and is gone by the time it has written.
      const vanishing = '6650c0ffee0000000000e0e0';
      const lookup = t.app.get(PaymentMethodLookup, { strict: false });
      const spy = jest
        .spyOn(lookup, 'belongsTo')
        .mockImplementationOnce(async (_scope, methodId) => methodId === vanishing);
      const res = await t.http.post(
        `/v1/customers/${id}`,
        { email: 'race.after@example.com', defaultMethod: vanishing },
        { token: developer.token },
      );
      spy.mockRestore();

      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id, email: 'race.after@example.com', defaultMethod: null });
      const stored = await t.db.collection('customers').findOne({ _id: new Types.ObjectId(id) });
      expect(stored).toMatchObject({ email: 'race.after@example.com', defaultMethod: null });
    });

    it('unknown id is 404, malformed id 400, unknown field 400, no token 401', async () => {
      expectNotFound(
        await t.http.post(`/v1/customers/${UNKNOWN_ID}`, { firstName: 'x' }, { token: developer.token }),
        'Customer not found',
      );
      expectNotFound(
        await t.http.post(`/v1/customers/${UNKNOWN_ID}`, { defaultMethod: UNKNOWN_ID }, { token: developer.token }),
        'Customer not found',
      );
      expectError(await t.http.post('/v1/customers/123', { firstName: 'x' }, { token: developer.token }), 400);
      const id = await createCustomer();
      expectValidationError(
        await t.http.post(`/v1/customers/${id}`, { createdAt: '2020-01-01' }, { token: developer.token }),
        'createdAt',
      );
      expectUnauthorized(await t.http.post(`/v1/customers/${id}`, { firstName: 'x' }));
    });
  });

  describe('list', () => {
    it('pages newest first with limit, hasMore and startingAfter', async () => {
      const fresh = await createTestApp();
      try {
        const { developer: dev } = await createStaff(fresh.http);
        const ids: string[] = [];
        for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
          const res = await fresh.http.post(
            '/v1/customers',
            { email, SocialNumber: SOCIAL_NUMBER },
            { token: dev.token },
          );
          ids.push(res.body.data.id);
        }
        const first = await fresh.http.get('/v1/customers?limit=2', { token: dev.token });
        expect(first.status).toBe(200);
        expect(Object.keys(first.body).sort()).toEqual(['data', 'hasMore']);
        expect(first.body.hasMore).toBe(true);
        expect(first.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
        expect(Object.keys(first.body.data[0]).sort()).toEqual(READ_FIELDS);
        expect(first.text).not.toContain(SOCIAL_NUMBER);

        const second = await fresh.http.get(`/v1/customers?limit=2&startingAfter=${ids[1]}`, { token: dev.token });
        expect(second.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], hasMore: false });

        const all = await fresh.http.get('/v1/customers', { token: dev.token });
        expect(all.body.data).toHaveLength(3);
        expect(all.body.hasMore).toBe(false);
      } finally {
        await fresh.close();
      }
    });

    it('validates limit and startingAfter', async () => {
      expectValidationError(await t.http.get('/v1/customers?limit=0', { token: developer.token }), 'limit');
      expectValidationError(await t.http.get('/v1/customers?limit=101', { token: developer.token }), 'limit');
      expectValidationError(await t.http.get('/v1/customers?limit=ten', { token: developer.token }), 'limit');
      expectValidationError(
        await t.http.get('/v1/customers?startingAfter=zzz', { token: developer.token }),
        'startingAfter',
      );
      expectValidationError(await t.http.get('/v1/customers?email=a@example.com', { token: developer.token }), 'email');
    });

    it('needs a token', async () => {
      expectUnauthorized(await t.http.get('/v1/customers'));
    });
  });

  describe('delete', () => {
    it('admin only: another role gets 403 and the customer stays', async () => {
      const id = await createCustomer();
      expectForbidden(await t.http.delete(`/v1/customers/${id}`, { token: developer.token }));
      expect((await t.http.get(`/v1/customers/${id}`, { token: developer.token })).status).toBe(200);
      expectUnauthorized(await t.http.delete(`/v1/customers/${id}`));
    });

    it('removes the customer and its cards, and nothing of other customers', async () => {
      const id = await createCustomer();
      const other = await createCustomer();
      await addCard(id);
      await addCard(id, '378282246310005');
      const kept = await addCard(other);

      const res = await t.http.delete(`/v1/customers/${id}`, { token: admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id, deleted: true, message: 'Customer deleted' });
      expectNotFound(await t.http.get(`/v1/customers/${id}`, { token: developer.token }), 'Customer not found');
      expect(await t.db.collection('cards').countDocuments({ customer: new Types.ObjectId(id) })).toBe(0);
      expect(await t.db.collection('cards').countDocuments({ customer: new Types.ObjectId(other) })).toBe(1);
      expect((await t.http.get(`/v1/cards/${kept}`, { token: developer.token })).status).toBe(200);
    });

    it('a failure part-way leaves the customer in place, and a retried delete finishes the cascade', async () => {
      const id = await createCustomer();
      const card = await addCard(id);
      // The cascade fails once (as if the process stopped part-way through the delete).
      const events = t.app.get(EventEmitter2);
      const failOnce = async () => {
        events.off(CUSTOMER_DELETING, failOnce);
        throw new Error('stopped part-way');
      };
      events.on(CUSTOMER_DELETING, failOnce);
      const failed = await t.http.delete(`/v1/customers/${id}`, { token: admin.token });
      events.off(CUSTOMER_DELETING, failOnce);
      expectError(failed, 500);
      // The customer is still there to delete again: no card is left without its customer.
      expect((await t.http.get(`/v1/customers/${id}`, { token: developer.token })).status).toBe(200);

      const retry = await t.http.delete(`/v1/customers/${id}`, { token: admin.token });
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual({ id, deleted: true, message: 'Customer deleted' });
      expectNotFound(await t.http.get(`/v1/customers/${id}`, { token: developer.token }), 'Customer not found');
      expectNotFound(await t.http.get(`/v1/cards/${card}`, { token: developer.token }), 'Card not found');
      expect(await t.db.collection('cards').countDocuments({ _id: new Types.ObjectId(card) })).toBe(0);
    });

    it('unknown id is 404 and malformed id 400', async () => {
      expectNotFound(await t.http.delete(`/v1/customers/${UNKNOWN_ID}`, { token: admin.token }), 'Customer not found');
      expectError(await t.http.delete('/v1/customers/xyz', { token: admin.token }), 400);
    });
  });
});

describe('social numbers at rest', () => {
  let t: TestApp;
  let developer: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    ({ developer } = await createStaff(t.http));
  });
  afterAll(() => t.close());

  it('stores the social number encrypted (never in plain text) and re-encryption moves old values to the current key', async () => {
    const created = await t.http.post(
      '/v1/customers',
      { email: 'enc@example.com', SocialNumber: '111-22-3333' },
      { token: developer.token },
    );
    expect(created.status).toBe(201);
    const customers = t.db.collection('customers');
    const stored = await customers.findOne({ email: 'enc@example.com' });
    expect(stored?.SocialNumber).not.toContain('111-22-3333');

    // A value written in plain text by an older build, and one under a retired key.
    const id = new Types.ObjectId(created.body.data.id);
    const retired = new FieldEncryption(parseEncryptionKeys(`old:${Buffer.alloc(32, 9).toString('base64')}`));
    const plainId = new Types.ObjectId();
    await customers.insertOne({ ...stored, _id: plainId, email: 'plain@example.com', SocialNumber: '444-55-6666' });
    await customers.updateOne(
      { _id: id },
      { $set: { SocialNumber: retired.encrypt('111-22-3333', { record: String(id), field: 'SocialNumber' }) } },
    );

    const current = new FieldEncryption(
      parseEncryptionKeys(`${TEST_FIELD_ENCRYPTION_KEY},old:${Buffer.alloc(32, 9).toString('base64')}`),
    );
    const job = new SocialNumberReencryption(
      t.app.get(CustomersRepository),
      current,
      t.app.get(SettingsService, { strict: false }),
    );
    const first = await job.run();
    expect(first).toMatchObject({ encrypted: 1, rotated: 1 });
    expect(storedSocialNumber(await customers.findOne({ _id: plainId }))).toBe('444-55-6666');
    expect(storedSocialNumber(await customers.findOne({ _id: id }))).toBe('111-22-3333');
    expect(await job.run()).toMatchObject({ encrypted: 0, rotated: 0 });
  });
});
