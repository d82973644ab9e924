import { Injectable, type Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Types, type Model } from 'mongoose';
import { Records } from '../database/records';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { ListEventsQuery } from './dto/list-events.query';
import { objectIdOf, type PublishedEvent } from './event-body';
import { EventDeletion, EventSweep, StoredEvent } from './event.schema';

/** The one document of `EventSweep`. */
const SWEEP_MARK = 'records';

/** The events collection: the only code that reads or writes it. */
@Injectable()
export class EventsRepository {
  private readonly records: TenantRecords<StoredEvent>;
  /** Every project's events at once: only for the relay and the sweeps (pending deletes, retention). */
  private readonly everyTenant: Records<StoredEvent>;
  private readonly sweeps: Records<EventSweep>;
  /** Hard deletes' events, one a record: the relay's, across projects, as `everyTenant`. */
  private readonly deletions: Records<EventDeletion>;

  constructor(
    @InjectModel(StoredEvent.name) model: Model<StoredEvent>,
    @InjectModel(EventSweep.name) sweeps: Model<EventSweep>,
    @InjectModel(EventDeletion.name) deletions: Model<EventDeletion>,
  ) {
    this.records = new TenantRecords(model);
    this.everyTenant = new Records(model);
    this.sweeps = new Records(sweeps);
    this.deletions = new Records(deletions);
  }

  /** Until when the last sweep that finished relayed every change; null before the first. */
  async sweptUntil(): Promise<Date | null> {
    return (await this.sweeps.findOne<EventSweep>({ _id: SWEEP_MARK }))?.until ?? null;
  }

  /**
   * A sweep relayed every change before `until`, under the sweep lease's fencing token `fence`. The
   * mark never moves back (a slower sweep finishing later), and never under a token older than the
   * one it was last moved under: a sweeper taken over (paused past its lease, its clock ahead) moves
   * it no more, whatever `until` its clock gave.
   */
  async markSwept(until: Date, fence: number): Promise<void> {
    const fenced = { $or: [{ fence: null }, { fence: { $lte: fence } }] };
    const moved = await this.sweeps.updateOne(
      { _id: SWEEP_MARK, until: { $lt: until }, ...fenced },
      { $set: { until, fence } },
    );
    // Matched nothing: no mark yet (the first sweep), one already past `until`, or a later holder's.
    if (moved.matched === 0) await this.sweeps.insertUnlessExists({ _id: SWEEP_MARK }, { until, fence });
  }

  /** Writes a batch of events in one command; an id already there (a relay that ran twice) is left as it is. */
  async recordMany(events: readonly PublishedEvent[]): Promise<void> {
    await this.everyTenant.insertStored(events.map((event) => stored(event)));
  }

  /** Writes these hard deletes' events, pending, unless their record has one; answers each record's as stored (or none, dropped meanwhile). */
  async claimDeletions(deletions: readonly EventDeletion[]): Promise<Map<string, EventDeletion>> {
    const { inserted } = await this.deletions.insertStored(
      deletions.map((deletion) => ({ ...deletion, unsettled: true })),
    );
    const stored = inserted === deletions.length ? deletions : await this.deletionsOf(deletions.map(({ _id }) => _id));
    return new Map(stored.map((deletion) => [deletion._id, deletion]));
  }

  /** The records' deletion events, as stored. */
  deletionsOf(keys: readonly string[]): Promise<EventDeletion[]> {
    return this.deletions.findByIds<EventDeletion>(keys);
  }

  /**
   * Replaces a record's deletion event that is still `staleEventId`, pending again; whether it did. A
   * listed one is replaced too (a record written again under the id of one deleted): it stays listed.
   */
  async replaceDeletion(staleEventId: string, deletion: EventDeletion): Promise<boolean> {
    const { _id, ...fields } = deletion;
    const { matched } = await this.deletions.updateOne(
      { _id, eventId: staleEventId },
      { $set: { ...fields, unsettled: true } },
    );
    return matched > 0;
  }

  /** Which of these event ids are recorded. */
  async recordedIds(ids: readonly string[]): Promise<Set<string>> {
    const found = await this.everyTenant.findByIds<{ _id: string }>(ids, { fields: ['_id'] });
    return new Set(found.map((event) => event._id));
  }

