import { LEGACY_OUTBOX_FIELDS, OUTBOX, type PendingEvent } from '../tenancy/recorded-changes';

const [LEGACY_EVENTS, LEGACY_RUN, LEGACY_AT] = LEGACY_OUTBOX_FIELDS;

/** A record's outbox fields, as read with it: the one-field form, or the earlier three. */
export interface OutboxFields {
  [OUTBOX]?: string;
  [LEGACY_EVENTS]?: string;
  [LEGACY_RUN]?: string;
  [LEGACY_AT]?: Date;
}

/** What an outbox says of its change: when it began, on the writing run's clock, and that run. */
export interface OutboxMark {
  at: Date;
  run: string;
}

/** `Date#toISOString()`: fixed width (years 0 to 9999), so the strings sort as the times do. */
const TIME_LENGTH = 24;
const RUN_LENGTH = 24;
const EVENTS_START = TIME_LENGTH + 1 + RUN_LENGTH + 1;
const EVENT_ID_PREFIX = 'evt_';

/** One stored event: `[id without "evt_", type, request id, Idempotency-Key, before]`, trailing nulls left out. */
type StoredEvent = [string, string, (string | null)?, (string | null)?, (string | null)?];

/**
 * The outbox as one string: `<time> <run> <events as JSON>`. The time comes first, so that comparing
 * strings compares times (`relayedOutbox`: older than every open run's mark); the run's id has a
 * fixed length, so a run's outboxes are those with its id at a fixed place. Every event of a change
 * has the change's time. Compact, because it stays in the record after its events are relayed and
 * FerretDB decodes every byte of a record on every read.
 */
export function storedOutbox(at: Date, run: string, events: readonly PendingEvent[]): string {
  if (run.length !== RUN_LENGTH) throw new Error(`A relay run's id has ${RUN_LENGTH} characters, got ${run}`);
  const stored = events.map(({ id, type, before, request }): StoredEvent => {
    if (!id.startsWith(EVENT_ID_PREFIX)) throw new Error(`Not an event id: ${id}`);
    const event: StoredEvent = [id.slice(EVENT_ID_PREFIX.length), type, request.id, request.idempotencyKey, before];
    while (event.length > 2 && (event[event.length - 1] ?? null) === null) event.pop();
    return event;
  });
  return `${storedTime(at)} ${run} ${JSON.stringify(stored)}`;
}

/** The time and run a stored outbox names. */
export function outboxMark(stored: string): OutboxMark {
  return { at: new Date(stored.slice(0, TIME_LENGTH)), run: stored.slice(TIME_LENGTH + 1, TIME_LENGTH + 1 + RUN_LENGTH) };
}

/** The outboxes a run wrote (the stored string, for a filter): its id at its place. */
export function writtenByRun(run: string): RegExp {
  if (!/^[0-9a-f]{24}$/.test(run)) throw new Error(`Not a relay run's id: ${run}`);
  return new RegExp(`^.{${TIME_LENGTH}} ${run} `);
}

/** The outboxes written at any of these times (by any run): their time at their start. */
export function writtenAtAny(times: Iterable<Date>): RegExp {
  const alternatives = [...new Set([...times].map((time) => storedTime(time).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))];
  if (alternatives.length === 0) throw new Error('No times to match');
  return new RegExp(`^(?:${alternatives.join('|')}) `);
}

/** The outbox's time as stored: a string compared with `storedTime` of a watermark. */
export function storedTime(at: Date): string {
  return at.toISOString();
}

/** The pending events of a record read with its outbox, in either form (both, should a record hold both). */
export function readOutbox(record: OutboxFields): PendingEvent[] {
  return [...readCurrent(record[OUTBOX]), ...readLegacy(record)];
}

function readCurrent(stored: string | undefined): PendingEvent[] {
  if (!stored) return [];
  const createdAt = outboxMark(stored).at;
  return (JSON.parse(stored.slice(EVENTS_START)) as StoredEvent[]).map(([id, type, requestId, idempotencyKey, before]) => ({
    id: `${EVENT_ID_PREFIX}${id}`,
    type,
    createdAt,
    before: before ?? null,
    request: { id: requestId ?? null, idempotencyKey: idempotencyKey ?? null },
  }));
}

/** The earlier form: a JSON array of objects, the time in each (older records) or in the record's `eventsAt`. */
interface LegacyStoredEvent {
  id: string;
  type: string;
  createdAt?: string;
  before?: string | null;
  request?: { id?: string | null; idempotencyKey?: string | null };
}

function readLegacy(record: OutboxFields): PendingEvent[] {
  const stored = record[LEGACY_EVENTS];
  if (!stored) return [];
  const written = record[LEGACY_AT];
  return (JSON.parse(stored) as LegacyStoredEvent[]).map((event) => ({
    id: event.id,
    type: event.type,
    createdAt: event.createdAt !== undefined ? new Date(event.createdAt) : (written ?? new Date()),
    before: event.before ?? null,
    request: { id: event.request?.id ?? null, idempotencyKey: event.request?.idempotencyKey ?? null },
  }));
}
