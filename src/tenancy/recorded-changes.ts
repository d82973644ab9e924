import { ServiceUnavailableException } from '@nestjs/common';
import { Types } from 'mongoose';
import type { TenantScope } from './tenant-scope';
import type { RecordedEventType } from './recorded-event-types';

/**
 * The field of a tenant's record that holds the events of its last recorded change (the outbox), set
 * in the same single-document write as the change, by the invariant src/events/events.module.ts
 * states, and removed once they are in the events collection.
 */
export const OUTBOX = 'outbox';

/**
 * The record's version: the id of its last recorded change's first event, set in the same write as
 * its outbox and kept when the outbox is emptied (or a fence's id). Every recorded write and hard
 * delete is guarded on the version it read.
 */
export const LAST_CHANGE = 'lastChange';

/** The hidden fields a recorded write reads. */
export const RECORDED_FIELDS: readonly string[] = [OUTBOX, LAST_CHANGE];

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

/** A record read with its outbox and version. */
export type WithOutbox<T> = T & { [OUTBOX]?: PendingEvent[] | null; [LAST_CHANGE]?: string | null };

/**
 * What a hard delete did to the records it held events for, by record id. A record in none of
 * these (there at the version read, or not read again) keeps its event pending for the sweep: a
 * delete of that version, this one's answer lost or another's, may still apply.
 */
export interface DeletionOutcome {
  /** Removed by this delete, known from its answer: their events are listed. */
  removed?: readonly string[];
  /**
   * Read gone after this delete removed fewer than it held, or lost its answer: listed when the
   * record's deletion event is still this delete's (then whichever delete removed it shared it).
   */
  gone?: readonly string[];
  /** Read there at another version: no delete of the version read can apply any more; their events are dropped. */
  changed?: readonly string[];
}

/**
 * A hard delete's events, one a record, written pending before the records go. A record has one
 * deletion event at a time: a retried or concurrent delete of the same version finds it and uses it
 * (so its id follows from the record and the change, and every copy is one event).
 */
export interface DeletionIntent {
  /** Whether this delete holds the record's event; it deletes no other (another delete read a newer version of it). */
  holds(id: string): boolean;
  /** Lists, drops or leaves pending each record's event by what the delete did. Never throws: what fails is left to the sweep. */
  settle(outcome: DeletionOutcome): Promise<void>;
}

/**
 * Records the events of one kind of record's changes; `TenantRecords` calls it around every write
 * that names an event type. Implemented by the events module, which the tenancy layer does not import.
 */
export interface ChangeRecorder<T> {
  /** The events of a change about to be written; `before`, the record as it was, when the event carries a diff. */
  pending(scope: TenantScope, types: readonly RecordedEventType[], before: T | null): PendingEvent[];
  /**
   * The change is written: its events go to the events collection, with the record as the write left
   * it, and its outbox is emptied unless a later change replaced it. Never throws.
   */
  publish(scope: TenantScope, record: T, events: readonly PendingEvent[]): Promise<void>;
  /**
   * Copies whichever events of these records' outboxes the events collection lacks (idempotent, by
   * event id), then empties each outbox while its record is at the version read.
   */
  relayOutboxes(scope: TenantScope, records: readonly WithOutbox<T>[]): Promise<void>;
  /**
   * A write of `event` whose answer was lost, its record unreadable: the record is read again until
   * the database answers; whether the write happened (the record is at its version, then published).
   */
  settleLater(scope: TenantScope, id: unknown, event: string): Promise<boolean>;
  /** Before a hard delete: each record's pending event (the one it has, or a new one), the record as it was, naming the version the delete is guarded on. */
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
 * The condition a record meets while it is still at `version` (`versionOf` of the record read): a
 * write guarded on it replaces nothing unread, and an outbox emptied meanwhile does not make an older
 * read current again.
 */
export function atVersion(version: string | null): Record<string, unknown> {
  return { [LAST_CHANGE]: version };
}

/** A record's version: the id of its last recorded change (its first event's), null before any. */
export function versionOf(record: WithOutbox<unknown> | null): string | null {
  return record?.[LAST_CHANGE] ?? null;
}

/** A version no write has: what a fence sets, so that no write guarded on an older one applies. */
export function newFence(): string {
  return `fence_${new Types.ObjectId().toHexString()}`;
}

/** Whether the record's last change is the one whose first event is `eventId`: how a write whose answer was lost is known to have happened. */
export function madeBy(record: WithOutbox<unknown> | null, eventId: string): boolean {
  return versionOf(record) === eventId;
}
