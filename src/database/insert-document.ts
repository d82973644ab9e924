import type { AnyKeys, Model, Require_id } from 'mongoose';

/**
 * Inserts one document as `Model.create` would store it (the schema's casting, setters, defaults and
 * validation, required fields included, and the timestamps), without `save()`'s machinery: its
 * middleware chain, change tracking and the hydrated document kept afterwards. Returns the stored
 * fields, as a lean read would (bench/README.md has what that saves).
 *
 * Save middleware would be skipped: no schema of the service has any, and a test
 * (insert-document.spec.ts) fails when one registers some.
 */
export async function insertDocument<T>(model: Model<T>, fields: AnyKeys<T>): Promise<Require_id<T>> {
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
