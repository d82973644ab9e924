import { createFirstAdmin, TestUser } from '../support/auth';
import { expectError } from '../support/expect-error';
import type { HttpResponse } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

const FUTURE_YEAR = String(new Date().getUTCFullYear() + 3);
const UNKNOWN_ID = '6650c0ffee0000000000ffff';
/** Well under the 5 s a request waits for a held lease before it gives up with 409. */
const AT_ONCE_MS = 2_000;

/**
 * The lease on a customer's default card (`customer-default:<id>`) is taken only after the customer
 * was found in the caller's project: another tenant who knows the id can neither take that lease
 * (and make its owner's card creation wait and fail) nor wait on it.
 */
describe("a customer's default-card lease is taken only in the customer's own project", () => {
  let t: TestApp;
  let ownerA: TestUser;
  let ownerB: TestUser;
  let customerA: string;
  let cardB: string;

  const card = (customer: string | undefined, token: string) =>
    t.http.post('/v1/cards', { ...(customer ? { customer } : {}), cardNumber: '4242424242424242', expMonth: '12', expYear: FUTURE_YEAR, cvc: '123' }, { token });
  const leases = () => t.db.collection<{ _id: string; holder: string; expiresAt: Date }>('leases');
  const leaseKey = (customer: string) => `customer-default:${customer}`;

  /** Runs the request and answers it with how long it took. */
  async function timed(request: Promise<HttpResponse>): Promise<{ res: HttpResponse; ms: number }> {
    const started = Date.now();
    const res = await request;
    return { res, ms: Date.now() - started };
  }

  beforeAll(async () => {
    t = await createTestApp();
    ownerA = await createFirstAdmin(t.http);
    ownerB = await createFirstAdmin(t.http);
    const created = await t.http.post('/v1/customers', { email: 'owner@example.com' }, { token: ownerA.token });
    expect(created.status).toBe(201);
    customerA = created.body.data.id;
    const saved = await card(undefined, ownerB.token);
    expect(saved.status).toBe(201);
    cardB = saved.body.data.id;
  });
  afterAll(() => t.close());

  it("while the owner's change holds the lease, another tenant's requests naming that customer answer at once, as for an unknown id, and leave the lease alone", async () => {
    // A change of A's default card in progress: the lease as its holder wrote it.
    const held = { _id: leaseKey(customerA), holder: 'owner-change-in-progress', expiresAt: new Date(Date.now() + 60_000) };
    await leases().insertOne(held);
    try {
      const foreign: [string, (id: string) => Promise<HttpResponse>, number, string][] = [
        ['clear the default', (id) => t.http.post(`/v1/customers/${id}`, { defaultMethod: null }, { token: ownerB.token }), 404, 'Customer not found'],
        ['set the default', (id) => t.http.post(`/v1/customers/${id}`, { defaultMethod: cardB }, { token: ownerB.token }), 404, 'Customer not found'],
        ['save a card for it', (id) => card(id, ownerB.token), 400, 'customer does not match an existing customer'],
      ];
      for (const [what, call, status, message] of foreign) {
        const { res, ms } = await timed(call(customerA));
        expectError(res, status, message);
        expect({ what, body: res.body }).toEqual({ what, body: (await call(UNKNOWN_ID)).body });
        expect({ what, fast: ms < AT_ONCE_MS }).toEqual({ what, fast: true });
      }
      expect(await leases().findOne({ _id: leaseKey(customerA) })).toEqual(held);

      // The control: the owner's own change does wait on that lease, so the answers above were not
      // fast by chance.
      const own = await timed(t.http.post(`/v1/customers/${customerA}`, { defaultMethod: null }, { token: ownerA.token }));
      expectError(own.res, 409);
      expect(own.ms).toBeGreaterThanOrEqual(AT_ONCE_MS);
    } finally {
      await leases().deleteOne({ _id: leaseKey(customerA) });
    }
    const customer = await t.http.get(`/v1/customers/${customerA}`, { token: ownerA.token });
    expect(customer.body.data.defaultMethod).toBeNull();
  });

  it("another tenant's requests naming the customer write no lease for it; the owner's card creation is not held up", async () => {
    // Ten of B's writes on A's customer at once, then A's first card: no lease of B's may be in its way.
    const attempts = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0 ? t.http.post(`/v1/customers/${customerA}`, { defaultMethod: null }, { token: ownerB.token }) : card(customerA, ownerB.token),
    );
    const leaseSeen = (async () => {
      let seen = false;
      for (let i = 0; i < 20; i++) seen ||= (await leases().findOne({ _id: leaseKey(customerA) })) !== null;
      return seen;
    })();
    const answers = await Promise.all(attempts);
    expect(answers.map((res) => res.status).sort()).toEqual([...Array(5).fill(400), ...Array(5).fill(404)]);
    expect(await leaseSeen).toBe(false);

    const { res, ms } = await timed(card(customerA, ownerA.token));
    expect(res.status).toBe(201);
    expect(res.body.data.isDefault).toBe(true);
    expect(ms).toBeLessThan(AT_ONCE_MS);
  });
});
