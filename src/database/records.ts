import {
  isObjectIdOrHexString,
  trusted,
  Types,
  type AnyKeys,
  type Model,
  type mongo,
  type Require_id,
  type Schema,
  type UpdateQuery,
} from 'mongoose';
import type { Logger } from '@nestjs/common';
import { insertDocument } from './insert-document';
import { expireByAge } from './expire-by-age';
import { looksUpIdsOneByOne } from './ferretdb';
import { isValidObjectId } from '../common/pipes/object-id';

/**
 * Conditions on stored fields, written by a repository (never a request's raw object): values are
 * compared as stored, so ids are ObjectIds, and an operator object (`{ $lt: id }`) is taken as an
 * operator. Reads send them to the collection as written; writes go through Mongoose, whose global
 * `sanitizeFilter` would neutralise those operators, so `Records` marks them trusted there.
 */
export type Conditions = Record<string, unknown>;

export interface ReadOptions {
  sort?: Record<string, 1 | -1>;
  skip?: number;
  limit?: number;
  /** Only these fields (and `_id`); hidden fields stay hidden whatever is asked. */
  fields?: readonly string[];
  /** Hidden paths (`select: false`) this read needs after all, as Mongoose's `select('+path')`. */
  include?: readonly string[];
}

export interface UpdateOptions {
  /** Run the schema's validators on the update, as `runValidators` does. */
  validate?: boolean;
  /** Hidden paths the updated record is answered with after all (`updateAndGet`). */
  include?: readonly string[];
  /** Leave `updatedAt` as it is: a write of bookkeeping (an endpoint's failure clock, the events sweep's fence), not of the record's fields. */
  keepTimestamps?: boolean;
}

export interface WriteResult {
  matched: number;
  modified: number;
}

/**
 * The one way to a collection, underneath every repository: a lean read straight from the
 * collection (no query building, casting or middleware; fields the schema hides stay out), one
 * existence check, one insert path (the schema's casting, defaults and validation), and updates and
 * deletes through the model (casting and validators). Repositories hold one per model and give its
 * operations intention-revealing names; nothing else touches a model or a collection.
 *
 * `Records` filters as it is told: it is for account-level data (users, accounts, memberships...).
 * A tenant's records go through `TenantRecords` (src/tenancy), which puts the scope in every filter.
 */
export class Records<T> {
  private readonly hidden: Record<string, 0> | undefined;
  private readonly projections = new Map<string, mongo.Document>();

  constructor(readonly model: Model<T>) {
    this.hidden = hiddenFields(model.schema);
  }

  get collectionName(): string {
    return this.model.collection.collectionName;
  }

  find(filter: Conditions, options: ReadOptions = {}): Promise<T[]> {
    const { fields, include, ...cursor } = options;
    return this.model.collection
      .find(filter, { ...cursor, projection: this.projection(fields, include) })
      .toArray() as Promise<T[]>;
  }

  findOne<Read = T>(
    filter: Conditions,
    options: Pick<ReadOptions, 'fields' | 'include' | 'sort'> = {},
  ): Promise<Read | null> {
    return this.model.collection.findOne<Read>(filter, {
      sort: options.sort,
      projection: this.projection(options.fields, options.include),
    });
  }

  /**
   * Every document matching, in `_id` order, `batch` at a time: for the few readers of every
   * tenant's records at once (rebuilding the search index), which must not hold them all.
   */
  async *eachInIdOrder(filter: Conditions, batch: number): AsyncGenerator<T & { _id: Types.ObjectId }> {
    let after: Types.ObjectId | undefined;
    for (;;) {
      const found = (await this.find(after ? { ...filter, _id: { $gt: after } } : filter, {
        sort: { _id: 1 },
        limit: batch,
      })) as Array<T & { _id: Types.ObjectId }>;
      yield* found;
      if (found.length < batch) return;
      after = found[found.length - 1]._id;
    }
  }

