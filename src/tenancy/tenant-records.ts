import type { Logger } from '@nestjs/common';
import type { AnyKeys, Model, mongo, Require_id, UpdateQuery } from 'mongoose';
import { Records, toObjectId, type Conditions, type ReadOptions, type UpdateOptions, type WriteResult } from '../database/records';
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
export class TenantRecords<T> {
  private readonly records: Records<T>;

  constructor(model: Model<T>) {
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

  /** Inserts a record into the scope's project; returns it as stored. */
  insert(scope: TenantScope, fields: AnyKeys<T>): Promise<Require_id<T>> {
    return this.records.insert({ ...fields, ...scopeFilter(scope) } as AnyKeys<T>);
  }

  updateOne(scope: TenantScope, conditions: Conditions, update: UpdateQuery<T>, options?: UpdateOptions): Promise<WriteResult> {
    return this.records.updateOne(scopeFilter(scope, conditions), update, options);
  }

  updateMany(scope: TenantScope, conditions: Conditions, update: UpdateQuery<T>): Promise<WriteResult> {
    return this.records.updateMany(scopeFilter(scope, conditions), update);
  }

  /** Updates one record and answers it as it is after the update; null when none matched. */
  updateAndGet(scope: TenantScope, conditions: Conditions, update: UpdateQuery<T>, options?: UpdateOptions): Promise<T | null> {
    return this.records.updateAndGet(scopeFilter(scope, conditions), update, options);
  }

  deleteOne(scope: TenantScope, conditions: Conditions): Promise<boolean> {
    return this.records.deleteOne(scopeFilter(scope, conditions));
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
}

/** The scope's filter for one id; null for a malformed id, which names no record. */
function byId(scope: TenantScope, id: string, conditions: Conditions): Conditions | null {
  const _id = toObjectId(id);
  return _id ? scopeFilter(scope, { ...conditions, _id }) : null;
}
