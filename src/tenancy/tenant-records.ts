import { ConflictException, type Logger } from '@nestjs/common';
import { Types, type AnyKeys, type Model, type mongo, type Require_id, type UpdateQuery } from 'mongoose';
import { Records, toObjectId, type Conditions, type ReadOptions, type UpdateOptions, type WriteResult } from '../database/records';
import { LEGACY_OUTBOX_FIELDS, OUTBOX_FIELDS, type ChangeRecorder, type RecordedWrite } from './recorded-changes';
import { scopeFilter, TENANT_FIELD, type TenantScope } from './tenant-scope';

export class NotTenantOwnedError extends Error {
  constructor(modelName: string) {
    super(`${modelName} is not tenant-owned: apply the tenantOwned plugin to its schema, or read it through Records`);
    this.name = 'NotTenantOwnedError';
  }
}

/**
 * A tenant's records of one model: every operation takes the scope first and filters by the scope's
 * platform project, set last so no condition can replace it (`scopeFilter`). A record of another
 * project is exactly as absent as one that does not exist. The model must be tenant-owned (its
 * schema carries the tenantOwned plugin, which also refuses any Mongoose query without the project:
 * the runtime backstop behind the compile-time `TenantScope`).
 */
/** A write that records an event: its type, and whether the event carries the fields the change replaced. */
export interface RecordedChange {
  event?: string;
  /** Read the record before the write, for the event's `previousAttributes` (updates and refunds). */
  diff?: boolean;
}

export class TenantRecords<T> {
  private readonly records: Records<T>;

  /** `changes`: how this kind of record's events are recorded; without it, a write naming an event is refused. */
  constructor(
    model: Model<T>,
    private readonly changes?: ChangeRecorder<T>,
  ) {
    if (!model.schema.path(TENANT_FIELD)) throw new NotTenantOwnedError(model.modelName);
    this.records = new Records(model);
  }

  find(scope: TenantScope, conditions: Conditions = {}, options: ReadOptions = {}): Promise<T[]> {
    return this.records.find(scopeFilter(scope, conditions), options);
  }

  findOne<Read = T>(scope: TenantScope, conditions: Conditions, options: Pick<ReadOptions, 'fields' | 'include' | 'sort'> = {}): Promise<Read | null> {
    return this.records.findOne<Read>(scopeFilter(scope, conditions), options);
  }

  /** The record with this id in the scope's project (and the conditions); a malformed id is no record. */
  findById<Read = T>(scope: TenantScope, id: string, conditions: Conditions = {}, options: Pick<ReadOptions, 'fields'> = {}): Promise<Read | null> {
    const filter = byId(scope, id, conditions);
    return filter ? this.records.findOne<Read>(filter, options) : Promise.resolve(null);
  }

  exists(scope: TenantScope, conditions: Conditions = {}): Promise<boolean> {
    return this.records.exists(scopeFilter(scope, conditions));
  }

  /** Whether the scope's project holds a record with this id (and the conditions); a malformed id: false. */
  existsById(scope: TenantScope, id: string, conditions: Conditions = {}): Promise<boolean> {
    const filter = byId(scope, id, conditions);
    return filter ? this.records.exists(filter) : Promise.resolve(false);
  }

  count(scope: TenantScope, conditions: Conditions = {}): Promise<number> {
    return this.records.count(scopeFilter(scope, conditions));
  }

  /** Inserts a record into the scope's project, with the events of its creation; returns it as stored. */
  async insert(scope: TenantScope, fields: AnyKeys<T>, events: readonly string[] = []): Promise<Require_id<T>> {
    if (events.length === 0) return this.records.insert({ ...fields, ...scopeFilter(scope) } as AnyKeys<T>);
    const write = this.recorder().begin(scope, events, null);
    let stored: Require_id<T>;
    try {
      stored = await this.records.insert({ ...fields, ...write.outbox, ...scopeFilter(scope) } as AnyKeys<T>);
    } catch (error) {
      write.abandon();
      throw error;
    }
    await write.relay(scope, stored._id as Types.ObjectId, stored);
    return withoutOutbox(stored);
  }