  /** One document by id; a malformed id is no document. */
  findById<Read = T>(
    id: string | Types.ObjectId,
    options: Pick<ReadOptions, 'fields' | 'include'> = {},
  ): Promise<Read | null> {
    const _id = toObjectId(id);
    return _id ? this.findOne<Read>({ _id }, options) : Promise.resolve(null);
  }

  async exists(filter: Conditions): Promise<boolean> {
    return (await this.model.collection.findOne(filter, { projection: { _id: 1 } })) !== null;
  }

  count(filter: Conditions): Promise<number> {
    return this.model.collection.countDocuments(filter);
  }

  /** Inserts one document as the schema makes it (casting, defaults, validation, timestamps); returns it as stored. */
  insert(fields: AnyKeys<T>): Promise<Require_id<T>> {
    return insertDocument(this.model, fields);
  }

  async updateOne(filter: Conditions, update: UpdateQuery<T>, options: UpdateOptions = {}): Promise<WriteResult> {
    const result = await this.model
      .updateOne(trustedFilter(filter), update, {
        runValidators: options.validate ?? false,
        timestamps: !options.keepTimestamps,
      })
      .exec();
    return { matched: result.matchedCount, modified: result.modifiedCount };
  }

  /**
   * Inserts a record made of `filter`'s values and `fields` unless one matching `filter` exists: the
   * new record's id, or null when one was there. One upsert, where an insert against the unique index
   * would fail (and fill the database's log) on every key already taken; two at once can still both
   * miss, and the second then fails with a duplicate key, as an insert would. A record already there
   * is not written at all, its `updatedAt` included (Mongoose's timestamps would `$set` it): FerretDB
   * applies any change by writing back the whole document it read, which could undo a write that
   * landed meanwhile.
   */
  async insertUnlessExists(filter: Conditions, fields: AnyKeys<T>): Promise<Types.ObjectId | null> {
    const now = new Date();
    const stamps = this.model.schema.get('timestamps') ? { createdAt: now, updatedAt: now } : {};
    const insert = { $setOnInsert: { ...stamps, ...fields } } as UpdateQuery<T>;
    const result = await this.model
      .updateOne(trustedFilter(filter), insert, { upsert: true, timestamps: false })
      .exec();
    return result.upsertedCount > 0 ? (result.upsertedId as Types.ObjectId) : null;
  }

  async updateMany(filter: Conditions, update: UpdateQuery<T>): Promise<WriteResult> {
    const result = await this.model.updateMany(trustedFilter(filter), update).exec();
    return { matched: result.matchedCount, modified: result.modifiedCount };
  }

  /**
   * Sets stored values on the document with this id, straight through the collection: no casting,
   * no validation, and past the tenantOwned plugin. Only for a record the caller itself created a
   * moment ago in its scope (its id names it alone), where the id is the one filter FerretDB narrows
   * in SQL.
   */
  async setById(_id: Types.ObjectId, set: Conditions): Promise<void> {
    await this.model.collection.updateOne({ _id }, { $set: set });
  }

  /**
   * Updates one document with an update already in its stored form, straight through the collection:
   * no casting, no validation, no middleware, no timestamps (the update sets `updatedAt` itself when
   * it should). For bookkeeping its repository writes whole on a hot path (a webhook attempt's
   * outcome, a record's outbox emptied), where Mongoose's casting of the update cost more than the
   * write's own work.
   */
  async updateStored(
    filter: Conditions,
    update: { $set?: Conditions; $push?: Conditions; $unset?: Conditions },
  ): Promise<WriteResult> {
    const result = await this.model.collection.updateOne(filter, update as mongo.UpdateFilter<mongo.Document>);
    return { matched: result.matchedCount, modified: result.modifiedCount };
  }

