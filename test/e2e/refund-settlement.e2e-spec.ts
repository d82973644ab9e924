import { Types } from 'mongoose';
import { AuditEntriesRepository } from '../../src/audit/audit-entries.repository';
import { AuditIntentsRepository } from '../../src/audit/audit-intents.repository';
import { AuditTrail } from '../../src/audit/audit-trail';
import { EventRelay } from '../../src/events/event-relay';
import { PaymentsRepository } from '../../src/payments/payments.repository';
import { PaymentsService } from '../../src/payments/payments.service';
import { createFirstAdmin, TestUser } from '../support/auth';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Refunds whose request stopped part-way: what the payment says, what the events say and what the
 * audit log says agree once the sweeps have run, and each refund is counted once. A stop is injected
 * by making one write fail (and, for a stop before the request could clean up, the removal of its
 * audit intent too), as a process dying at that point would leave the database.
 */
describe('refunds that settle', () => {
  let t: TestApp;
  let admin: TestUser;
  let trail: AuditTrail;
  let payments: PaymentsService;
  const stopped = () => Promise.reject(new Error('process stopped here'));

  beforeAll(async () => {
    t = await createTestApp();
    admin = await createFirstAdmin(t.http);
    trail = t.app.get(AuditTrail);
    payments = t.app.get(PaymentsService);
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const as = () => ({ token: admin.token });

  async function succeededPayment(amount: number): Promise<string> {
    const customer = (
      await t.http.post('/v1/customers', { email: `r.${new Types.ObjectId().toHexString()}@example.com` }, as())
    ).body.data.id;
    await t.http.post(
      '/v1/cards',
      { customer, cardNumber: '4242424242424242', expMonth: '12', expYear: '2035', cvc: '123' },
      as(),
    );
    const created = await t.http.post('/api/v1/payments', { amount, currency: 'usd', customer, confirm: true }, as());
    expect(created.body.status).toBe('succeeded');
    return created.body.id;
  }

  const refund = (id: string, body: unknown, key?: string) =>
    t.http.post(`/api/v1/payments/${id}/refund`, body, {
      token: admin.token,
      headers: key ? { 'idempotency-key': key } : {},
    });
  const payment = async (id: string) => (await t.http.get(`/api/v1/payments/${id}`, as())).body;

  async function refundEntries(id: string) {
    const res = await t.http.get(
      `/api/v1/accounts/${admin.accountId}/audit-log?action=payment.refunded&limit=100`,
      as(),
    );
    expect(res.status).toBe(200);
    return (res.body.data as { target: { id: string } }[]).filter((entry) => entry.target.id === id);
  }

  async function refundEvents(id: string) {
    await t.app.get(EventRelay).sweep(0);
    const res = await t.http.get('/v1/events?type=payment.refunded&limit=100', as());
    expect(res.status).toBe(200);
    return (res.body.data as { data: { object: { id: string; amountRefunded: number } } }[]).filter(
      (event) => event.data.object.id === id,
    );
  }

  /** Moves a key kept in progress (by a 5xx) past its lease, as 5 minutes would. */
  async function lapseKey(key: string): Promise<void> {
    const moved = await t.db
      .collection('idempotency_keys')
      .updateOne({ key, state: 'in_progress' }, { $set: { createdAt: new Date(Date.now() - 6 * 60 * 1000) } });
    expect(moved.matchedCount).toBe(1);
  }

  /** Both sweeps, twice: a second round must change nothing. */
  async function sweepTwice(): Promise<void> {
    for (let round = 0; round < 2; round++) {
      await payments.settleLeftRefunds(0);
      await trail.sweep(0);
    }
  }

  /** The request stops once its refund record is written: the payment is not touched, nor is the audit intent removed. */
  function stopAfterTheRefundRecord(): void {
    jest.spyOn(PaymentsRepository.prototype, 'applyRefund').mockImplementationOnce(stopped);
    jest.spyOn(AuditIntentsRepository.prototype, 'remove').mockImplementationOnce(stopped);
  }

  it('a refund without a key, stopped before its entry, is logged by the sweep, once (its id is stored as a string)', async () => {
    const id = await succeededPayment(10);
    jest.spyOn(AuditEntriesRepository.prototype, 'insert').mockImplementationOnce(stopped);
    expect((await refund(id, { amount: 4 })).status).toBe(200);
    expect(await refundEntries(id)).toHaveLength(0);

    await sweepTwice();
    expect(await refundEntries(id)).toHaveLength(1);
    expect(await refundEvents(id)).toHaveLength(1);
    expect(await payment(id)).toMatchObject({ status: 'partially_refunded', amountRefunded: 4 });
  });

  it('a keyed refund stopped after its record is written is not logged while the payment does not list it; the sweep applies it, with one event and one entry', async () => {
    const id = await succeededPayment(10);
    stopAfterTheRefundRecord();
    expect((await refund(id, { amount: 6 }, `stopped-${id}`)).status).toBeGreaterThanOrEqual(500);
    expect(await payment(id)).toMatchObject({ status: 'succeeded', amountRefunded: 0 });
    expect(await t.db.collection('refunds').findOne({ paymentId: new Types.ObjectId(id) })).toMatchObject({
      status: 'pending',
      amountMinor: 600,
    });

    // The audit sweep alone does not judge the refund while its record is pending.
    await trail.sweep(0);
    expect(await refundEntries(id)).toHaveLength(0);
    expect(await t.db.collection('audit_intents').countDocuments({ 'draft.target.id': id })).toBe(1);

    await sweepTwice();
    expect(await payment(id)).toMatchObject({ status: 'partially_refunded', amountRefunded: 6 });
    expect(await t.db.collection('refunds').findOne({ paymentId: new Types.ObjectId(id) })).toMatchObject({
      status: 'applied',
    });
    expect(await refundEntries(id)).toHaveLength(1);
    const events = await refundEvents(id);
    expect(events).toHaveLength(1);
    expect(events[0].data.object.amountRefunded).toBe(6);
    expect(await t.db.collection('audit_intents').countDocuments({ 'draft.target.id': id })).toBe(0);

    // The 5xx kept its key in progress: a retry is 409 until the key's lease lapses; then it answers
    // the payment as the sweep left it, and counts nothing twice.
    expect((await refund(id, { amount: 6 }, `stopped-${id}`)).status).toBe(409);
    await lapseKey(`stopped-${id}`);
    expect((await refund(id, { amount: 6 }, `stopped-${id}`)).body).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: 6,
    });
    await sweepTwice();
    expect(await refundEntries(id)).toHaveLength(1);
    expect(await refundEvents(id)).toHaveLength(1);
  });

  it('sweeps running at once (every instance runs one) apply a stopped refund once', async () => {
    const id = await succeededPayment(10);
    stopAfterTheRefundRecord();
    expect((await refund(id, { amount: 2 }, `raced-${id}`)).status).toBeGreaterThanOrEqual(500);
    await Promise.all(Array.from({ length: 4 }, () => payments.settleLeftRefunds(0)));
    await Promise.all(Array.from({ length: 4 }, () => trail.sweep(0)));
    await sweepTwice();
    expect(await payment(id)).toMatchObject({ status: 'partially_refunded', amountRefunded: 2 });
    expect(await refundEntries(id)).toHaveLength(1);
    expect(await refundEvents(id)).toHaveLength(1);
    expect((await t.http.get(`/api/v1/accounts/${admin.accountId}/audit-log/verify`, as())).body.valid).toBe(true);
  });

  it('a keyed refund the payment can no longer take by the time the sweep comes is voided: no event, no entry', async () => {
    const id = await succeededPayment(10);
    stopAfterTheRefundRecord();
    expect((await refund(id, { amount: 6 }, `voided-${id}`)).status).toBeGreaterThanOrEqual(500);
    // Meanwhile the whole payment is refunded by another request.
    expect((await refund(id, {})).body).toMatchObject({ status: 'refunded', amountRefunded: 10 });

    await sweepTwice();
    const stored = await t.db
      .collection('refunds')
      .find({ paymentId: new Types.ObjectId(id) })
      .toArray();
    expect(stored.map((record) => [record.amountMinor, record.status]).sort()).toEqual([
      [1000, 'applied'],
      [600, 'voided'],
    ]);
    expect(await payment(id)).toMatchObject({ status: 'refunded', amountRefunded: 10 });
    expect(await refundEntries(id)).toHaveLength(1);
    expect(await refundEvents(id)).toHaveLength(1);
    // Its retry, once the key the 5xx kept has lapsed, learns that it was voided.
    await lapseKey(`voided-${id}`);
    const retried = await refund(id, { amount: 6 }, `voided-${id}`);
    expect({ status: retried.status, message: retried.body.message }).toEqual({
      status: 409,
      message: expect.stringMatching(/voided/),
    });
  });

  it('a confirmation is one write: stopped before it, the payment is still confirmable and nothing is recorded; the next one charges once', async () => {
    const customer = (
      await t.http.post('/v1/customers', { email: `c.${new Types.ObjectId().toHexString()}@example.com` }, as())
    ).body.data.id;
    await t.http.post(
      '/v1/cards',
      { customer, cardNumber: '4242424242424242', expMonth: '12', expYear: '2035', cvc: '123' },
      as(),
    );
    const id = (await t.http.post('/api/v1/payments', { amount: 5, currency: 'usd', customer }, as())).body.id;
    jest.spyOn(PaymentsRepository.prototype, 'applyCharge').mockImplementationOnce(stopped);
    expect((await t.http.post(`/api/v1/payments/${id}/confirm`, {}, as())).status).toBeGreaterThanOrEqual(500);
    await sweepTwice();
    expect(await payment(id)).toMatchObject({ status: 'requires_confirmation' });
    const succeeded = async () => {
      await t.app.get(EventRelay).sweep(0);
      const res = await t.http.get('/v1/events?type=payment.succeeded&limit=100', as());
      return (res.body.data as { data: { object: { id: string } } }[]).filter((event) => event.data.object.id === id);
    };
    expect(await succeeded()).toHaveLength(0);

    expect((await t.http.post(`/api/v1/payments/${id}/confirm`, {}, as())).body).toMatchObject({ status: 'succeeded' });
    await sweepTwice();
    expect(await succeeded()).toHaveLength(1);
  });

  it('a keyed refund run again after its idempotency record was dropped makes no second entry', async () => {
    const id = await succeededPayment(10);
    const key = `twice-${id}`;
    expect((await refund(id, { amount: 3 }, key)).status).toBe(200);
    // As after the idempotency record of the first run was lost: the service runs the request again.
    await t.db.collection('idempotency_keys').deleteMany({});
    const again = await refund(id, { amount: 3 }, key);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ amountRefunded: 3 });
    await sweepTwice();
    expect(await refundEntries(id)).toHaveLength(1);
    expect(await refundEvents(id)).toHaveLength(1);
  });
});
