import { ConfigService } from '@nestjs/config';
import { Types } from 'mongoose';
import { createHash } from 'node:crypto';
import { RequestMethod } from '@nestjs/common';
import { EXCEPTION_FILTERS_METADATA, GUARDS_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryService } from '@nestjs/core';
import { IdempotencyGuard } from '../../src/idempotency/idempotency.guard';
import { IdempotencyStore } from '../../src/idempotency/idempotency.store';
import { IdempotencyRecordsRepository } from '../../src/idempotency/idempotency-records.repository';
import { Clock } from '../../src/common/clock/clock';
import { IdempotentReplayFilter } from '../../src/idempotency/idempotent-replay';
import { canonicalJson, idempotencyScope, requestFingerprint } from '../../src/idempotency/request-fingerprint';
import type { FinanceConfig } from '../../src/config/finance.config';
import { createStaff, TestUser } from '../support/auth';
import { expectError } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';

const PAYMENTS = '/api/v1/payments';
const guardsOf = (handler: object): unknown[] => Reflect.getMetadata(GUARDS_METADATA, handler) ?? [];
const filtersOf = (handler: object): unknown[] => Reflect.getMetadata(EXCEPTION_FILTERS_METADATA, handler) ?? [];
const REPLAYED = 'idempotent-replayed';

/** Every POST handler of the application's controllers, as Nest routes them. */
function postHandlers(discovery: DiscoveryService): { name: string; handler: object }[] {
  return discovery.getControllers().flatMap((wrapper) => {
    const prototype = (wrapper.metatype as { prototype: Record<string, object> }).prototype;
    return Object.getOwnPropertyNames(prototype)
      .filter(
        (name) =>
          typeof prototype[name] === 'function' &&
          Reflect.getMetadata(METHOD_METADATA, prototype[name]) === RequestMethod.POST,
      )
      .map((name) => ({ name, handler: prototype[name] }));
  });
}