  /** `updateStored` for every document the filter matches, in one command. */
  async updateManyStored(filter: Conditions, update: { $set?: Conditions; $unset?: Conditions }): Promise<WriteResult> {
    const result = await this.model.collection.updateMany(filter, update as mongo.UpdateFilter<mongo.Document>);
    return { matched: result.matchedCount, modified: result.modifiedCount };
  }

  /**
   * Inserts documents already in their stored form, straight through the collection (no casting or
   * validation), in one command, not stopping at the first failure; how many went in, whether every
   * failure was a duplicate key (a document already there), and which documents (by their index in
   * `documents`) did not go in. For bookkeeping written whole by its repository (events, a fan-out's
   * deliveries), where one command per batch is the point.
   */
  async insertStored(
    documents: readonly Conditions[],
  ): Promise<{ inserted: number; onlyDuplicates: boolean; notInserted: number[] }> {
    if (documents.length === 0) return { inserted: 0, onlyDuplicates: true, notInserted: [] };
    try {
      const result = await this.model.collection.insertMany(documents as never[], { ordered: false });
      return { inserted: result.insertedCount, onlyDuplicates: true, notInserted: [] };
    } catch (error) {
      const failure = error as {
        insertedCount?: number;
        writeErrors?: { code?: number; index?: number }[] | { code?: number; index?: number };
        code?: number;
      };
      const errors = Array.isArray(failure.writeErrors)
        ? failure.writeErrors
        : failure.writeErrors
          ? [failure.writeErrors]
          : [{ code: failure.code, index: undefined }];
      const onlyDuplicates = errors.length > 0 && errors.every((entry) => entry.code === 11000);
      if (!onlyDuplicates) throw error;
      const notInserted = errors.map((entry) => entry.index).filter((index) => typeof index === 'number');
      // A duplicate that does not say which document it was: none is known to have gone in.
      if (notInserted.length < errors.length)
        return { inserted: failure.insertedCount ?? 0, onlyDuplicates, notInserted: documents.map((_, i) => i) };
      return { inserted: failure.insertedCount ?? 0, onlyDuplicates, notInserted };
    }
  }

  /** The documents with these ids, in no particular order: one `$in` (one lookup per id on FerretDB, `looksUpIdsOneByOne`). */
  async findByIds<Read = T>(
    ids: readonly unknown[],
    options: Pick<ReadOptions, 'fields' | 'include'> = {},
  ): Promise<Read[]> {
    if (ids.length === 0) return [];
    if (!looksUpIdsOneByOne(this.model.db))
      return (await this.find({ _id: { $in: [...ids] } }, options)) as unknown as Read[];
    const found = await Promise.all(ids.map((_id) => this.findOne<Read>({ _id }, options)));
    return found.filter((document): document is Awaited<Read> & Read => document !== null);
  }

  /** Updates one document and answers it as it is after the update; null when none matched. */
  async updateAndGet(filter: Conditions, update: UpdateQuery<T>, options: UpdateOptions = {}): Promise<T | null> {
    const query = this.model.findOneAndUpdate(trustedFilter(filter), update, {
      returnDocument: 'after',
      runValidators: options.validate ?? false,
    });
    if (!this.hidden) return (await query.lean<T>().exec()) as T | null;
    // FerretDB refuses a projection on findAndModify, and Mongoose would send one to leave the
    // hidden fields out: they are read, then dropped here.
    const updated = (await query
      .select(Object.keys(this.hidden).map((path) => `+${path}`))
      .lean<Record<string, unknown>>()
      .exec()) as Record<string, unknown> | null;
    if (updated)
      for (const path of Object.keys(this.hidden)) if (!options.include?.includes(path)) deletePath(updated, path);
    return updated as T | null;
  }

  /** Removes one document; true when one was removed. */
  async deleteOne(filter: Conditions): Promise<boolean> {
    return (await this.model.deleteOne(trustedFilter(filter)).exec()).deletedCount > 0;
  }

  async deleteMany(filter: Conditions): Promise<number> {
    return (await this.model.deleteMany(trustedFilter(filter)).exec()).deletedCount;
  }