  /**
   * The id and type of the listed events of every project with an id above `afterId` (all when
   * null), in id order, at most `limit`: the search index's feed reads these, then the bodies it lacks.
   */
  async listedHeadsAfter(afterId: string | null, limit: number): Promise<Array<{ id: string; type: string }>> {
    const found = await this.everyTenant.find(afterId ? { _id: { $gt: afterId } } : {}, {
      sort: { _id: 1 },
      limit,
      fields: ['type'],
    });
    return found.map(({ _id, type }) => ({ id: _id, type }));
  }

  /** The listed events of every project with these ids, in id order. */
  async listedWithIds(ids: readonly string[]): Promise<PublishedEvent[]> {
    if (ids.length === 0) return [];
    const found = await this.everyTenant.find({ _id: { $in: [...ids] } }, { sort: { _id: 1 } });
    return found.map(({ _id, ...event }) => asPublished(_id, event));
  }

  /**
   * Newest first, `limit + 1` listed events after the cursor, of one type, one object and in a time
   * range when asked, of the `types` the caller may read (null: every type).
   */
  page(scope: TenantScope, query: ListEventsQuery, types: readonly string[] | null): Promise<StoredEvent[]> {
    const conditions: Record<string, unknown> = {};
    if (query.startingAfter) conditions._id = { $lt: query.startingAfter };
    if (types) conditions.type = { $in: query.type ? types.filter((type) => type === query.type) : types };
    else if (query.type) conditions.type = query.type;
    if (query.object) conditions.objectId = query.object;
    if (query.createdFrom || query.createdTo) {
      conditions.createdAt = {
        ...(query.createdFrom ? { $gte: query.createdFrom } : {}),
        ...(query.createdTo ? { $lte: query.createdTo } : {}),
      };
    }
    return this.records.find(scope, conditions, { sort: { _id: -1 }, limit: query.limit + 1 });
  }

  /** A listed event of the project, or null. */
  findById(scope: TenantScope, id: string): Promise<StoredEvent | null> {
    return this.records.findOne(scope, { _id: id });
  }

  /** The deletes happened: their events are listed (idempotent: copied by event id, a dropped one written again). */
  async settleDeletions(deletions: readonly EventDeletion[]): Promise<void> {
    if (deletions.length === 0) return;
    await this.recordMany(deletions.map(deletionEvent));
    await this.deletions.updateMany(stillThese(deletions), { $unset: { unsettled: 1 } });
  }

  /** The deletes cannot happen: their events go while pending (a listed one is never removed here). */
  async discard(deletions: readonly EventDeletion[]): Promise<void> {
    if (deletions.length > 0) await this.deletions.deleteMany({ ...stillThese(deletions), unsettled: true });
  }

  /** Pending deletes of every project written before `before`, oldest first. */
  pendingDeletions(before: Date, limit: number): Promise<EventDeletion[]> {
    return this.deletions.find(
      { unsettled: true, createdAt: { $lte: before } },
      { sort: { createdAt: 1 }, limit },
    ) as Promise<EventDeletion[]>;
  }

  /** Drops events, and hard deletes' events, once they are `seconds` old, in every project; stops the sweeps. */
  async expireByAge(seconds: number, logger: Logger): Promise<() => void> {
    const stops = await Promise.all([
      this.everyTenant.expireByAge(seconds, logger),
      this.deletions.expireByAge(seconds, logger),
    ]);
    return () => stops.forEach((stop) => stop());
  }
}

function stored(event: PublishedEvent): Record<string, unknown> {
  return {
    _id: event.id,
    projectId: new Types.ObjectId(event.projectId),
    type: event.type,
    createdAt: event.createdAt,
    body: event.body,
    objectId: objectIdOf(event.body),
  };
}

/** A hard delete's event as listed. */
export function deletionEvent({ eventId, ...deletion }: EventDeletion): PublishedEvent {
  return asPublished(eventId, deletion);
}

function asPublished(
  id: string,
  event: Pick<StoredEvent, 'type' | 'projectId' | 'createdAt' | 'body'>,
): PublishedEvent {
  return { id, type: event.type, projectId: String(event.projectId), createdAt: event.createdAt, body: event.body };
}

/** The records' deletion events while they are still these events. */
function stillThese(deletions: readonly EventDeletion[]) {
  return { _id: { $in: deletions.map(({ _id }) => _id) }, eventId: { $in: deletions.map(({ eventId }) => eventId) } };
}
