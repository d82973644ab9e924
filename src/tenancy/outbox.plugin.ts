import type { Schema } from 'mongoose';
import { OUTBOX, OUTBOX_AT, OUTBOX_RUN } from './recorded-changes';

/**
 * Gives a tenant-owned schema the outbox its changes record their events in (src/tenancy/recorded-changes.ts):
 * hidden from every read, never returned, and indexed by the run that wrote it, which the relay's
 * sweep looks for when a run stopped without relaying.
 */
export function recordsEvents(schema: Schema): void {
  schema.add({
    // The pending events as one JSON string: the database decodes a string, not a tree of typed
    // values, on every read of the record, and Mongoose neither wraps nor walks them.
    [OUTBOX]: { type: String, default: undefined, select: false },
    [OUTBOX_RUN]: { type: String, select: false },
    [OUTBOX_AT]: { type: Date, select: false },
  });
  schema.index({ [OUTBOX_RUN]: 1, [OUTBOX_AT]: 1 });
}
