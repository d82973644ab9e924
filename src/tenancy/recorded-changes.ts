import type { Types } from 'mongoose';
import type { RequestOrigin, TenantScope } from './tenant-scope';

/**
 * The outbox of a tenant's record: the events its last recorded change wrote, in the same
 * single-document write as the change, which MongoDB and FerretDB both apply whole or not at all:
 * a change that happened has its events, one that did not has none. A relay copies them into the
 * events collection before the request answers. The outbox is never cleared (a clearing write would
 * race the caller's next change on FerretDB, which applies an update as a read and a write): the
 * next recorded change replaces it, and only once every event in it is known to be in the events
 * collection (`ChangeRecorder.relayedOutbox`).
 *
 * One string field (its form belongs to the events module, which writes and reads it): it stays in
 * the record for good, and FerretDB decodes every field of a record on every read of it.
 */
export const OUTBOX = 'outbox';
/**
 * The outbox as builds before the one-field form wrote it (the events, the relay run, the time): read
 * and relayed where a record still holds it, unset by the record's next recorded change, never written.
 */
export const LEGACY_OUTBOX_FIELDS = ['pendingEvents', 'eventsRun', 'eventsAt'] as const;
export const OUTBOX_FIELDS = [OUTBOX, ...LEGACY_OUTBOX_FIELDS] as const;

/** An event waiting in the changed record. */
export interface PendingEvent {
  /** `evt_` and a new ObjectId's hex: unique, and in time order. */
  id: string;
  type: string;
  createdAt: Date;
  /** The record as its events show it, before the change (JSON), for `previousAttributes`; null when not asked. */
  before: string | null;
  request: RequestOrigin;
}

/** A recorded change under way: its events, and the outbox fields its write sets. */
export interface RecordedWrite {
  readonly events: readonly PendingEvent[];
  /** `$set` these with the change: they replace the record's previous outbox (an update also unsets `LEGACY_OUTBOX_FIELDS`). */
  readonly outbox: Readonly<Record<string, unknown>>;
  /**
   * The write happened: copies its events into the events collection before the request answers
   * (with whatever other writes are waiting, as one batch). Never throws: what fails is retried by
   * the sweep. `written`: the record as the write left it, when the write answered it; absent, it is read.
   */
  relay(scope: TenantScope, id: Types.ObjectId, written?: unknown): Promise<void>;
  /** The write did not happen (it failed, or matched nothing): its events are dropped. */
  abandon(): void;
}

/** A hard delete's event, written before the record is removed and settled by what the delete did. */
export interface DeletionIntent {
  settle(deleted: boolean): Promise<void>;
}

/**
 * Records the events of one kind of record's changes; `TenantRecords` calls it around every write
 * that names an event type. Implemented by the events module (src/events), which the tenancy layer
 * does not import.
 */
export interface ChangeRecorder<T> {
  /** Starts a recorded change of the record that is `before` (null for a create or when the diff is not wanted). */
  begin(scope: TenantScope, types: readonly string[], before: T | null): RecordedWrite;
  /** Conditions a record meets when every event in its outbox is known to be recorded: only then may a write replace it. */
  relayedOutbox(): Record<string, unknown>;
  /** Whether a record read with its outbox meets `relayedOutbox()`. */
  isRelayed(record: T): boolean;
  /** Conditions a record meets while its outbox is still the one `record` was read with. */
  sameOutbox(record: T): Record<string, unknown>;
  /** Records whichever events of the record's outbox are not in the events collection yet (idempotent). */
  relayLeftover(scope: TenantScope, record: T): Promise<void>;
  /** Before a hard delete: the event, with the record as it was, kept pending until settled. */
  deletion(scope: TenantScope, type: string, record: T): Promise<DeletionIntent>;
}