describe('Idempotency-Key', () => {
  let t: TestApp;
  let admin: TestUser;
  let manager: TestUser;
  let developer: TestUser;
  let keyCounter = 0;

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, manager, developer } = await createStaff(t.http));
  });
  afterAll(() => t.close());

  const newKey = () => `key-${Date.now()}-${++keyCounter}`;
  const fingerprintKey = () => t.app.get(ConfigService).getOrThrow<FinanceConfig>('finance').idempotencyFingerprintKey;
  const records = () => t.db.collection('idempotency_keys');
  const paymentKeys = () => t.db.collection<{ _id: string; [field: string]: unknown }>('payment_keys');
  const paymentKeyId = (key: string) => `${developer.projectId}:user:${developer.id}:${key}`;
  const paymentsOf = (customer: string) =>
    t.db.collection('payments').countDocuments({ customer: new Types.ObjectId(customer) });

  async function createCustomer(): Promise<string> {
    const res = await t.http.post(
      '/v1/customers',
      { email: `c.${new Types.ObjectId().toHexString()}@example.com` },
      { token: admin.token },
    );
    if (res.status !== 201) throw new Error(`customer: ${res.status} ${res.text}`);
    return res.body.data.id;
  }

  async function customerWithCard(): Promise<string> {
    const customer = await createCustomer();
    const card = await t.http.post(
      '/v1/cards',
      { customer, cardNumber: '4242424242424242', expMonth: '12', expYear: '2035', cvc: '123' },
      { token: admin.token },
    );
    if (card.status !== 201) throw new Error(`card: ${card.status} ${card.text}`);
    return customer;
  }

  function post(path: string, body: unknown, key: string | undefined, token = developer.token) {
    return t.http.post(path, body, { token, headers: key === undefined ? {} : { 'Idempotency-Key': key } });
  }

  it('a retry finds its key taken by the unique index, and writes nothing to the record there', async () => {
    const customer = await customerWithCard();
    const key = newKey();
    const body = { amount: 3, currency: 'usd', customer, confirm: true };
    const opened = jest.spyOn(IdempotencyRecordsRepository.prototype, 'open');
    expect((await post(PAYMENTS, body, key)).status).toBe(201);
    const [completed] = await records().find({ key }).toArray();
    expect((await post(PAYMENTS, body, key)).headers.get(REPLAYED)).toBe('true');
    expect(opened).toHaveBeenCalledTimes(2);
    await expect(opened.mock.results[0].value).resolves.toBeInstanceOf(Types.ObjectId);
    await expect(opened.mock.results[1].value).rejects.toMatchObject({ code: 11000 });
    expect(await records().find({ key }).toArray()).toEqual([completed]);
    opened.mockRestore();
  });

  it('a retry with the same key and body returns the first response, marked as replayed, and creates nothing', async () => {
    const customer = await customerWithCard();
    const key = newKey();
    const body = { amount: 12.34, currency: 'usd', customer, confirm: true, description: 'first' };
    const first = await post(PAYMENTS, body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get(REPLAYED)).toBeNull();
    expect(first.body.status).toBe('succeeded');

    const retry = await post(PAYMENTS, body, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get(REPLAYED)).toBe('true');
    expect(retry.headers.get('content-type')).toMatch(/application\/json/);
    expect(retry.body).toEqual(first.body);
    expect(retry.text).toBe(first.text);

    // The order of the fields does not make it another request.
    const reordered = await post(
      PAYMENTS,
      { description: 'first', confirm: true, customer, currency: 'usd', amount: 12.34 },
      key,
    );
    expect(reordered.status).toBe(201);
    expect(reordered.headers.get(REPLAYED)).toBe('true');
    expect(reordered.body.id).toBe(first.body.id);

    expect(await paymentsOf(customer)).toBe(1);
    const stored = await records().findOne({ key });
    expect(stored).toMatchObject({ state: 'completed', statusCode: 201 });
    expect(stored?.scope).toBe(`user:${developer.id} POST ${PAYMENTS}`);
    expect(String(stored?.projectId)).toBe(developer.projectId);
  });

  it('stores a keyed fingerprint of the request, which cannot be matched against a guessed body', async () => {
    const customer = await createCustomer();
    const key = newKey();
    const body = { customer, cardNumber: '4000056655665556', expMonth: '12', expYear: '2035', cvc: '123' };
    const res = await post('/v1/cards', body, key);
    expect(res.status).toBe(201);
    const stored = await records().findOne({ key });
    const unkeyed = createHash('sha256')
      .update(`POST\n/v1/cards\n${canonicalJson(body)}`)
      .digest('hex');
    expect(stored?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(stored?.fingerprint).not.toBe(unkeyed);
    expect(stored?.fingerprint).toBe(requestFingerprint(fingerprintKey(), 'POST', '/v1/cards', body));
    expect(JSON.stringify(stored)).not.toContain('4000056655665556');
  });

  it('the same key with a different body is 422 and creates nothing', async () => {
    const customer = await createCustomer();
    const key = newKey();
    expect((await post(PAYMENTS, { amount: 1, currency: 'usd', customer }, key)).status).toBe(201);
    const other = await post(PAYMENTS, { amount: 2, currency: 'usd', customer }, key);
    expectError(other, 422, /different request/);
    expect(other.headers.get(REPLAYED)).toBeNull();
    expect(await paymentsOf(customer)).toBe(1);
  });

  it('requests without a key are not deduplicated', async () => {
    const customer = await createCustomer();
    const body = { amount: 1, currency: 'usd', customer };
    const [a, b] = [await post(PAYMENTS, body, undefined), await post(PAYMENTS, body, undefined)];
    expect(a.body.id).not.toBe(b.body.id);
    expect(await paymentsOf(customer)).toBe(2);
  });

  it('keys are scoped to the caller and the route', async () => {
    const customer = await createCustomer();
    const key = newKey();
    const body = { amount: 3, currency: 'usd', customer };
    const mine = await post(PAYMENTS, body, key, developer.token);
    const theirs = await post(PAYMENTS, body, key, manager.token);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get(REPLAYED)).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);

    // The same key on another route is another key.
    await t.http.post(
      '/v1/cards',
      { customer, cardNumber: '4242424242424242', expMonth: '12', expYear: '2035', cvc: '123' },
      { token: admin.token },
    );
    const confirm = await post(`${PAYMENTS}/${mine.body.id}/confirm`, undefined, key, developer.token);
    expect(confirm.status).toBe(200);
    expect(confirm.headers.get(REPLAYED)).toBeNull();
    expect(confirm.body.status).toBe('succeeded');
    expect(await paymentsOf(customer)).toBe(2);
  });

  it('replays an action with its own status: a retried refund refunds once', async () => {
    const customer = await customerWithCard();
    const payment = await post(PAYMENTS, { amount: 10, currency: 'usd', customer, confirm: true }, undefined);
    const key = newKey();
    const first = await post(`${PAYMENTS}/${payment.body.id}/refund`, { amount: 4 }, key, manager.token);
    const retry = await post(`${PAYMENTS}/${payment.body.id}/refund`, { amount: 4 }, key, manager.token);
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(retry.headers.get(REPLAYED)).toBe('true');
    expect(retry.body).toEqual(first.body);
    const now = await t.http.get(`${PAYMENTS}/${payment.body.id}`, { token: developer.token });
    expect(now.body).toMatchObject({ amountRefunded: 4, status: 'partially_refunded' });
  });

  it('a response that cannot be stored keeps its key answering 409 until the key expires, past the 5-minute lease, and runs nothing again', async () => {
    const customer = await customerWithCard();
    const key = newKey();
    const body = { amount: 7, currency: 'usd', customer, confirm: true };
    const storing = jest
      .spyOn(t.app.get(IdempotencyRecordsRepository), 'complete')
      .mockRejectedValueOnce(new Error('document too large'));
    const clock = jest.spyOn(t.app.get(Clock), 'now');
    try {
      const first = await post(PAYMENTS, body, key);
      expect(first.status).toBe(201);
      expect(storing).toHaveBeenCalledTimes(1);
      const unstored = await records().findOne({ key });
      // No answer kept: the fields are null, or absent where FerretDB's upsert leaves nulls out.
      expect({
        state: unstored?.state,
        statusCode: unstored?.statusCode ?? null,
        responseBody: unstored?.responseBody ?? null,
      }).toEqual({ state: 'unstored', statusCode: null, responseBody: null });

      for (const minutes of [0, 6, 23 * 60]) {
        clock.mockReturnValue(new Date(Date.now() + minutes * 60 * 1000));
        expectError(
          await post(PAYMENTS, body, key),
          409,
          /its response could not be stored: the key answers 409 until it expires/,
        );
      }
      expect(await paymentsOf(customer)).toBe(1);

      // Expired, the key no longer answers 409, as any key after 24 hours (the payment's own key still names its one payment).
      clock.mockReturnValue(new Date(Date.now() + 24 * 60 * 60 * 1000 + 60_000));
      expect((await post(PAYMENTS, body, key)).status).toBe(201);
      expect(await paymentsOf(customer)).toBe(1);
    } finally {
      storing.mockRestore();
      clock.mockRestore();
    }
  });

  describe('a refund moves money once per key, whatever becomes of its idempotency record', () => {
    const refundPath = (id: string) => `${PAYMENTS}/${id}/refund`;
    const storedPayment = (id: string) => t.db.collection('payments').findOne({ _id: new Types.ObjectId(id) });
    const refundsOf = (id: string) => t.db.collection('refunds').countDocuments({ paymentId: new Types.ObjectId(id) });
    const succeededPayment = async () =>
      (
        await post(
          PAYMENTS,
          { amount: 10, currency: 'usd', customer: await customerWithCard(), confirm: true },
          undefined,
        )
      ).body.id as string;

    it('its answer could not be stored: a retry past the 5-minute lease answers the payment and refunds nothing more', async () => {
      const id = await succeededPayment();
      const key = newKey();
      // Neither the answer nor the mark that it was not stored reaches the database.
      const completing = jest
        .spyOn(t.app.get(IdempotencyStore), 'complete')
        .mockRejectedValueOnce(new Error('the database is away'));
      const clock = jest.spyOn(t.app.get(Clock), 'now');
      try {
        const first = await post(refundPath(id), { amount: 4 }, key, manager.token);
        expect(first.status).toBe(200);
        expect(completing).toHaveBeenCalledTimes(1);
        expect(await records().findOne({ key })).toMatchObject({ state: 'in_progress' });

        clock.mockReturnValue(new Date(Date.now() + 6 * 60 * 1000));
        const retry = await post(refundPath(id), { amount: 4 }, key, manager.token);
        expect(retry.status).toBe(200);
        expect(retry.body).toMatchObject({ id, amountRefunded: 4, status: 'partially_refunded' });
        // With its record gone altogether, another refund under the key is still refused.
        await records().deleteOne({ key });
        expectError(
          await post(refundPath(id), { amount: 5 }, key, manager.token),
          422,
          /already used with a different request/,
        );
      } finally {
        completing.mockRestore();
        clock.mockRestore();
      }
      expect(await storedPayment(id)).toMatchObject({ amountRefundedMinor: 400, status: 'partially_refunded' });
      expect(await refundsOf(id)).toBe(1);
    });

    it('its server stopped after writing the refund and before applying it: the retry applies it once', async () => {
      const id = await succeededPayment();
      const key = newKey();
      const body = { amount: 3 };
      await t.db.collection<{ _id: string; [field: string]: unknown }>('refunds').insertOne({
        _id: `${manager.projectId}:user:${manager.id}:${key}`,
        projectId: new Types.ObjectId(manager.projectId),
        paymentId: new Types.ObjectId(id),
        amountMinor: 300,
        fingerprint: requestFingerprint(fingerprintKey(), 'POST', refundPath(id), body),
        createdAt: new Date(),
      });
      const retry = await post(refundPath(id), body, key, manager.token);
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ amountRefunded: 3, status: 'partially_refunded' });
      await records().deleteOne({ key });
      expect((await post(refundPath(id), body, key, manager.token)).body).toMatchObject({ amountRefunded: 3 });
      expect(await storedPayment(id)).toMatchObject({
        amountRefundedMinor: 300,
        refundIds: [`${manager.projectId}:user:${manager.id}:${key}`],
      });
      expect(await refundsOf(id)).toBe(1);
    });

    it('10 concurrent refunds under one key move money once', async () => {
      const id = await succeededPayment();
      const key = newKey();
      const results = await Promise.all(
        Array.from({ length: 10 }, () => post(refundPath(id), { amount: 2 }, key, manager.token)),
      );
      expect(results.every((res) => res.status === 200 || res.status === 409)).toBe(true);
      expect(await storedPayment(id)).toMatchObject({ amountRefundedMinor: 200 });
      expect(await refundsOf(id)).toBe(1);
    });
  });

  it('a failed request stores nothing, so a retry runs again', async () => {
    const key = newKey();
    const body = { amount: 1, currency: 'usd', customer: '6650c0ffee0000000000dead' };
    const first = await post(PAYMENTS, body, key);
    expectError(first, 400, 'customer does not exist');
    expect(await records().countDocuments({ key })).toBe(0);
    const retry = await post(PAYMENTS, body, key);
    expectError(retry, 400, 'customer does not exist');
    expect(retry.headers.get(REPLAYED)).toBeNull();

    const invalid = await post(PAYMENTS, { amount: 10.005, currency: 'usd', customer: body.customer }, newKey());
    expectError(invalid, 400);
    expect(await records().countDocuments({ state: 'in_progress' })).toBe(0);
  });

  it('a retry while the first request still runs is 409', async () => {
    const customer = await createCustomer();
    const key = newKey();
    const body = { amount: 5, currency: 'usd', customer };
    // The state a concurrent first request leaves while it runs.
    await records().insertOne({
      projectId: new Types.ObjectId(developer.projectId),
      scope: idempotencyScope(`user:${developer.id}`, 'POST', PAYMENTS),
      key,
      fingerprint: requestFingerprint(fingerprintKey(), 'POST', PAYMENTS, body),
      state: 'in_progress',
      statusCode: null,
      responseBody: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    const retry = await post(PAYMENTS, body, key);
    expectError(retry, 409, /still being processed; retry/);
    expect(await paymentsOf(customer)).toBe(0);
    expectError(await post(PAYMENTS, { ...body, amount: 6 }, key), 422);

    // Still in progress after 5 minutes: its server stopped mid-request before it wrote anything,
    // so the key no longer blocks and the request runs.
    await records().updateOne({ key }, { $set: { createdAt: new Date(Date.now() - 6 * 60 * 1000) } });
    const afterStop = await post(PAYMENTS, body, key);
    expect(afterStop.status).toBe(201);
    expect(afterStop.headers.get(REPLAYED)).toBeNull();
    expect(await paymentsOf(customer)).toBe(1);
  });

  it('a request cut off after it created its payment: a retry past the 5-minute lease answers that payment, never a second', async () => {
    const customer = await customerWithCard();
    const key = newKey();
    const body = { amount: 8.5, currency: 'usd', customer, confirm: true };
    const first = await post(PAYMENTS, body, key);
    expect(first.status).toBe(201);
    // Its server stopped after writing the payment and before storing the answer: the record is
    // left in progress, and 5 minutes later it no longer blocks the key.
    const cutOff = () =>
      records().updateOne(
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
    await cutOff();
    const retry = await post(PAYMENTS, body, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get(REPLAYED)).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await paymentsOf(customer)).toBe(1);

    // Once more, with another body under the same key: 422, as while the record lived.
    await cutOff();
    expectError(await post(PAYMENTS, { ...body, amount: 9 }, key), 422, /already used with a different request/);
    // And with the record gone altogether.
    await records().deleteOne({ key });
    const again = await post(PAYMENTS, body, key);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(await paymentsOf(customer)).toBe(1);
  });

  it('a request cut off after it claimed the key but before it wrote the payment: the retry creates it, under the claimed id', async () => {
    const customer = await createCustomer();
    const key = newKey();
    const body = { amount: 4, currency: 'usd', customer };
    const claimed = new Types.ObjectId();
    await paymentKeys().insertOne({
      _id: paymentKeyId(key),
      projectId: new Types.ObjectId(developer.projectId),
      paymentId: claimed,
      fingerprint: requestFingerprint(fingerprintKey(), 'POST', PAYMENTS, body),
      createdAt: new Date(Date.now() - 6 * 60 * 1000),
    });
    const retry = await post(PAYMENTS, body, key);
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(claimed.toHexString());
    expect(await paymentsOf(customer)).toBe(1);
    expect((await post(PAYMENTS, body, key)).headers.get(REPLAYED)).toBe('true');
    expect(await paymentsOf(customer)).toBe(1);
  });

  it('20 concurrent retries with one key create exactly one payment', async () => {
    const customer = await customerWithCard();
    const key = newKey();
    const body = { amount: 99.99, currency: 'eur', customer, confirm: true };
    const results = await Promise.all(Array.from({ length: 20 }, () => post(PAYMENTS, body, key)));

    expect(await paymentsOf(customer)).toBe(1);
    const created = results.filter((res) => res.status === 201);
    const conflicts = results.filter((res) => res.status === 409);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(created.length + conflicts.length).toBe(20);
    expect(new Set(created.map((res) => res.body.id)).size).toBe(1);
    expect(created.filter((res) => res.headers.get(REPLAYED) === null)).toHaveLength(1);
    for (const res of created) expect(res.body).toEqual(created[0].body);
    for (const res of conflicts) expectError(res, 409, /retry/);

    const later = await post(PAYMENTS, body, key);
    expect(later.status).toBe(201);
    expect(later.headers.get(REPLAYED)).toBe('true');
    expect(later.body.id).toBe(created[0].body.id);
  });

  it('a key is forgotten after 24 hours', async () => {
    const customer = await createCustomer();
    const key = newKey();
    const body = { amount: 2, currency: 'usd', customer };
    const first = await post(PAYMENTS, body, key);
    // A day later: the key's record and the payment's copy of the key are both past their 24 hours.
    const dayAgo = new Date(Date.now() - 24 * 3600 * 1000 - 1000);
    await records().updateOne({ key }, { $set: { createdAt: dayAgo } });
    await paymentKeys().updateOne({ _id: paymentKeyId(key) }, { $set: { createdAt: dayAgo } });
    const again = await post(PAYMENTS, body, key);
    expect(again.status).toBe(201);
    expect(again.headers.get(REPLAYED)).toBeNull();
    expect(again.body.id).not.toBe(first.body.id);
    expect(await paymentsOf(customer)).toBe(2);
    expect(await records().countDocuments({ key })).toBe(1);
  });

  it('refuses a key that is empty or longer than 255 characters with 400', async () => {
    const customer = await createCustomer();
    const body = { amount: 1, currency: 'usd', customer };
    expectError(await post(PAYMENTS, body, 'k'.repeat(256)), 400, /Idempotency-Key must be 1 to 255/);
    expectError(await post(PAYMENTS, body, ''), 400, /Idempotency-Key/);
    expect(await paymentsOf(customer)).toBe(0);
    expect((await post(PAYMENTS, body, 'k'.repeat(255))).status).toBe(201);
  });

  it('is ignored on GET and not stored on anonymous routes', async () => {
    const get = await t.http.get(PAYMENTS, { token: developer.token, headers: { 'Idempotency-Key': newKey() } });
    expect(get.status).toBe(200);
    const key = newKey();
    const login = { email: developer.email, password: developer.password };
    const first = await post('/api/v1/login', login, key, '');
    const second = await post('/api/v1/login', login, key, '');
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get(REPLAYED)).toBeNull();
    expect(await records().countDocuments({ key })).toBe(0);
    expectError(await post('/api/v1/login', login, 'k'.repeat(256), ''), 400);
  });

  it('is bound to every POST route, and to no other', () => {
    const posts = postHandlers(t.app.get(DiscoveryService));
    expect(posts.length).toBeGreaterThan(15);
    for (const { name, handler } of posts) {
      expect({
        name,
        guard: guardsOf(handler).includes(IdempotencyGuard),
        filter: filtersOf(handler).includes(IdempotentReplayFilter),
      }).toEqual({ name, guard: true, filter: true });
    }
    let others = 0;
    for (const wrapper of t.app.get(DiscoveryService).getControllers()) {
      const prototype = (wrapper.metatype as { prototype: Record<string, object> }).prototype;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const method =
          typeof prototype[name] === 'function' ? Reflect.getMetadata(METHOD_METADATA, prototype[name]) : undefined;
        if (method === undefined) continue;
        if (method === RequestMethod.POST) {
          expect(posts.some((post) => post.handler === prototype[name])).toBe(true);
          continue;
        }
        others++;
        expect({ name, bound: guardsOf(prototype[name]).includes(IdempotencyGuard) }).toEqual({ name, bound: false });
      }
    }
    expect(others).toBeGreaterThan(15);
  });

  it('is documented on every POST operation', async () => {
    const document = (await t.http.get('/docs-json')).body;
    const posts = Object.values(document.paths as Record<string, { post?: any }>).filter((item) => item.post);
    expect(posts.length).toBeGreaterThan(5);
    for (const item of posts) {
      const parameter = item.post.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key');
      expect(parameter).toMatchObject({ in: 'header', required: false, schema: { maxLength: 255 } });
    }
    const create = document.paths[PAYMENTS].post;
    expect(create.responses['201'].headers['Idempotent-Replayed']).toBeDefined();
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['409', '422']));
  });
});
