import { Schema as MongooseSchema, type Schema } from 'mongoose';
import { OUTBOX, OUTBOX_AT, OUTBOX_RUN } from './recorded-changes';

/**
 * Gives a tenant-owned schema the outbox its changes record their events in (src/tenancy/recorded-changes.ts):
 * hidden from every read, never returned, and indexed by the run that wrote it, which the relay's
 * sweep looks for when a run stopped without relaying.
 */
export function recordsEvents(schema: Schema): void {
  schema.add({
    // One opaque value, not an array of Mixed: Mongoose then neither wraps nor walks each pending event.
    [OUTBOX]: { type: MongooseSchema.Types.Mixed, default: undefined, select: false },
    [OUTBOX_RUN]: { type: String, select: false },
    [OUTBOX_AT]: { type: Date, select: false },
  });
  schema.index({ [OUTBOX_RUN]: 1, [OUTBOX_AT]: 1 });
}
