import { ConflictException, type Logger } from '@nestjs/common';
import { Types, type AnyKeys, type Model, type mongo, type Require_id, type UpdateQuery } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import {
  Records,
  toObjectId,
  type Conditions,
  type ReadOptions,
  type UpdateOptions,
  type WriteResult,
} from '../database/records';
import {
  atVersion,
  LAST_CHANGE,
  madeBy,
  newFence,
  OUTBOX,
  RECORDED_FIELDS,
  UnsettledChange,
  versionOf,
  type ChangeRecorder,
  type PendingEvent,
  type WithOutbox,
} from './recorded-changes';
import type { RecordedEventType } from './recorded-event-types';
import { scopeFilter, TENANT_FIELD, type TenantScope } from './tenant-scope';

export class NotTenantOwnedError extends Error {
  constructor(modelName: string) {
    super(`${modelName} is not tenant-owned: apply the tenantOwned plugin to its schema, or read it through Records`);
    this.name = 'NotTenantOwnedError';
  }
}

/** A write that records an event: its type, and whether the event carries the fields the change replaced. */
export interface RecordedChange {
  event?: RecordedEventType;
  /** The event's `previousAttributes`: the fields of the record, read before the write, that the change replaced. */
  diff?: boolean;
  /**
   * Without an event: a change callers see as another record's event (a channel's list of projects
   * follows the projects' own). The record's version moves on all the same, so that a recorded write
   * that read it before this change does not build its event on the state before it.
   */
  recordedElsewhere?: boolean;
}

