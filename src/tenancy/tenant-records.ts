import type { Logger } from '@nestjs/common';
import { Types, type AnyKeys, type Model, type mongo, type Require_id, type UpdateQuery } from 'mongoose';
import { Records, toObjectId, type Conditions, type ReadOptions, type UpdateOptions, type WriteResult } from '../database/records';
import { OUTBOX, OUTBOX_FLAG, type ChangeRecorder, type PendingEvent } from './recorded-changes';
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
    const changes = this.recorder();
    const pending = events.map((type) => changes.pending(scope, type, null));
    const stored = await this.records.insert({ ...fields, [OUTBOX]: pending, [OUTBOX_FLAG]: true, ...scopeFilter(scope) } as AnyKeys<T>);
    await changes.relay(scope, stored._id as Types.ObjectId, stored as T);
    return withoutOutbox(stored);
  }

  async updateOne(scope: TenantScope, conditions: Conditions, update: UpdateQuery<T>, options: UpdateOptions & RecordedChange = {}): Promise<WriteResult> {
    const filter = scopeFilter(scope, conditions);
    if (!options.event) return this.records.updateOne(filter, update, options);
    const recorded = await this.recordedUpdate(scope, filter, update, options);
    if (!recorded) return { matched: 0, modified: 0 };
    const result = await this.records.updateOne(recorded.filter, recorded.update, options);
    if (result.matched > 0) await this.recorder().relay(scope, recorded.filter._id);
    return result;
  }

  updateMany(scope: TenantScope, conditions: Conditions, update: UpdateQuery<T>): Promise<WriteResult> {
    return this.records.updateMany(scopeFilter(scope, conditions), update);
  }

  /** Updates one record and answers it as it is after the update; null when none matched. */
  async updateAndGet(scope: TenantScope, conditions: Conditions, update: UpdateQuery<T>, options: UpdateOptions & RecordedChange = {}): Promise<T | null> {
    const filter = scopeFilter(scope, conditions);
    if (!options.event) return this.records.updateAndGet(filter, update, options);
    const recorded = await this.recordedUpdate(scope, filter, update, options);
    if (!recorded) return null;
    const updated = await this.records.updateAndGet(recorded.filter, recorded.update, { ...options, include: [OUTBOX, OUTBOX_FLAG] });
    if (!updated) return null;
    await this.recorder().relay(scope, recorded.filter._id, updated);
    return withoutOutbox(updated);
  }

  /**
   * Removes one record. With an event, the event is written first with the record as it was, kept
   * pending, then settled by what the delete did: the events module's sweep settles one whose
   * process died in between by whether the record is still there.
   */
  async deleteOne(scope: TenantScope, conditions: Conditions, options: Pick<RecordedChange, 'event'> = {}): Promise<boolean> {
    if (!options.event) return this.records.deleteOne(scopeFilter(scope, conditions));
    const changes = this.recorder();
    const record = await this.records.findOne<T & { _id: Types.ObjectId; [OUTBOX_FLAG]?: boolean }>(scopeFilter(scope, conditions), { include: [OUTBOX_FLAG] });
    if (!record) return false;
    // Events still waiting in the record would go with it.
    if (record[OUTBOX_FLAG]) await changes.relay(scope, record._id);
    const intent = await changes.deletion(scope, options.event, record);
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
   * The update with the change's pending event added to the record's outbox, and a filter naming the
   * record by id (the relay moves that record's outbox). With `diff`, the record is read first for
   * the event's `previousAttributes`; none there means no change: null.
   */
  private async recordedUpdate(
    scope: TenantScope,
    filter: Conditions,
    update: UpdateQuery<T>,
    change: RecordedChange,
  ): Promise<{ filter: Conditions & { _id: Types.ObjectId }; update: UpdateQuery<T> } | null> {
    const changes = this.recorder();
    let before: T | null = null;
    let _id = filter._id;
    if (change.diff) {
      before = await this.records.findOne<T>(filter);
      if (!before) return null;
      _id = (before as unknown as { _id: Types.ObjectId })._id;
    }
    if (!(_id instanceof Types.ObjectId)) throw new Error('A recorded change names its record by _id');
    const pending = changes.pending(scope, change.event!, before);
    return { filter: { ...filter, _id }, update: withOutbox(update, pending) };
  }

  private recorder(): ChangeRecorder<T> {
    if (!this.changes) throw new Error(`${this.records.model.modelName} records no events: give its TenantRecords a ChangeRecorder`);
    return this.changes;
  }
}

/** The update, plus the pending event pushed onto the record's outbox in the same write. */
function withOutbox<T>(update: UpdateQuery<T>, pending: PendingEvent): UpdateQuery<T> {
  const { $push, $set, ...rest } = update as { $push?: Record<string, unknown>; $set?: Record<string, unknown> };
  return { ...rest, $set: { ...$set, [OUTBOX_FLAG]: true }, $push: { ...$push, [OUTBOX]: pending } } as UpdateQuery<T>;
}

function withoutOutbox<R>(stored: R): R {
  const { [OUTBOX]: _pending, [OUTBOX_FLAG]: _flag, ...rest } = stored as Record<string, unknown>;
  return rest as R;
}

/** The scope's filter for one id; null for a malformed id, which names no record. */
function byId(scope: TenantScope, id: string, conditions: Conditions): Conditions | null {
  const _id = toObjectId(id);
  return _id ? scopeFilter(scope, { ...conditions, _id }) : null;
}
