import { Injectable, type Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Types, type Model } from 'mongoose';
import { Records } from '../database/records';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { PublishedEvent } from './event-body';
import { EventSweep, StoredEvent, type DeletedRecord, type PendingDeletion } from './event.schema';

export interface EventPageQuery {
  limit: number;
  startingAfter?: string;
  type?: string;
  createdFrom?: Date;
  createdTo?: Date;
}

const LISTED = { deleting: { $exists: false } };
/** The one document of `EventSweep`. */
const SWEEP_MARK = 'records';

/** The events collection: the only code that reads or writes it. */
@Injectable()
export class EventsRepository {
  private readonly records: TenantRecords<StoredEvent>;
  /** Every project's events at once: only for the relay and the sweeps (pending deletes, retention). */
  private readonly everyTenant: Records<StoredEvent>;
  private readonly sweeps: Records<EventSweep>;

  constructor(@InjectModel(StoredEvent.name) model: Model<StoredEvent>, @InjectModel(EventSweep.name) sweeps: Model<EventSweep>) {
    this.records = new TenantRecords(model);
    this.everyTenant = new Records(model);
    this.sweeps = new Records(sweeps);
  }

  /** Until when the last sweep that finished relayed every change; null before the first. */
  async sweptUntil(): Promise<Date | null> {
    return (await this.sweeps.findOne<EventSweep>({ _id: SWEEP_MARK }))?.until ?? null;
  }

  /** A sweep relayed every change before `until`; the mark never moves back (a slower sweep finishing later). */
  async markSwept(until: Date): Promise<void> {
    const moved = await this.sweeps.updateOne({ _id: SWEEP_MARK, until: { $lt: until } }, { $set: { until } });
    // Matched nothing: no mark yet (the first sweep), or one already past `until`.
    if (moved.matched === 0) await this.sweeps.insertUnlessExists({ _id: SWEEP_MARK }, { until });
  }

  /** Writes a batch of events in one command; an id already there (a relay that ran twice) is left as it is. */
  async recordMany(events: readonly PublishedEvent[]): Promise<void> {
    await this.everyTenant.insertStored(events.map((event) => stored(event)));
  }

  /** Writes hard deletes' events, not listed until settled; an id already there is left as it is. */
  async recordPending(events: readonly { event: PublishedEvent; deleting: DeletedRecord }[]): Promise<void> {
    await this.everyTenant.insertStored(events.map(({ event, deleting }) => ({ ...stored(event), deleting, unsettled: true })));
  }

  /** Which of these event ids are recorded (pending deletes included). */
  async recordedIds(ids: readonly string[]): Promise<Set<string>> {
    const found = await this.everyTenant.findByIds<{ _id: string }>(ids, { fields: ['_id'] });
    return new Set(found.map((event) => event._id));
  }

  /** Newest first, `limit + 1` listed events after the cursor, of one type and in a time range when asked. */
  page(scope: TenantScope, query: EventPageQuery): Promise<StoredEvent[]> {
    const conditions: Record<string, unknown> = { ...LISTED };
    if (query.startingAfter) conditions._id = { $lt: query.startingAfter };
    if (query.type) conditions.type = query.type;
    if (query.createdFrom || query.createdTo) {
      conditions.createdAt = { ...(query.createdFrom ? { $gte: query.createdFrom } : {}), ...(query.createdTo ? { $lte: query.createdTo } : {}) };
    }
    return this.records.find(scope, conditions, { sort: { _id: -1 }, limit: query.limit + 1 });
  }

  /** A listed event of the project, or null. */
  findById(scope: TenantScope, id: string): Promise<StoredEvent | null> {
    return this.records.findOne(scope, { _id: id, ...LISTED });
  }

  /** The deletes happened: their events are listed from now on. */
  async settle(projectId: Types.ObjectId, ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.everyTenant.updateMany({ _id: { $in: [...ids] }, projectId }, { $unset: { deleting: 1, unsettled: 1 } });
  }

  /** The deletes did not happen: their events go. Only pending ones: a listed event is never removed here. */
  async discard(projectId: Types.ObjectId, ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.everyTenant.deleteMany({ _id: { $in: [...ids] }, projectId, unsettled: true });
  }

  /** Pending deletes of every project written before `before`, oldest first. */
  pendingDeletions(before: Date, limit: number): Promise<PendingDeletion[]> {
    return this.everyTenant.find({ unsettled: true, createdAt: { $lte: before } }, { sort: { _id: 1 }, limit }) as Promise<PendingDeletion[]>;
  }

  /** Drops events once they are `seconds` old, in every project; stops the sweep. */
  expireByAge(seconds: number, logger: Logger): Promise<() => void> {
    return this.everyTenant.expireByAge(seconds, logger);
  }
}

function stored(event: PublishedEvent): Record<string, unknown> {
  return { _id: event.id, projectId: new Types.ObjectId(event.projectId), type: event.type, createdAt: event.createdAt, body: event.body };
}
