import type { ApiName } from './api-names';

/**
 * The events a change through a data API records, by resource: `<resource>.<change>`, in this order.
 * Declared beside `TenantRecords`, which takes a write's event type as one of these, so a misspelt
 * type does not compile; the events module lists and sends them (event-types.ts).
 */
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

/** The API whose records each resource's events carry: a key reads an event only within its scopes. */
const API_OF_RESOURCE: { readonly [R in keyof ByResource]: ApiName } = {
  customer: 'customers',
  card: 'cards',
  payment: 'payments',
  channel: 'channels',
  project: 'projects',
  collaborator: 'channels',
  share_link: 'projects',
  grant: 'projects',
  collection: 'collections',
  client: 'clients',
  asset: 'projects',
};

/** A resource whose records are soft-deletable: it records `updated`, `deleted` and `restored`. */
export type SoftDeletableResource = {
  [R in keyof ByResource]: 'restored' extends ByResource[R][number] ? R : never;
}[keyof ByResource];

/** Every event a change through a data API records. */
export const RECORDED_EVENT_TYPES: readonly RecordedEventType[] = Object.entries(RECORDED_BY_RESOURCE).flatMap(
  ([resource, changes]) => changes.map((change) => `${resource}.${change}` as RecordedEventType),
);

/** The API whose record an event of this type carries (`customer.created`: `customers`). */
export function apiOfEventType(type: RecordedEventType): ApiName {
  return API_OF_RESOURCE[type.slice(0, type.indexOf('.')) as keyof ByResource];
}
