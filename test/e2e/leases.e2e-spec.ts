import { setTimeout as sleep } from 'node:timers/promises';
import { Leases } from '../../src/leases/leases.service';
import { createTestApp, TestApp } from '../support/test-app';
import { testDatabaseUri } from '../support/test-database';

/**
 * Background work under a lease (an asset's processing, the events sweep, a refund sweep) may outlast
 * the lease's length: its holder renews it while it runs, so no other instance starts the same work
 * at once; a holder that stops lets it go within that length.
 */
describe('leases held by background work', () => {
  let t: TestApp;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
    // Two instances on one database, as two processes of the service would be.
    a = t;
    b = await createTestApp({ MONGODB_URI: testDatabaseUri(t.db.name) });
  });
  afterAll(async () => {
    await b?.close();
    await t?.close();
  });

  it('work lasting five times its lease, on two instances at once: done once, the other instance refused meanwhile', async () => {
    const holdMs = 400;
    const runs: string[] = [];
    const work = (name: string) => async () => {
      runs.push(`${name}:start`);
      await sleep(holdMs * 5);
      runs.push(`${name}:end`);
      return name;
    };
    const first = a.app.get(Leases).tryWithLease('test-processing:long', holdMs, work('a'));
    const tries: (string | undefined)[] = [];
    // The other instance tries again and again, well past the lease's length.
    for (let i = 0; i < 8; i++) {
      await sleep(holdMs / 2);
      tries.push(await b.app.get(Leases).tryWithLease('test-processing:long', holdMs, work('b')));
    }
    expect(await first).toBe('a');
    expect(tries).toEqual(Array(8).fill(undefined));
    expect(runs).toEqual(['a:start', 'a:end']);
    // Released at the end: the next one takes it at once.
    expect(await b.app.get(Leases).tryWithLease('test-processing:long', holdMs, async () => 'next')).toBe('next');
  });

  it('a holder that stops renewing (its process gone) lets the lease go within its length', async () => {
    const leases = t.db.collection<{ _id: string; holder: string; expiresAt: Date }>('leases');
    await leases.insertOne({ _id: 'test-processing:abandoned', holder: 'a process that died', expiresAt: new Date(Date.now() + 300) });
    expect(await b.app.get(Leases).tryWithLease('test-processing:abandoned', 300, async () => 'too soon')).toBeUndefined();
    await sleep(400);
    expect(await b.app.get(Leases).tryWithLease('test-processing:abandoned', 300, async () => 'taken over')).toBe('taken over');
  });
});
