import type { ConfigType } from '@nestjs/config';
import { Types } from 'mongoose';
import type { eventsConfig } from '../config/events.config';
import type { Records } from '../database/records';
import type { JobRunner } from '../jobs/job-runner';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { EventDeletion } from './event.schema';
import { EventRelay } from './event-relay';
import type { EventsRepository } from './events.repository';

describe('the events sweep', () => {
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('goes on from where the last sweep that finished stopped, kept in the database, a minute before it; before any, a day back', async () => {
    jest.useFakeTimers({ now: new Date('2026-11-27T00:00:00Z') });
    const config = {
      retentionDays: 30,
      sweepIntervalMs: 15_000,
      sweepGraceMs: 30_000,
      sweepLookBackMs: 60_000,
      sweepStartLookBackMs: 86_400_000,
    };
    let mark: Date | null = null;
    const fences: number[] = [];
    const events = {
      expireByAge: () => Promise.resolve(() => undefined),
      sweptUntil: () => Promise.resolve(mark),
      markSwept: (until: Date, fence: number) => {
        fences.push(fence);
        return Promise.resolve(void (mark = until));
      },
    };
    const lookBacks: number[] = [];
    const relayOf = () => {
      const relay = new EventRelay(
        events as unknown as EventsRepository,
        config as ConfigType<typeof eventsConfig>,
        {} as JobRunner,
      );
      // What each sweep was asked to read.
      jest.spyOn(relay, 'sweep').mockImplementation((_graceMs, lookBackMs) => {
        lookBacks.push(lookBackMs!);
        return Promise.resolve(null);
      });
      return relay;
    };
    const at = async (relay: EventRelay, time: string, fence: number) => {
      jest.setSystemTime(new Date(time));
      await relay.sweepSinceLast(fence);
    };
    const relay = relayOf();
    await at(relay, '2026-11-27T00:00:15Z', 1);
    await at(relay, '2026-11-27T00:00:30Z', 1);
    // Ten minutes without a sweep (the database unreachable), then one at 00:10:45.
    await at(relay, '2026-11-27T00:10:45Z', 2);
    expect(lookBacks).toEqual([86_400_000, 75_000, 675_000]);
    expect(mark).toEqual(new Date('2026-11-27T00:10:15Z'));
    expect(fences).toEqual([1, 1, 2]);

    // Another instance, sweeping a minute and a quarter later, goes on from that mark: it does not read the day again.
    await at(relayOf(), '2026-11-27T00:12:00Z', 3);
    expect(lookBacks.at(-1)).toBe(75_000 + 60_000);
  });
});

