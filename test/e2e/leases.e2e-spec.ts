import { setTimeout as sleep } from 'node:timers/promises';
import { LeasesRepository } from '../../src/leases/leases.repository';
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

  it("a request's change outlasting its lease keeps it: the other instance's change waits, then runs", async () => {
    const holdMs = 300;
    const runs: string[] = [];
    const work = (name: string) => async () => {
      runs.push(`${name}:start`);
      await sleep(name === 'a' ? holdMs * 5 : 10);
      runs.push(`${name}:end`);
      return name;
    };
    const first = a.app.get(Leases).withLease('test-members:long', 'busy', work('a'), holdMs);
    // Well past the lease's length: unrenewed, it would have lapsed and been taken over.
    await sleep(holdMs * 2);
    const second = b.app.get(Leases).withLease('test-members:long', 'busy', work('b'), holdMs);
    expect(await Promise.all([first, second])).toEqual(['a', 'b']);
    expect(runs).toEqual(['a:start', 'a:end', 'b:start', 'b:end']);
  });

  it('a holder that stops renewing (its process gone) lets the lease go within its length', async () => {
    const leases = t.db.collection<{ _id: string; holder: string; expiresAt: Date }>('leases');
    await leases.insertOne({
      _id: 'test-processing:abandoned',
      holder: 'a process that died',
      expiresAt: new Date(Date.now() + 300),
    });
    expect(
      await b.app.get(Leases).tryWithLease('test-processing:abandoned', 300, async () => 'too soon'),
    ).toBeUndefined();
    await sleep(400);
    expect(await b.app.get(Leases).tryWithLease('test-processing:abandoned', 300, async () => 'taken over')).toBe(
      'taken over',
    );
  });

  describe('fenced', () => {
    type LeaseDocument = { _id: string; holder: string; expiresAt: Date; fence?: number };

    it('work lasting five times its lease on two instances: done once, under token 1, the other refused meanwhile', async () => {
      const holdMs = 400;
      const runs: string[] = [];
      const first = a.app.get(Leases).tryWithFencedLease('test-fenced:long', holdMs, async ({ fence }) => {
        runs.push(`a:${fence}`);
        await sleep(holdMs * 5);
        return fence;
      });
      const tries: unknown[] = [];
      for (let i = 0; i < 8; i++) {
        await sleep(holdMs / 2);
        tries.push(
          await b.app
            .get(Leases)
            .tryWithFencedLease('test-fenced:long', holdMs, async ({ fence }) => runs.push(`b:${fence}`)),
        );
      }
      expect(await first).toBe(1);
      expect(tries).toEqual(Array(8).fill(undefined));
      expect(runs).toEqual(['a:1']);
      // Released by expiring: the document and its token stay, and the next holder gets the token after it.
      expect(await b.app.get(Leases).tryWithFencedLease('test-fenced:long', holdMs, async ({ fence }) => fence)).toBe(
        2,
      );
      expect(await t.db.collection<LeaseDocument>('leases').findOne({ _id: 'test-fenced:long' })).toMatchObject({
        fence: 2,
      });
    });

    it('a holder paused past its lease is taken over with a larger token, learns it at its next renewal, and two take-overs of one token never both win', async () => {
      const leases = t.db.collection<LeaseDocument>('leases');
      // A holder whose process stalled: its lease (token 4) expired unrenewed.
      await leases.insertOne({
        _id: 'test-fenced:stalled',
        holder: 'a stalled process',
        expiresAt: new Date(Date.now() - 1),
        fence: 4,
      });
      const taken = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 ? a : b).app.get(Leases).tryWithFencedLease('test-fenced:stalled', 2_000, async ({ fence }) => {
            await sleep(300);
            return fence;
          }),
        ),
      );
      expect(taken.filter((fence) => fence !== undefined)).toEqual([5]);

      // The holder of token 6 is cut off from the database: its renewals fail, and its lease lapses.
      const cutOff = jest
        .spyOn(a.app.get(LeasesRepository), 'extendFenced')
        .mockRejectedValue(new Error('unreachable'));
      let lostSeen = false;
      let release!: () => void;
      const paused = new Promise<void>((done) => (release = done));
      const held = a.app.get(Leases).tryWithFencedLease('test-fenced:stalled', 300, async (hold) => {
        await paused;
        lostSeen = hold.lost;
        return hold.fence;
      });
      await sleep(450);
      const next = await b.app.get(Leases).tryWithFencedLease('test-fenced:stalled', 300, async (hold) => {
        // Reachable again: its next renewal finds another holder.
        cutOff.mockRestore();
        await sleep(400);
        return hold.fence;
      });
      expect(next).toBe(7);
      release();
      expect(await held).toBe(6);
      expect(lostSeen).toBe(true);
      // Only the claim of the last take-over is left beside the lease.
      expect(
        (await leases.find({ _id: { $regex: '^test-fenced:stalled' } } as never).toArray())
          .map((lease) => lease._id)
          .sort(),
      ).toEqual(['test-fenced:stalled', 'test-fenced:stalled#7']);
    });

    it('a take-over whose instance stopped between its claim and the lease leaves nothing stuck', async () => {
      const leases = t.db.collection<LeaseDocument>('leases');
      await leases.insertOne({
        _id: 'test-fenced:half',
        holder: 'gone',
        expiresAt: new Date(Date.now() - 1),
        fence: 2,
      });
      // Its claim of token 3 was written, the lease never moved: the claim lapses as a lease does.
      await leases.insertOne({
        _id: 'test-fenced:half#3',
        holder: 'gone too',
        expiresAt: new Date(Date.now() + 300),
        fence: 3,
      });
      expect(
        await a.app.get(Leases).tryWithFencedLease('test-fenced:half', 300, async ({ fence }) => fence),
      ).toBeUndefined();
      await sleep(400);
      expect(await a.app.get(Leases).tryWithFencedLease('test-fenced:half', 300, async ({ fence }) => fence)).toBe(3);
    });
  });
});
