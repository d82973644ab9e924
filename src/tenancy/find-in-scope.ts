import { Model, Types } from 'mongoose';
import { findLean, findOneLean, type LeanReadOptions } from '../common/database/lean-read';
import { isValidObjectId } from '../common/pipes/object-id';
import { TENANT_FIELD, type TenantScope } from './tenant-scope';

/** Conditions beside the id, on fields stored as given (no casting happens here): `{ deletedAt: null }`. */
export type StoredFieldConditions = Readonly<Record<string, string | number | boolean | null | Types.ObjectId>>;

/**
 * One tenant-owned record by id, in the scope's project: the document a lean
 * `findOne(inScope(scope, { _id: id, ...conditions })).lean()` gives, read straight from the
 * collection (`findOneLean`), without Mongoose's query building, casting and middleware (about 40 µs,
 * a tenth of the CPU of a small read such as GET /channels/:id). The project is part of the filter by
 * construction, which is the backstop the tenantOwned plugin gives Mongoose queries. A malformed id
 * is no record.
 */
export function findOneInScope<T>(model: Model<T>, scope: TenantScope, id: string, conditions: StoredFieldConditions = {}): Promise<T | null> {
  const filter = scopedById(scope, id, conditions);
  return filter ? findOneLean(model, filter) : Promise.resolve(null);
}

/**
 * Whether the scope's project holds a record with this id (and the conditions): `Model.exists` read
 * straight from the collection, only the `_id` sent back. A malformed id is no record.
 */
export async function existsInScope<T>(model: Model<T>, scope: TenantScope, id: string, conditions: StoredFieldConditions = {}): Promise<boolean> {
  const filter = scopedById(scope, id, conditions);
  return filter !== null && (await model.collection.findOne(filter, { projection: { _id: 1 } })) !== null;
}

/** The scope's filter for one id and the conditions; null for a malformed id, which names no record. */
function scopedById(scope: TenantScope, id: string, conditions: StoredFieldConditions): Record<string, unknown> | null {
  return isValidObjectId(id) ? scoped(scope, { _id: new Types.ObjectId(id), ...conditions }) : null;
}

/** The scope's filter over stored fields: the conditions, and the project, last, so no condition can replace it. */
function scoped(scope: TenantScope, conditions: StoredFieldConditions): Record<string, unknown> {
  return { ...conditions, [TENANT_FIELD]: new Types.ObjectId(scope.projectId) };
}

/**
 * The scope's records matching `conditions`, as a lean `find(inScope(scope, conditions))` gives them,
 * read straight from the collection (`findLean`), the project in the filter by construction.
 */
export function findInScope<T>(model: Model<T>, scope: TenantScope, conditions: StoredFieldConditions, options: LeanReadOptions = {}): Promise<T[]> {
  return findLean(model, scoped(scope, conditions), options);
}

/** How many of the scope's records match `conditions` (see `findInScope`). */
export function countInScope<T>(model: Model<T>, scope: TenantScope, conditions: StoredFieldConditions): Promise<number> {
  return model.collection.countDocuments(scoped(scope, conditions));
}
