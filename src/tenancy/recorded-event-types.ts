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

/** A resource whose records are soft-deletable: it records `updated`, `deleted` and `restored`. */
export type SoftDeletableResource = {
  [R in keyof ByResource]: 'restored' extends ByResource[R][number] ? R : never;
}[keyof ByResource];

/** Every event a change through a data API records. */
export const RECORDED_EVENT_TYPES: readonly RecordedEventType[] = Object.entries(RECORDED_BY_RESOURCE).flatMap(
  ([resource, changes]) => changes.map((change) => `${resource}.${change}` as RecordedEventType),
);
