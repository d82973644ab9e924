import type { Types } from 'mongoose';
import type { RequestOrigin, TenantScope } from './tenant-scope';

/**
 * The outbox of a tenant's record: the events its changes recorded that the relay has not yet
 * moved into the events collection. They are written by the same single-document update as the
 * change they describe, which MongoDB and FerretDB both apply whole or not at all: a change that
 * happened has its event, one that did not has none.
 */
export const OUTBOX = 'pendingEvents';
/** Set with every pending event and unset once the outbox is empty: the relay's sweep finds records by it. */
export const OUTBOX_FLAG = 'eventsPending';

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
  /** The pending event for a change of the record that is `before` (null for a create or when the diff is not wanted). */
  pending(scope: TenantScope, type: string, before: T | null): PendingEvent;
  /**
   * After a write that carried pending events: moves the record's outbox into the events collection
   * before the request answers (with whatever other records are waiting, as one batch). Done inside
   * the request because clearing the outbox writes the record again: FerretDB applies an update as a
   * read and a write, so a clear running after the answer could undo the caller's next change.
   * Never throws: what fails is left to the sweep. `written`: the record as the write left it, its
   * outbox included, when the write answered it (an insert, an update that returns the record): it
   * is not read again.
   */
  relay(scope: TenantScope, id: Types.ObjectId, written?: T): Promise<void>;
  /** Before a hard delete: the event, with the record as it was, kept pending until settled. */
  deletion(scope: TenantScope, type: string, record: T): Promise<DeletionIntent>;
}