  async updateOne(scope: TenantScope, conditions: Conditions, update: UpdateQuery<T>, options: UpdateOptions & RecordedChange = {}): Promise<WriteResult> {
    const filter = scopeFilter(scope, conditions);
    if (!options.event) return this.records.updateOne(filter, update, options);
    // Through findAndModify: the relay gets the record as the write left it without reading it again.
    const result = await this.recordedWrite(scope, filter, options, async (guarded, write) => {
      const updated = await this.records.updateAndGet(guarded, withOutbox(update, write), options);
      return updated ? { outcome: { matched: 1, modified: 1 }, written: updated } : null;
    });
    return result?.outcome ?? { matched: 0, modified: 0 };
  }

  updateMany(scope: TenantScope, conditions: Conditions, update: UpdateQuery<T>): Promise<WriteResult> {
    return this.records.updateMany(scopeFilter(scope, conditions), update);
  }

  /** Updates one record and answers it as it is after the update; null when none matched. */
  async updateAndGet(scope: TenantScope, conditions: Conditions, update: UpdateQuery<T>, options: UpdateOptions & RecordedChange = {}): Promise<T | null> {
    const filter = scopeFilter(scope, conditions);
    if (!options.event) return this.records.updateAndGet(filter, update, options);
    const result = await this.recordedWrite(scope, filter, options, async (guarded, write) => {
      const updated = await this.records.updateAndGet(guarded, withOutbox(update, write), options);
      return updated ? { outcome: updated, written: updated } : null;
    });
    return result?.outcome ?? null;
  }

  /**
   * Removes one record. With an event, the event is written first with the record as it was, kept
   * pending, then settled by what the delete did: the events module's sweep settles one whose
   * process died in between by whether the record is still there.
   */
  async deleteOne(scope: TenantScope, conditions: Conditions, options: Pick<RecordedChange, 'event'> = {}): Promise<boolean> {
    if (!options.event) return this.records.deleteOne(scopeFilter(scope, conditions));
    const changes = this.recorder();
    const record = await this.records.findOne<T & { _id: Types.ObjectId }>(scopeFilter(scope, conditions), { include: [...OUTBOX_FIELDS] });
    if (!record) return false;
    // Events of the last change that may not be recorded yet would go with the record.
    if (!changes.isRelayed(record)) await changes.relayLeftover(scope, record);
    const intent = await changes.deletion(scope, options.event, withoutOutbox(record));
    const deleted = await this.records.deleteOne(scopeFilter(scope, { ...conditions, _id: record._id }));
    await intent.settle(deleted);
    return deleted;
  }

  deleteMany(scope: TenantScope, conditions: Conditions = {}): Promise<number> {
    return this.records.deleteMany(scopeFilter(scope, conditions));
  }

  /** As `aggregate`, one batch at a time, for results too many to hold at once. */
  aggregateEach<R extends mongo.Document>(scope: TenantScope, conditions: Conditions, pipeline: mongo.Document[]): AsyncIterable<R> {
    return this.records.aggregateEach<R>([{ $match: scopeFilter(scope, conditions) }, ...pipeline]);
  }

  /** Drops records once their `createdAt` is `seconds` old, in every tenant: age alone decides, no tenant is answered. */
  expireByAge(seconds: number, logger: Logger): Promise<() => void> {
    return this.records.expireByAge(seconds, logger);
  }

  /** An aggregation whose first stage matches the scope's project (and the conditions). */
  aggregate<R extends mongo.Document>(scope: TenantScope, conditions: Conditions, pipeline: mongo.Document[]): Promise<R[]> {
    return this.records.aggregate<R>([{ $match: scopeFilter(scope, conditions) }, ...pipeline]);
  }


