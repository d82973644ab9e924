import type { WebhookDeliveryResponse, WebhookEndpointResponse } from './dto/webhook-endpoint.response';
import type { WebhookDelivery } from './webhook-delivery.schema';
import type { WebhookEndpoint } from './webhook-endpoint.schema';

/** The endpoint's fields, never its secrets. */
export function toEndpointResponse(endpoint: WebhookEndpoint): WebhookEndpointResponse {
  return {
    id: String(endpoint._id),
    url: endpoint.url,
    description: endpoint.description ?? null,
    enabledEvents: [...endpoint.enabledEvents],
    status: endpoint.status,
    disabledReason: endpoint.disabledReason ?? null,
    createdAt: new Date(endpoint.createdAt).toISOString(),
    updatedAt: new Date(endpoint.updatedAt).toISOString(),
  };
}

/** The delivery's latest attempt; the payload stays in (it is the event, listed by /v1/events). */
export function toDeliveryResponse(delivery: WebhookDelivery): WebhookDeliveryResponse {
  return {
    id: String(delivery._id),
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    attempt: delivery.attempt,
    status: delivery.status,
    responseStatus: delivery.responseStatus ?? null,
    responseBody: delivery.responseBody ?? null,
    durationMs: delivery.durationMs ?? null,
    error: delivery.error ?? null,
    createdAt: new Date(delivery.createdAt).toISOString(),
    nextAttemptAt: delivery.nextAttemptAt ? new Date(delivery.nextAttemptAt).toISOString() : null,
  };
}
