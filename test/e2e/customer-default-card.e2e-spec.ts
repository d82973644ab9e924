import { createFirstAdmin, TestUser } from '../support/auth';
import { expectError } from '../support/expect-error';
import type { HttpResponse } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

const FUTURE_YEAR = String(new Date().getUTCFullYear() + 3);
const UNKNOWN_ID = '6650c0ffee0000000000ffff';

/**
 * A customer's default card changes by guarded single-document writes (set only while unset, clear
 * only while it is still that card), which the database applies atomically: no lease, so nothing
 * another tenant does can hold up the owner's writes, and nothing names the customer outside its
 * project.
 */
describe("a customer's default card, written only in the customer's own project", () => {
  let t: TestApp;
  let ownerA: TestUser;
  let ownerB: TestUser;
  let customerA: string;
  let cardB: string;

  const card = (customer: string | undefined, token: string) =>
    t.http.post(
      '/v1/cards',
      {
        ...(customer ? { customer } : {}),
        cardNumber: '4242424242424242',
        expMonth: '12',
        expYear: FUTURE_YEAR,
        cvc: '123',
      },
      { token },
    );

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

  it("another tenant's requests naming the customer answer as for an unknown id and change nothing", async () => {
    const foreign: [string, (id: string) => Promise<HttpResponse>, number, string][] = [
      [
        'clear the default',
        (id) => t.http.post(`/v1/customers/${id}`, { defaultMethod: null }, { token: ownerB.token }),
        404,
        'Customer not found',
      ],
      [
        'set the default',
        (id) => t.http.post(`/v1/customers/${id}`, { defaultMethod: cardB }, { token: ownerB.token }),
        404,
        'Customer not found',
      ],
      ['save a card for it', (id) => card(id, ownerB.token), 400, 'customer does not match an existing customer'],
    ];
    for (const [what, call, status, message] of foreign) {
      const res = await call(customerA);
      expectError(res, status, message);
      expect({ what, body: res.body }).toEqual({ what, body: (await call(UNKNOWN_ID)).body });
    }
    const customer = await t.http.get(`/v1/customers/${customerA}`, { token: ownerA.token });
    expect(customer.body.data.defaultMethod).toBeNull();
  });

  it("ten of another tenant's writes at once, then the owner's first card: it becomes the default", async () => {
    const attempts = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0
        ? t.http.post(`/v1/customers/${customerA}`, { defaultMethod: null }, { token: ownerB.token })
        : card(customerA, ownerB.token),
    );
    const answers = await Promise.all([...attempts, card(customerA, ownerA.token)]);
    const own = answers.pop()!;
    expect(answers.map((res) => res.status).sort()).toEqual([...Array(5).fill(400), ...Array(5).fill(404)]);
    expect(own.status).toBe(201);
    expect(own.body.data.isDefault).toBe(true);
    const customer = await t.http.get(`/v1/customers/${customerA}`, { token: ownerA.token });
    expect(customer.body.data.defaultMethod).toBe(own.body.data.id);
  });

  it('concurrent default changes and clears of one customer leave one default that names one of its cards', async () => {
    const created = await t.http.post('/v1/customers', { email: 'many@example.com' }, { token: ownerA.token });
    const customer = created.body.data.id as string;
    const cards: string[] = [];
    for (let i = 0; i < 4; i++) cards.push((await card(customer, ownerA.token)).body.data.id);
    await Promise.all(
      cards.flatMap((id) => [
        t.http.post(`/v1/cards/${id}/default`, undefined, { token: ownerA.token }),
        t.http.post(`/v1/customers/${customer}`, { defaultMethod: id }, { token: ownerA.token }),
      ]),
    );
    const stored = await t.http.get(`/v1/customers/${customer}`, { token: ownerA.token });
    expect(cards).toContain(stored.body.data.defaultMethod);
    const listed = await t.http.get(`/v1/cards?customer=${customer}`, { token: ownerA.token });
    expect(
      listed.body.data.filter((c: { isDefault: boolean }) => c.isDefault).map((c: { id: string }) => c.id),
    ).toEqual([stored.body.data.defaultMethod]);
  });
});