/**
 * A tenant's records of one model: every operation takes the scope first and filters by the scope's
 * platform project, set last so no condition can replace it (`scopeFilter`). A record of another
 * project is exactly as absent as one that does not exist. The model must be tenant-owned (its
 * schema carries the tenantOwned plugin, which also refuses any Mongoose query without the project:
 * the runtime backstop behind the compile-time `TenantScope`). A write that names an event follows
 * the outbox's invariant (src/events/events.module.ts) through the model's `ChangeRecorder`.
 */
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

  findOne<Read = T>(
    scope: TenantScope,
    conditions: Conditions,
    options: Pick<ReadOptions, 'fields' | 'include' | 'sort'> = {},
  ): Promise<Read | null> {
    return this.records.findOne<Read>(scopeFilter(scope, conditions), options);
  }

  /** The record with this id in the scope's project (and the conditions); a malformed id is no record. */
  findById<Read = T>(
    scope: TenantScope,
    id: string,
    conditions: Conditions = {},
    options: Pick<ReadOptions, 'fields'> = {},
  ): Promise<Read | null> {
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

  /** Inserts a record into the scope's project, with the events of its creation in its outbox; returns it as stored. */
  async insert(
    scope: TenantScope,
    fields: AnyKeys<T>,
    events: readonly RecordedEventType[] = [],
  ): Promise<Require_id<T>> {
    if (events.length === 0) return this.records.insert({ ...fields, ...scopeFilter(scope) } as AnyKeys<T>);
    const changes = this.recorder();
    const pending = changes.pending(scope, events, null);
    const given = (fields as { _id?: string | Types.ObjectId })._id;
    // The id is known before the write: a write whose answer is lost is settled by reading it.
    const _id = given === undefined ? new Types.ObjectId() : (toObjectId(given) ?? given);
    let stored: Require_id<T>;
    try {
      stored = await this.records.insert({
        ...fields,
        _id,
        [OUTBOX]: pending,
        [LAST_CHANGE]: pending[0].id,
        ...scopeFilter(scope),
      } as AnyKeys<T>);
    } catch (error) {
      stored = (await this.settle(scope, _id, pending, error)) as Require_id<T>;
    }
    await changes.publish(scope, stored as T, pending);
    return withoutOutbox(stored);
  }

  /** Updates one record; with an event, a recorded change (`recordedWrite`). */
  async updateOne(
    scope: TenantScope,
    conditions: Conditions,
    update: UpdateQuery<T>,
    options: UpdateOptions & RecordedChange = {},
  ): Promise<WriteResult> {
    const filter = scopeFilter(scope, conditions);
    if (!options.event)
      return this.records.updateOne(filter, options.recordedElsewhere ? fenced(update) : update, options);
    const written = await this.recordedWrite(scope, filter, update, options);
    return written ? { matched: 1, modified: 1 } : { matched: 0, modified: 0 };
  }

  /** Updates every record that matches; records no event (a mark the service keeps for itself, not a change callers see). */
  updateMany(scope: TenantScope, conditions: Conditions, update: UpdateQuery<T>): Promise<WriteResult> {
    return this.records.updateMany(scopeFilter(scope, conditions), update);
  }

  /** Updates one record and answers it as it is after the update; null when none matched. */
  async updateAndGet(
    scope: TenantScope,
    conditions: Conditions,
    update: UpdateQuery<T>,
    options: UpdateOptions & RecordedChange = {},
  ): Promise<T | null> {
    const filter = scopeFilter(scope, conditions);
    if (!options.event) return this.records.updateAndGet(filter, update, options);
    return this.recordedWrite(scope, filter, update, options);
  }

  /** Removes one record; with an event, as `deleteMany` does, for that record. */
  async deleteOne(
    scope: TenantScope,
    conditions: Conditions,
    options: Pick<RecordedChange, 'event'> = {},
  ): Promise<boolean> {
    if (!options.event) return this.records.deleteOne(scopeFilter(scope, conditions));
    return (await this.recordedDelete(scope, conditions, options.event, 1)) > 0;
  }

  /** Removes the records that match; with an event, each removed record records one (see `recordedDelete`). The number removed. */
  async deleteMany(
    scope: TenantScope,
    conditions: Conditions = {},
    options: Pick<RecordedChange, 'event'> = {},
  ): Promise<number> {
    if (!options.event) return this.records.deleteMany(scopeFilter(scope, conditions));
    let removed = 0;
    for (;;) {
      const batch = await this.recordedDelete(scope, conditions, options.event, DELETE_BATCH);
      removed += batch;
      if (batch === 0) return removed;
    }
  }

  /** As `aggregate`, one batch at a time, for results too many to hold at once. */
  aggregateEach<R extends mongo.Document>(
    scope: TenantScope,
    conditions: Conditions,
    pipeline: mongo.Document[],
  ): AsyncIterable<R> {
    return this.records.aggregateEach<R>([{ $match: scopeFilter(scope, conditions) }, ...pipeline]);
  }

  /** Drops records once their `createdAt` is `seconds` old, in every tenant: age alone decides, no tenant is answered. */
  expireByAge(seconds: number, logger: Logger): Promise<() => void> {
    return this.records.expireByAge(seconds, logger);
  }

  /** An aggregation whose first stage matches the scope's project (and the conditions). */
  aggregate<R extends mongo.Document>(
    scope: TenantScope,
    conditions: Conditions,
    pipeline: mongo.Document[],
  ): Promise<R[]> {
    return this.records.aggregate<R>([{ $match: scopeFilter(scope, conditions) }, ...pipeline]);
  }

  /**
   * A change that records its event, copy before replace (events.module.ts). Matched nothing: the
   * record is gone, no longer meets the conditions, or another write changed its version meanwhile.
   */
  private async recordedWrite(
    scope: TenantScope,
    filter: Conditions,
    update: UpdateQuery<T>,
    change: UpdateOptions & RecordedChange,
  ): Promise<T | null> {
    const changes = this.recorder();
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.records.findOne<WithOutbox<T> & { _id: Types.ObjectId }>(filter, {
        include: RECORDED_FIELDS,
      });
      if (!current) return null;
      await changes.relayOutboxes(scope, [current]);
      // A change that changes nothing did not happen: no event, and `updatedAt` is kept (EVENTS.md).
      if (change.diff && !change.include?.length && setsWhatItHolds(current, update)) return withoutOutbox(current);
      const pending = changes.pending(scope, [change.event!], change.diff ? withoutOutbox(current) : null);
      const guarded = withCondition({ ...filter, _id: current._id }, atVersion(versionOf(current)));
      const { $set, ...rest } = update as { $set?: Record<string, unknown> };
      let written: T | null;
      try {
        written = await this.records.updateAndGet(
          guarded,
          { ...rest, $set: { ...$set, [OUTBOX]: pending, [LAST_CHANGE]: pending[0].id } } as UpdateQuery<T>,
          change,
        );
      } catch (error) {
        written = withoutOutbox(await this.settle(scope, current._id, pending, error));
      }
      if (written) {
        await changes.publish(scope, written, pending);
        return written;
      }
    }
    throw new ConflictException('The record changed while this request was writing it; retry the request');
  }

  /**
   * Up to `limit` records removed, each with its event: their outboxes copied first, each record's
   * event written pending (or the one a retried or concurrent delete of the same version wrote
   * found), the delete guarded on each version read, then each event listed, dropped or left to the sweep
   * by what the delete did (`DeletionOutcome`). A record whose event another delete of a newer
   * version holds is read again.
   */
  private async recordedDelete(
    scope: TenantScope,
    conditions: Conditions,
    event: RecordedEventType,
    limit: number,
  ): Promise<number> {
    const changes = this.recorder();
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const found = (await this.records.find(scopeFilter(scope, conditions), {
        include: RECORDED_FIELDS,
        limit,
      })) as (WithOutbox<T> & { _id: Types.ObjectId })[];
      if (found.length === 0) return 0;
      await changes.relayOutboxes(scope, found);
      const intent = await changes.deletion(scope, event, found);
      const held = found.filter((record) => intent.holds(String(record._id)));
      if (held.length === 0) continue;
      const guards = held.map((record) => ({ _id: record._id, ...atVersion(versionOf(record)) }));
      let removed: number | undefined;
      let lost: unknown;
      try {
        removed = await this.records.deleteMany(scopeFilter(scope, { ...conditions, $or: guards }));
      } catch (error) {
        // Refused, it did not apply; another delete holding these events may still: left to the sweep.
        if (!outcomeUnknown(error)) throw error;
        lost = error;
      }
      if (removed === held.length) {
        await intent.settle({ removed: held.map((record) => String(record._id)) });
        return removed;
      }
      // Fewer removed than held (another delete took some) or the answer lost: what is left is read.
      const read = await this.readBack(scope, held).catch(() => null);
      if (read) await intent.settle(read);
      if (removed === undefined) {
        // Every record read gone was removed, by this delete or by one holding the same events.
        if (read?.gone.length !== held.length) throw lost;
        return held.length;
      }
      if (removed > 0) return removed;
    }
    throw new ConflictException('The records changed while this request was deleting them; retry the request');
  }

  /** Which of `records` no longer exist in the scope's project, and which are there at another version than read. */
  private async readBack(
    scope: TenantScope,
    records: readonly WithOutbox<{ _id: Types.ObjectId }>[],
  ): Promise<{ gone: string[]; changed: string[] }> {
    const left = await this.records.findByIds<WithOutbox<{ _id: Types.ObjectId; projectId: Types.ObjectId }>>(
      records.map((record) => record._id),
      { fields: ['_id', TENANT_FIELD, LAST_CHANGE], include: [LAST_CHANGE] },
    );
    const there = new Map(
      left
        .filter((record) => String(record.projectId) === scope.projectId)
        .map((record) => [String(record._id), record]),
    );
    const gone: string[] = [];
    const changed: string[] = [];
    for (const record of records) {
      const now = there.get(String(record._id));
      if (!now) gone.push(String(record._id));
      else if (versionOf(now) !== versionOf(record)) changed.push(String(record._id));
    }
    return { gone, changed };
  }

  /**
   * A write of `pending` failed. Refused by the database (a duplicate key, a validation error): it
   * did not happen, and the error stands. Any other error leaves its outcome unknown: the record is
   * read, and the write happened when the record is at the write's version (its first event's id);
   * else the error stands, and the events are not lost should the write still land, since they are
   * in its outbox. A read that fails too leaves the write to the relay, which reads it again until
   * the database answers (`UnsettledChange`: the request's `Idempotency-Key` is settled by what it finds).
   */
  private async settle(
    scope: TenantScope,
    _id: unknown,
    pending: readonly PendingEvent[],
    error: unknown,
  ): Promise<WithOutbox<T>> {
    if (!outcomeUnknown(error)) throw error;
    let record: WithOutbox<T> | null;
    try {
      record = await this.records.findOne<WithOutbox<T>>(scopeFilter(scope, { _id }), { include: RECORDED_FIELDS });
    } catch {
      throw new UnsettledChange(this.recorder().settleLater(scope, _id, pending[0].id), error);
    }
    if (record && madeBy(record, pending[0].id)) return record;
    throw error;
  }

  private recorder(): ChangeRecorder<T> {
    if (!this.changes)
      throw new Error(`${this.records.model.modelName} records no events: give its TenantRecords a ChangeRecorder`);
    return this.changes;
  }
}