  /**
   * A change that records its event: the write is guarded so that it replaces the record's outbox
   * only when every event in it is known to be recorded. A record whose outbox may still hold an
   * unrecorded event (written a moment ago by another instance, or by one that stopped) has those
   * events recorded first, and the write is tried again, pinned to the outbox it saw. With `diff`,
   * the record is read first for the event's `previousAttributes`; none there means no change: null.
   * `write` answers null when its guarded filter matched nothing.
   */
  private async recordedWrite<R>(
    scope: TenantScope,
    filter: Conditions,
    change: RecordedChange,
    write: (guarded: Conditions, recorded: RecordedWrite) => Promise<{ outcome: R; written?: unknown } | null>,
  ): Promise<{ outcome: R } | null> {
    const changes = this.recorder();
    let current: (T & { _id: Types.ObjectId }) | null = null;
    if (change.diff) {
      current = await this.records.findOne<T & { _id: Types.ObjectId }>(filter, { include: [...OUTBOX_FIELDS] });
      if (!current) return null;
    }
    const _id = current?._id ?? filter._id;
    if (!(_id instanceof Types.ObjectId)) throw new Error('A recorded change names its record by _id');
    for (let attempt = 0; attempt < MAX_OUTBOX_ATTEMPTS; attempt++) {
      let outboxGuard = changes.relayedOutbox();
      if (current && !changes.isRelayed(current)) {
        await changes.relayLeftover(scope, current);
        outboxGuard = changes.sameOutbox(current);
      }
      const recorded = changes.begin(scope, [change.event!], change.diff && current ? withoutOutbox(current) : null);
      let result: { outcome: R; written?: unknown } | null;
      try {
        result = await write(withCondition({ ...filter, _id }, outboxGuard), recorded);
      } catch (error) {
        recorded.abandon();
        throw error;
      }
      if (result) {
        await recorded.relay(scope, _id, result.written);
        return result;
      }
      recorded.abandon();
      // Nothing matched: no such record, or its outbox was not known to be recorded.
      current = await this.records.findOne<T & { _id: Types.ObjectId }>({ ...filter, _id }, { include: [...OUTBOX_FIELDS] });
      if (!current) return null;
    }
    throw new ConflictException('The record changed while this request was writing it; retry the request');
  }

  private recorder(): ChangeRecorder<T> {
    if (!this.changes) throw new Error(`${this.records.model.modelName} records no events: give its TenantRecords a ChangeRecorder`);
    return this.changes;
  }
}

/** How many times a recorded change re-reads a record whose outbox another write replaced meanwhile. */
const MAX_OUTBOX_ATTEMPTS = 5;

/**
 * The update, plus the change's outbox in the same write (replacing the last one, which the guard
 * proved recorded, in whichever form it was).
 */
function withOutbox<T>(update: UpdateQuery<T>, recorded: RecordedWrite): UpdateQuery<T> {
  const { $set, $unset, ...rest } = update as { $set?: Record<string, unknown>; $unset?: Record<string, unknown> };
  return { ...rest, $set: { ...$set, ...recorded.outbox }, $unset: { ...$unset, ...LEGACY_UNSET } } as UpdateQuery<T>;
}

const LEGACY_UNSET = Object.fromEntries(LEGACY_OUTBOX_FIELDS.map((field) => [field, 1]));

/** The filter with one more condition, beside any `$and` it has. */
function withCondition(filter: Conditions, condition: Conditions): Conditions {
  const { $and, ...rest } = filter as Conditions & { $and?: Conditions[] };
  return { ...rest, $and: [...($and ?? []), condition] };
}

function withoutOutbox<R>(stored: R): R {
  const copy = { ...(stored as Record<string, unknown>) };
  for (const field of OUTBOX_FIELDS) delete copy[field];
  return copy as R;
}

/** The scope's filter for one id; null for a malformed id, which names no record. */
function byId(scope: TenantScope, id: string, conditions: Conditions): Conditions | null {
  const _id = toObjectId(id);
  return _id ? scopeFilter(scope, { ...conditions, _id }) : null;
}
