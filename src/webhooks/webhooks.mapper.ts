import type {
  WebhookAttemptResponse,
  WebhookDeliveryResponse,
  WebhookEndpointResponse,
} from './dto/webhook-endpoint.response';
import type { WebhookAttempt, WebhookDelivery } from './webhook-delivery.schema';
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

/**
 * The delivery, its latest attempt's outcome and every attempt, newest first, the one under way
 * included; the payload stays in (it is the event, listed by /v1/events).
 */
export function toDeliveryResponse(delivery: WebhookDelivery): WebhookDeliveryResponse {
  const recorded = [...(delivery.attempts ?? [])].reverse();
  const underWay: WebhookAttempt[] = delivery.claimedUntil
    ? [
        {
          attempt: delivery.attempt,
          status: 'pending',
          responseStatus: null,
          responseBody: null,
          durationMs: null,
          error: null,
          createdAt: delivery.claimedAt ?? delivery.claimedUntil,
        },
      ]
    : [];
  return {
    id: String(delivery._id),
    endpointId: String(delivery.endpointId),
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
    attempts: [...underWay, ...recorded].map(toAttemptResponse),
  };
}

export function toAttemptResponse(attempt: WebhookAttempt): WebhookAttemptResponse {
  return {
    attempt: attempt.attempt,
    status: attempt.status,
    responseStatus: attempt.responseStatus ?? null,
    responseBody: attempt.responseBody ?? null,
    durationMs: attempt.durationMs ?? null,
    error: attempt.error ?? null,
    createdAt: new Date(attempt.createdAt).toISOString(),
  };
}
