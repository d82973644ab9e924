import { ServiceUnavailableException } from '@nestjs/common';
import type { TenantScope } from './tenant-scope';

/**
 * The field of a tenant's record that holds the events of its last recorded change (the outbox), set
 * in the same single-document write as the change, by the invariant src/events/events.module.ts states.
 */
export const OUTBOX = 'outbox';

/** An event waiting in the changed record's outbox, as stored: plain fields. */
export interface PendingEvent {
  /** `evt_` and a new ObjectId's hex: unique, and in time order. */
  id: string;
  type: string;
  createdAt: Date;
  /** The record as its events show it (its JSON values), before the change, for `previousAttributes`; null when not asked. */
  before: Record<string, unknown> | null;
  request: { id: string | null; idempotencyKey: string | null };
}

/** A record read with its outbox. */
export type WithOutbox<T> = T & { [OUTBOX]?: PendingEvent[] | null };

/** A hard delete's events, written pending before the records go and settled by what the delete did. */
export interface DeletionIntent {
  /**
   * `deleted`: the ids of the records the delete removed, whose events are recorded; every other
   * record's event is dropped, or with `keepOthers` left pending for the sweep (a delete whose
   * answer was lost may still apply). Never throws: what fails is left to the sweep.
   */
  settle(deleted: readonly string[], options?: { keepOthers?: boolean }): Promise<void>;
}

/**
 * Records the events of one kind of record's changes; `TenantRecords` calls it around every write
 * that names an event type. Implemented by the events module, which the tenancy layer does not import.
 */
export interface ChangeRecorder<T> {
  /** The events of a change about to be written; `before`, the record as it was, when the event carries a diff. */
  pending(scope: TenantScope, types: readonly string[], before: T | null): PendingEvent[];
  /** The change is written: its events go to the events collection, with the record as the write left it. Never throws. */
  publish(scope: TenantScope, record: T, events: readonly PendingEvent[]): Promise<void>;
  /** Copies whichever events of these records' outboxes the events collection lacks (idempotent, by event id). */
  relayOutboxes(scope: TenantScope, records: readonly WithOutbox<T>[]): Promise<void>;
  /**
   * A write of `event` whose answer was lost, its record unreadable: the record is read again until
   * the database answers; whether the write happened (its outbox holds the event, then published).
   */
  settleLater(scope: TenantScope, id: unknown, event: string): Promise<boolean>;
  /** Before a hard delete: one pending event a record, the record as it was, naming the outbox the delete is guarded on. */
  deletion(scope: TenantScope, type: string, records: readonly WithOutbox<T>[]): Promise<DeletionIntent>;
}

/**
 * A write whose outcome is unknown and could not be settled yet (503). `settled` tells once the
 * record could be read whether the write happened; meanwhile its `Idempotency-Key` stays held.
 */
export class UnsettledChange extends ServiceUnavailableException {
  constructor(
    readonly settled: Promise<boolean>,
    cause: unknown,
  ) {
    super('Database unavailable, try again shortly', { cause });
  }
}

/**
 * The condition a record meets while its outbox is still `outbox` (as stored): a write guarded on
 * it replaces nothing unread. Put it inside `$and` or `$or`: Mongoose casts a top-level path into an
 * array of mixed values so that it never matches.
 */
export function sameOutbox(outbox: PendingEvent[] | null | undefined): Record<string, unknown> {
  if (!outbox) return { [OUTBOX]: null };
  if (outbox.length === 0) return { [OUTBOX]: { $size: 0 } };
  return { [`${OUTBOX}.id`]: outbox[0].id };
}

/** An outbox that no longer meets `sameOutbox(outbox)` and holds no event: what a fence writes once `outbox` is relayed. */
export function fencedOutbox(outbox: PendingEvent[] | null | undefined): [] | null {
  return outbox?.length === 0 ? null : [];
}

/** Whether the record's outbox holds this event: how a write whose answer was lost is known to have happened. */
export function holdsEvent(record: WithOutbox<unknown> | null, eventId: string): boolean {
  return (record?.[OUTBOX] ?? []).some((event) => event.id === eventId);
}
