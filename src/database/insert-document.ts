import type { AnyKeys, Model, Require_id } from 'mongoose';
import { hasOwnSaveMiddleware } from './patches/mongoose-save-hooks';

/**
 * Inserts one document as `Model.create` would store it (the schema's casting, setters, defaults and
 * validation, required fields included, and the timestamps), without `save()`'s machinery: its
 * middleware chain, change tracking and the hydrated document kept afterwards. Returns the stored
 * fields, as a lean read would (bench/README.md has what that saves).
 *
 * No schema of the service has save middleware; one that gets some must be created through `create`,
 * and `insertDocument` refuses it rather than skip the hook silently. Where that cannot be known (the
 * check reads Mongoose's private hook registry, fenced to one version), it inserts through
 * `Model.create`, the library as shipped.
 */
export async function insertDocument<T>(model: Model<T>, fields: AnyKeys<T>): Promise<Require_id<T>> {
  const ownMiddleware = hasOwnSaveMiddleware(model.schema);
  if (ownMiddleware === undefined) return (await model.create(fields)).toObject() as Require_id<T>;
  if (ownMiddleware) throw new Error(`${model.modelName} has save middleware: create its documents with Model.create`);
  const document = new model(fields);
  await document.validate();
  const stored = document.toBSON() as Require_id<T> & { createdAt?: Date; updatedAt?: Date };
  if (model.schema.get('timestamps')) {
    const now = new Date();
    stored.createdAt ??= now;
    stored.updatedAt ??= now;
  }
  await model.collection.insertOne(stored as never);
  return stored;
}
