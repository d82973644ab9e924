import { Injectable, type Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Types, type Model } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { Records } from '../database/records';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { PublishedEvent } from './event-body';
import { StoredEvent, type DeletedRecord } from './event.schema';

export interface EventPageQuery {
  limit: number;
  startingAfter?: string;
  type?: string;
  createdFrom?: Date;
  createdTo?: Date;
}

/** A recorded event as the relay writes it. */
export interface EventRecord {
  _id: string;
  type: string;
  createdAt: Date;
  body: string;
}

/** Events whose hard delete has not been settled (`deleting`), with what the sweep needs. */
export type UnsettledDeletion = Pick<StoredEvent, '_id' | 'projectId' | 'type' | 'createdAt' | 'body'> & { deleting: DeletedRecord };

const LISTED = { deleting: { $exists: false } };

/** The events collection: the only code that reads or writes it. */
@Injectable()
export class EventsRepository {
  private readonly records: TenantRecords<StoredEvent>;
  /** Every project's events at once: only for the sweeps (unsettled deletes, retention). */
  private readonly everyTenant: Records<StoredEvent>;

  constructor(@InjectModel(StoredEvent.name) model: Model<StoredEvent>) {
    this.records = new TenantRecords(model);
    this.everyTenant = new Records(model);
  }

  /** Writes the event once: an id already there (a relay that ran twice) is left as it is. True when written. */
  async record(projectId: Types.ObjectId, event: EventRecord, deleting?: DeletedRecord): Promise<boolean> {
    try {
      await this.everyTenant.insert({ ...event, projectId, ...(deleting ? { deleting, unsettled: true } : {}) });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /** Writes a batch of events in one command; an id already there (a relay that ran twice) is left as it is. */
  async recordMany(events: readonly PublishedEvent[]): Promise<void> {
    await this.everyTenant.insertStored(
      events.map((event) => ({ _id: event.id, projectId: new Types.ObjectId(event.projectId), type: event.type, createdAt: event.createdAt, body: event.body })),
    );
  }

  /** Which of these event ids are recorded: one read by `_id` each, the filter FerretDB narrows in SQL. */
  async recordedIds(ids: readonly string[]): Promise<Set<string>> {
    const found = await Promise.all(ids.map(async (_id) => ((await this.everyTenant.exists({ _id })) ? _id : null)));
    return new Set(found.filter((id): id is string => id !== null));
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

  /** The delete happened: the event is listed from now on. */
  async settle(projectId: Types.ObjectId, id: string): Promise<void> {
    await this.everyTenant.updateOne({ _id: id, projectId }, { $unset: { deleting: 1, unsettled: 1 } });
  }

  /** The delete did not happen: its event goes. */
  async discard(projectId: Types.ObjectId, id: string): Promise<void> {
    await this.everyTenant.deleteOne({ _id: id, projectId });
  }

  /**
   * Unsettled deletes of every project, oldest first. `withEarlierBuilds` also finds those an earlier
   * build stored without `unsettled`, by reading every event: once per instance is enough.
   */
  unsettledDeletions(limit: number, withEarlierBuilds = false): Promise<UnsettledDeletion[]> {
    const conditions = withEarlierBuilds ? { 'deleting.collection': { $exists: true } } : { unsettled: true };
    return this.everyTenant.find(conditions, { sort: { _id: 1 }, limit }) as Promise<UnsettledDeletion[]>;
  }

  /** Drops events once they are `seconds` old, in every project; stops the sweep. */
  expireByAge(seconds: number, logger: Logger): Promise<() => void> {
    return this.everyTenant.expireByAge(seconds, logger);
  }
}
