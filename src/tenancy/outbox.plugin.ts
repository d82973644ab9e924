import { Schema as MongooseSchema, type Schema } from 'mongoose';
import { LAST_CHANGE, OUTBOX } from './recorded-changes';

/**
 * Gives a tenant-owned schema the outbox its changes record their events in, and the version its
 * recorded writes are guarded on (src/tenancy/recorded-changes.ts): an array of plain event
 * documents, removed once relayed, and the last change's id; both hidden from every read and never
 * returned.
 *
 * Indexed by `updatedAt`, which every recorded change sets: the events sweep finds the records
 * changed lately by it.
 */
export function recordsEvents(schema: Schema): void {
  schema.add({
    [OUTBOX]: { type: [MongooseSchema.Types.Mixed], default: undefined, select: false },
    [LAST_CHANGE]: { type: String, default: undefined, select: false },
  });
  schema.index({ updatedAt: 1 });
}
