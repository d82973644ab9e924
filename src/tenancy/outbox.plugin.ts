import type { Schema } from 'mongoose';
import { LEGACY_OUTBOX_FIELDS, OUTBOX } from './recorded-changes';

/**
 * Gives a tenant-owned schema the outbox its changes record their events in (src/tenancy/recorded-changes.ts):
 * hidden from every read and never returned, the earlier form's fields too (declared so that a
 * recorded change can unset them).
 *
 * Indexed by `updatedAt`, which every recorded change sets after its outbox's time: the relay's sweep
 * finds the records a stopped run wrote by it. Not by the outbox itself, whose strings can exceed what
 * a PostgreSQL B-tree entry holds (about 2.7 KB) under FerretDB.
 */
export function recordsEvents(schema: Schema): void {
  const [events, run, at] = LEGACY_OUTBOX_FIELDS;
  schema.add({
    [OUTBOX]: { type: String, default: undefined, select: false },
    [events]: { type: String, default: undefined, select: false },
    [run]: { type: String, default: undefined, select: false },
    [at]: { type: Date, default: undefined, select: false },
  });
  schema.index({ updatedAt: 1 });
}
