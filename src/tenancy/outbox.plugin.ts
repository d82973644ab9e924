import { Schema as MongooseSchema, type Schema } from 'mongoose';
import { OUTBOX, OUTBOX_FLAG } from './recorded-changes';

/**
 * Gives a tenant-owned schema the outbox its changes record their events in (src/tenancy/recorded-changes.ts):
 * hidden from every read, never returned, and indexed by the flag the relay's sweep looks for.
 */
export function recordsEvents(schema: Schema): void {
  schema.add({
    [OUTBOX]: { type: [MongooseSchema.Types.Mixed], default: undefined, select: false },
    [OUTBOX_FLAG]: { type: Boolean, select: false },
  });
  schema.index({ [OUTBOX_FLAG]: 1 });
}
