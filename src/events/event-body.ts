import { Types } from 'mongoose';
import type { PendingEvent } from '../tenancy/recorded-changes';
import { API_VERSION } from './event-types';

/** A recorded event as subscribers get it: its JSON is what the list returns and deliveries sign. */
export interface PublishedEvent {
  id: string;
  type: string;
  projectId: string;
  createdAt: Date;
  body: string;
}

/** `evt_` and a new ObjectId's hex: unique across instances, and in time order as a string. */
export function newEventId(): string {
  return `evt_${new Types.ObjectId().toHexString()}`;
}

/**
 * The event as docs/events-and-webhooks.md shows it. `object` is the record after the change; `previousAttributes`,
 * when the change kept the record's state before, are the fields of that state whose value differs
 * (a field the change added is there as null).
 */
export function eventBody(event: PendingEvent, projectId: string, object: object): string {
  const data: Record<string, unknown> = { object };
  if (event.before) data.previousAttributes = changedFields(event.before, asJson(object));
  return JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: new Date(event.createdAt).toISOString(),
    projectId,
    apiVersion: API_VERSION,
    data,
    request: { id: event.request?.id ?? null, idempotencyKey: event.request?.idempotencyKey ?? null },
  });
}

/**
 * The object as its JSON reads back: dates as strings, no undefined fields. What a pending event
 * keeps as `before` (stored as it is) and what `previousAttributes` compares it with.
 */
export function asJson(object: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify(object)) as Record<string, unknown>;
}

/**
 * The id of the event's object, read from the body as it is stored: a hard delete's event, listed
 * long after its record went, carries only its body.
 */
export function objectIdOf(body: string): string | undefined {
  const id = (JSON.parse(body) as { data?: { object?: { id?: unknown } } }).data?.object?.id;
  return typeof id === 'string' ? id : undefined;
}

function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) changed[field] = before[field] ?? null;
  }
  return changed;
}
