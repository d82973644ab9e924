/** Every event a change through a data API records, by resource. */
export const RECORDED_EVENT_TYPES = [
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'customer.default_card_changed',
  'card.created',
  'card.updated',
  'card.deleted',
  'payment.created',
  'payment.succeeded',
  'payment.failed',
  'payment.refunded',
  'channel.created',
  'channel.updated',
  'channel.deleted',
  'project.created',
  'project.updated',
  'project.deleted',
  'collaborator.added',
  'collaborator.changed',
  'collaborator.removed',
  'share_link.created',
  'share_link.revoked',
  'share_link.deleted',
  'grant.created',
  'grant.revoked',
  'grant.deleted',
  'collection.created',
  'collection.updated',
  'collection.deleted',
  'collection.restored',
  'client.created',
  'client.updated',
  'client.deleted',
  'client.restored',
  'asset.created',
  'asset.updated',
  'asset.uploaded',
  'asset.ready',
  'asset.errored',
  'asset.deleted',
] as const;
export type RecordedEventType = (typeof RECORDED_EVENT_TYPES)[number];

/** Sent to one webhook endpoint on request, never recorded in the event list. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Every type an event payload can have, as the OpenAPI document lists them. */
export const EVENT_TYPES = [...RECORDED_EVENT_TYPES, WEBHOOK_TEST_EVENT] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The version of the API an event's `data.object` is shaped by. */
export const API_VERSION = '2026-11-24';
