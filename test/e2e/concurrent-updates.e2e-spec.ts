import { createFirstAdmin, TestUser } from '../support/auth';
import { createTestApp, TestApp } from '../support/test-app';

interface EventBody {
  id: string;
  type: string;
  data: { object: Record<string, unknown>; previousAttributes?: Record<string, unknown> };
}

/**
 * Concurrent updates of one record through the API, as a client sends them: every change answered
 * 200 is in the record and listed once as an event of its own. On FerretDB as shipped (guarded
 * writes not atomic) about half of such changes were answered 200 and lost.
 */
describe('concurrent updates of one customer', () => {
  let t: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await createFirstAdmin(t.http);
  });
  afterAll(() => t.close());

  const CHANGES: Array<[string, (round: number) => unknown]> = [
    ['firstName', (round) => `First ${round}`],
    ['lastName', (round) => `Last ${round}`],
    ['phone', (round) => `+1555000${String(round).padStart(4, '0')}`],
    ['country', () => 'FR'],
    ['balance', (round) => 100 + round],
    ['verified', () => true],
  ];

  async function eventsOf(id: string): Promise<EventBody[]> {
    const res = await t.http.get('/v1/events?limit=100', { token: admin.token });
    expect(res.status).toBe(200);
    return (res.body.data as EventBody[]).filter((event) => event.data.object.id === id);
  }

  it('six concurrent updates of six fields, ten times over: each answered change is stored and listed once', async () => {
    for (let round = 0; round < 10; round++) {
      const created = await t.http.post(
        '/v1/customers',
        { email: `concurrent-${round}@example.com` },
        { token: admin.token },
      );
      expect(created.status).toBe(201);
      const id = created.body.data.id as string;

      const answers = await Promise.all(
        CHANGES.map(([field, value]) =>
          t.http.post(`/v1/customers/${id}`, { [field]: value(round) }, { token: admin.token }),
        ),
      );
      // A change refused as a conflict is fine (the client retries it); one answered 200 must hold.
      expect(answers.map((answer) => answer.status).filter((status) => status !== 200 && status !== 409)).toEqual([]);
      const applied = CHANGES.filter((_, i) => answers[i].status === 200);
      expect(applied.length).toBeGreaterThan(0);

      const stored = await t.http.get(`/v1/customers/${id}`, { token: admin.token });
      expect(stored.status).toBe(200);
      const lost = applied.filter(([field, value]) => stored.body.data[field] !== value(round)).map(([field]) => field);
      expect(lost).toEqual([]);

      const updates = (await eventsOf(id)).filter((event) => event.type === 'customer.updated');
      expect(updates).toHaveLength(applied.length);
      // Each event names the one field its change set, as it was before that change.
      const changedFields = updates
        .map((event) => Object.keys(event.data.previousAttributes ?? {}).filter((key) => key !== 'updatedAt'))
        .sort();
      expect(changedFields).toEqual(applied.map(([field]) => [field]).sort());
      expect(new Set(updates.map((event) => event.id)).size).toBe(updates.length);
    }
  });
});