describe("a hard delete's event", () => {
  const config = {
    retentionDays: 30,
    sweepIntervalMs: 0,
    sweepGraceMs: 30_000,
    sweepLookBackMs: 60_000,
    sweepStartLookBackMs: 86_400_000,
  };
  const scope = {
    projectId: new Types.ObjectId().toHexString(),
    origin: { id: 'req_1', idempotencyKey: null },
  } as unknown as TenantScope;

  /** A relay over one collection whose records are `current` and whose stored deletion events are `stored`, by key. */
  function setUp(current: { _id: Types.ObjectId; lastChange: string | null }[], stored: Map<string, EventDeletion>) {
    const events = {
      claimDeletions: jest.fn((wanted: EventDeletion[]) => {
        for (const deletion of wanted) if (!stored.has(deletion._id)) stored.set(deletion._id, deletion);
        return Promise.resolve(new Map(wanted.map((deletion) => [deletion._id, stored.get(deletion._id)!])));
      }),
      deletionsOf: jest.fn((keys: string[]) => Promise.resolve(keys.flatMap((key) => stored.get(key) ?? []))),
      replaceDeletion: jest.fn((staleEventId: string, deletion: EventDeletion) => {
        if (stored.get(deletion._id)?.eventId !== staleEventId) return Promise.resolve(false);
        stored.set(deletion._id, deletion);
        return Promise.resolve(true);
      }),
      settleDeletions: jest.fn(() => Promise.resolve()),
      discard: jest.fn(() => Promise.resolve()),
    };
    const records = { collectionName: 'customers', findByIds: () => Promise.resolve(current) };
    const relay = new EventRelay(
      events as unknown as EventsRepository,
      config as ConfigType<typeof eventsConfig>,
      {} as JobRunner,
    );
    const published: string[] = [];
    relay.subscribe({
      eventsRecorded: (recorded) => Promise.resolve(void published.push(...recorded.map((event) => event.id))),
    });
    const recorder = relay.recorder(records as unknown as Records<{ _id: Types.ObjectId }>, (record) => ({
      id: String(record._id),
    }));
    return {
      events,
      published,
      deletion: (read: typeof current) => recorder.deletion(scope, 'customer.deleted', read as never),
    };
  }
  const claimOf = (id: Types.ObjectId, eventId: string, version: string | null): EventDeletion => ({
    _id: `customers:${String(id)}`,
    projectId: new Types.ObjectId(scope.projectId),
    deleting: { collection: 'customers', id, version },
    eventId,
    type: 'customer.deleted',
    createdAt: new Date(),
    body: '{}',
  });

  it('a retried or concurrent delete of the version another read uses its event: listed under that id', async () => {
    const record = { _id: new Types.ObjectId(), lastChange: 'evt_v' };
    const { published, deletion, events } = setUp(
      [record],
      new Map([[`customers:${String(record._id)}`, claimOf(record._id, 'evt_first', 'evt_v')]]),
    );
    const intent = await deletion([record]);
    expect(intent.holds(String(record._id))).toBe(true);
    await intent.settle({ removed: [String(record._id)] });
    expect(published).toEqual(['evt_first']);
    expect(events.replaceDeletion).not.toHaveBeenCalled();
  });

  it("one naming an older version is replaced while the record is at the version read; this delete's own read being the older, it holds nothing", async () => {
    const record = { _id: new Types.ObjectId(), lastChange: 'evt_w' };
    const key = `customers:${String(record._id)}`;
    const newer = setUp([record], new Map([[key, claimOf(record._id, 'evt_old', 'evt_v')]]));
    const intent = await newer.deletion([record]);
    expect(intent.holds(String(record._id))).toBe(true);
    expect(newer.events.replaceDeletion).toHaveBeenCalledWith(
      'evt_old',
      expect.objectContaining({ deleting: expect.objectContaining({ version: 'evt_w' }) }),
    );

    // Read at evt_v, while the record is at evt_w and a delete of that version holds its event.
    const older = setUp([record], new Map([[key, claimOf(record._id, 'evt_newer', 'evt_w')]]));
    const stale = await older.deletion([{ _id: record._id, lastChange: 'evt_v' }]);
    expect(stale.holds(String(record._id))).toBe(false);
    expect(older.events.replaceDeletion).not.toHaveBeenCalled();
  });

  it("a record read gone is listed only while its event is still this delete's; one there at another version is dropped", async () => {
    const [gone, moved, there] = [new Types.ObjectId(), new Types.ObjectId(), new Types.ObjectId()];
    const stored = new Map<string, EventDeletion>();
    const { published, deletion, events } = setUp([], stored);
    const read = [gone, moved, there].map((_id) => ({ _id, lastChange: `evt_${String(_id)}` }));
    const intent = await deletion(read);
    const heldEvent = (id: Types.ObjectId) => stored.get(`customers:${String(id)}`)!.eventId;
    const goneEvent = heldEvent(gone);
    // Meanwhile a delete of a newer version of `moved` replaced its event (and removed it).
    stored.set(`customers:${String(moved)}`, claimOf(moved, 'evt_newer', 'evt_x'));
    const thereEvent = heldEvent(there);
    await intent.settle({ gone: [String(gone), String(moved)], changed: [String(there)] });
    expect(published).toEqual([goneEvent]);
    expect(events.discard).toHaveBeenCalledWith([expect.objectContaining({ eventId: thereEvent })]);
  });
});
