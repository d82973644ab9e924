import type { Principal } from '../tenancy/principal';
import { apiOfEventType, RECORDED_EVENT_TYPES, type RecordedEventType } from '../tenancy/recorded-event-types';

export { RECORDED_EVENT_TYPES, type RecordedEventType };

/**
 * The event types a caller may read: an event carries a record of its API (a customer's email in
 * `customer.created`), so a key scoped away from that API reads none of its events; null: every type.
 */
export function readableEventTypes(caller: Principal): readonly RecordedEventType[] | null {
  if (caller.kind !== 'apiKey' || caller.scopes === null) return null;
  const scopes = caller.scopes;
  return RECORDED_EVENT_TYPES.filter((type) => scopes.includes(apiOfEventType(type)));
}

/** Sent to one webhook endpoint on request, never recorded in the event list. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Every type an event payload can have, as the OpenAPI document lists them. */
export const EVENT_TYPES = [...RECORDED_EVENT_TYPES, WEBHOOK_TEST_EVENT] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The version of the API an event's `data.object` is shaped by. */
export const API_VERSION = '2026-11-24';