/** How many times a recorded write reads a record again that another write changed meanwhile. */
const MAX_ATTEMPTS = 5;
/** How many records a recorded `deleteMany` reads and removes at a time. */
const DELETE_BATCH = 100;

/** Errors with which the database refused a write: it did not happen. Any other leaves the outcome unknown. */
const REFUSALS = new Set(['ValidationError', 'ValidatorError', 'CastError', 'StrictModeError', 'ObjectParameterError']);

function outcomeUnknown(error: unknown): boolean {
  return !isDuplicateKey(error) && !REFUSALS.has((error as Error | null)?.name ?? '');
}

/** The update, moving the record's version on to a fence's. */
function fenced<T>(update: UpdateQuery<T>): UpdateQuery<T> {
  const { $set, ...rest } = update as { $set?: Record<string, unknown> };
  return { ...rest, $set: { ...$set, [LAST_CHANGE]: newFence() } } as UpdateQuery<T>;
}

/** The filter with one more condition, beside any `$and` it has. */
function withCondition(filter: Conditions, condition: Conditions): Conditions {
  const { $and, ...rest } = filter as Conditions & { $and?: Conditions[] };
  return { ...rest, $and: [...($and ?? []), condition] };
}

/**
 * Whether `update` only sets top-level fields to the values `current` already holds, compared as
 * their JSON (an id as its hex, a date as its ISO string). Anything else (another operator, a
 * dotted path, a value written in another form, an order of keys) counts as a change.
 */
export function setsWhatItHolds(current: object, update: UpdateQuery<unknown>): boolean {
  const { $set, ...rest } = update as { $set?: Record<string, unknown> };
  if (Object.keys(rest).length > 0 || !$set) return false;
  const held = current as Record<string, unknown>;
  return Object.entries($set).every(
    ([path, value]) =>
      !path.includes('.') &&
      path !== 'updatedAt' &&
      path in held &&
      JSON.stringify(held[path]) === JSON.stringify(value),
  );
}

function withoutOutbox<R>(stored: R): R {
  const copy = { ...(stored as Record<string, unknown>) };
  for (const field of RECORDED_FIELDS) delete copy[field];
  return copy as R;
}

/** The scope's filter for one id; null for a malformed id, which names no record. */
function byId(scope: TenantScope, id: string, conditions: Conditions): Conditions | null {
  const _id = toObjectId(id);
  return _id ? scopeFilter(scope, { ...conditions, _id }) : null;
}