  aggregate<R extends mongo.Document>(pipeline: mongo.Document[]): Promise<R[]> {
    return this.model.collection.aggregate<R>(pipeline).toArray();
  }

  /** An aggregation's rows one batch at a time, for results too many to hold at once. */
  aggregateEach<R extends mongo.Document>(pipeline: mongo.Document[], batchSize = 1000): AsyncIterable<R> {
    return this.model.collection.aggregate<R>(pipeline, { batchSize });
  }

  /** Drops documents once their `createdAt` is `seconds` old (a TTL index, or a sweep where there is none); stops the sweep. */
  expireByAge(seconds: number, logger: Logger): Promise<() => void> {
    return expireByAge(this.model.collection, seconds, logger);
  }

  private projection(
    fields: readonly string[] | undefined,
    include: readonly string[] | undefined,
  ): mongo.Document | undefined {
    if (fields?.length) {
      // The lists of fields are the repositories' own, a few per collection: each projection is built
      // once, then shared by every read, as the hidden fields' is (the driver only serialises it).
      const key = include ? undefined : fields.join();
      const known = key === undefined ? undefined : this.projections.get(key);
      if (known) return known;
      const shown = fields.filter((field) => !(this.hidden && field in this.hidden) || include?.includes(field));
      const projection = Object.fromEntries(shown.map((field) => [field, 1]));
      if (key !== undefined) this.projections.set(key, projection);
      return projection;
    }
    if (!this.hidden || !include?.length) return this.hidden;
    const hidden = Object.fromEntries(Object.entries(this.hidden).filter(([path]) => !include.includes(path)));
    return Object.keys(hidden).length > 0 ? hidden : undefined;
  }
}

/** An id as stored, or null for anything that is not a 24-hex id (which names no record). */
export function toObjectId(id: string | Types.ObjectId): Types.ObjectId | null {
  if (id instanceof Types.ObjectId) return id;
  return isValidObjectId(id) && isObjectIdOrHexString(id) ? new Types.ObjectId(id) : null;
}

/** Operators written by a repository, kept as operators by Mongoose's global `sanitizeFilter`. */
function trustedFilter(filter: Conditions): Conditions {
  const out: Conditions = {};
  for (const [key, value] of Object.entries(filter)) {
    if (LOGICAL_OPERATORS.has(key) && Array.isArray(value))
      out[key] = value.map((inner: Conditions) => trustedFilter(inner));
    else out[key] = isOperatorObject(value) ? trusted(value) : value;
  }
  return out;
}

function deletePath(document: Record<string, unknown>, path: string): void {
  const parts = path.split('.');
  let parent: unknown = document;
  for (const part of parts.slice(0, -1)) parent = (parent as Record<string, unknown> | undefined)?.[part];
  if (parent && typeof parent === 'object') delete (parent as Record<string, unknown>)[parts[parts.length - 1]];
}

const LOGICAL_OPERATORS = new Set(['$and', '$or', '$nor']);

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (
    value === null ||
    typeof value !== 'object' ||
    Array.isArray(value) ||
    value instanceof Types.ObjectId ||
    value instanceof Date
  )
    return false;
  return Object.keys(value).some((key) => key.startsWith('$'));
}

const hiddenBySchema = new WeakMap<Schema, Record<string, 0> | undefined>();

/** The projection that leaves out the schema's `select: false` paths; none: undefined. */
export function hiddenFields(schema: Schema): Record<string, 0> | undefined {
  if (!hiddenBySchema.has(schema)) {
    const fields: Record<string, 0> = {};
    schema.eachPath((path, type) => {
      if ((type.options as { select?: unknown } | undefined)?.select === false) fields[path] = 0;
    });
    hiddenBySchema.set(schema, Object.keys(fields).length > 0 ? fields : undefined);
  }
  return hiddenBySchema.get(schema);
}
