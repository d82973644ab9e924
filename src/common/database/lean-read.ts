import type { Model, mongo, Schema } from 'mongoose';

export interface LeanReadOptions {
  sort?: Record<string, 1 | -1>;
  skip?: number;
  limit?: number;
}

export interface LeanReadOneOptions {
  /** Hidden paths this read needs after all, as Mongoose's `select('+path')`: the password check's hash. */
  include?: readonly string[];
}

/**
 * The documents `model.find(filter).lean()` gives, read straight from the collection, without
 * Mongoose's query building, casting and middleware (about 30 µs of CPU per query, a tenth of a small
 * read). Fields the schema hides (`select: false`) are left out, as Mongoose leaves them out.
 *
 * The filter reaches the database as written: nothing casts it, so ids must be ObjectIds. For
 * account-level records (users, accounts, memberships); a tenant's records are read in scope
 * (`findOneInScope`, `findInScope`, `countInScope`, `existsInScope`), with the project in the filter by construction.
 */
export function findLean<T>(model: Model<T>, filter: mongo.Filter<mongo.Document>, options: LeanReadOptions = {}): Promise<T[]> {
  return model.collection.find(filter, { ...options, projection: hiddenFields(model.schema) }).toArray() as Promise<T[]>;
}

/** One document as `model.findOne(filter).lean()` gives it (`Read`: with the `include`d paths); see `findLean`. */
export function findOneLean<T, Read = T>(model: Model<T>, filter: mongo.Filter<mongo.Document>, options: LeanReadOneOptions = {}): Promise<Read | null> {
  let projection = hiddenFields(model.schema);
  if (projection && options.include?.length) {
    projection = Object.fromEntries(Object.entries(projection).filter(([path]) => !options.include!.includes(path)));
    if (Object.keys(projection).length === 0) projection = undefined;
  }
  return model.collection.findOne<Read>(filter, { projection });
}

const hidden = new WeakMap<Schema, Record<string, 0> | undefined>();

/** The projection that leaves out the schema's `select: false` paths; none: undefined. */
export function hiddenFields(schema: Schema): Record<string, 0> | undefined {
  if (!hidden.has(schema)) {
    const fields: Record<string, 0> = {};
    schema.eachPath((path, type) => {
      if ((type.options as { select?: unknown } | undefined)?.select === false) fields[path] = 0;
    });
    hidden.set(schema, Object.keys(fields).length > 0 ? fields : undefined);
  }
  return hidden.get(schema);
}
