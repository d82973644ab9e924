import { OUTBOX, OUTBOX_AT, type PendingEvent } from '../tenancy/recorded-changes';

/** A stored pending event: what the record does not hold already (the time is its `OUTBOX_AT`) and is not null. */
interface StoredPendingEvent {
  id: string;
  type: string;
  /** Written before outboxes were compacted; since, the record's `OUTBOX_AT`. */
  createdAt?: string;
  before?: string | null;
  request?: { id?: string | null; idempotencyKey?: string | null };
}

/**
 * The outbox as one JSON string, compact: it stays in the record after its events are relayed, and
 * FerretDB decodes every byte of a record on every read of it.
 */
export function storedOutbox(events: readonly PendingEvent[]): string {
  return JSON.stringify(
    events.map(({ id, type, before, request }): StoredPendingEvent => ({
      id,
      type,
      ...(before !== null ? { before } : {}),
      request: { ...(request.id !== null ? { id: request.id } : {}), ...(request.idempotencyKey !== null ? { idempotencyKey: request.idempotencyKey } : {}) },
    })),
  );
}

/** The pending events of a record read with its outbox, whichever form they were stored in. */
export function readOutbox(record: { [OUTBOX]?: string; [OUTBOX_AT]?: Date }): PendingEvent[] {
  if (!record[OUTBOX]) return [];
  const written = record[OUTBOX_AT];
  return (JSON.parse(record[OUTBOX]) as StoredPendingEvent[]).map((event) => ({
    id: event.id,
    type: event.type,
    createdAt: event.createdAt !== undefined ? new Date(event.createdAt) : (written ?? new Date()),
    before: event.before ?? null,
    request: { id: event.request?.id ?? null, idempotencyKey: event.request?.idempotencyKey ?? null },
  }));
}
