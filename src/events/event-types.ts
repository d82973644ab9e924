/** The events a change through a data API records, by resource: `<resource>.<change>`, in this order. */
const RECORDED_BY_RESOURCE = {
  customer: ['created', 'updated', 'deleted', 'default_card_changed'],
  card: ['created', 'updated', 'deleted'],
  payment: ['created', 'succeeded', 'failed', 'refunded'],
  channel: ['created', 'updated', 'deleted'],
  project: ['created', 'updated', 'deleted'],
  collaborator: ['added', 'changed', 'removed'],
  share_link: ['created', 'revoked', 'deleted'],
  grant: ['created', 'revoked', 'deleted'],
  collection: ['created', 'updated', 'deleted', 'restored'],
  client: ['created', 'updated', 'deleted', 'restored'],
  asset: ['created', 'updated', 'uploaded', 'ready', 'errored', 'deleted'],
} as const;
type ByResource = typeof RECORDED_BY_RESOURCE;
export type RecordedEventType = { [R in keyof ByResource]: `${R}.${ByResource[R][number]}` }[keyof ByResource];

/** Every event a change through a data API records. */
export const RECORDED_EVENT_TYPES: readonly RecordedEventType[] = Object.entries(RECORDED_BY_RESOURCE).flatMap(([resource, changes]) =>
  changes.map((change) => `${resource}.${change}` as RecordedEventType),
);

/** Sent to one webhook endpoint on request, never recorded in the event list. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Every type an event payload can have, as the OpenAPI document lists them. */
export const EVENT_TYPES = [...RECORDED_EVENT_TYPES, WEBHOOK_TEST_EVENT] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The version of the API an event's `data.object` is shaped by. */
export const API_VERSION = '2026-11-24';
