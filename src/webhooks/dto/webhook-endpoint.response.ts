import { ApiProperty } from '@nestjs/swagger';
import { PageMetaDto } from '../../common/paging/finance-list.query';
import { MAX_ATTEMPTS } from '../webhook-deliveries.repository';
import { DELIVERY_STATUSES } from '../webhook-delivery.schema';
import { ENDPOINT_STATUSES } from '../webhook-endpoint.schema';
import { ENABLED_EVENT_VALUES } from './webhook-endpoint.dto';
import { EVENT_TYPES } from '../../events/event-types';

export class WebhookEndpointResponse {
  @ApiProperty({ example: '6650c0ffee0000000000d001' })
  id: string;

  @ApiProperty({ example: 'https://example.com/webhooks' })
  url: string;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ type: [String], enum: ENABLED_EVENT_VALUES })
  enabledEvents: string[];

  @ApiProperty({ enum: ENDPOINT_STATUSES })
  status: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the service disabled the endpoint (its deliveries kept failing)',
  })
  disabledReason: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

/** The endpoint with its new signing secret: shown by create and by a roll only. */
export class WebhookEndpointWithSecret extends WebhookEndpointResponse {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: '`whsec_` and the base64 of 32 random bytes; shown here only',
  })
  secret: string;
}

export class WebhookEndpointEnvelope {
  @ApiProperty({ type: WebhookEndpointResponse })
  data: WebhookEndpointResponse;
}

export class WebhookEndpointWithSecretEnvelope {
  @ApiProperty({ type: WebhookEndpointWithSecret })
  data: WebhookEndpointWithSecret;
}

export class WebhookEndpointListResponse extends PageMetaDto {
  @ApiProperty({ type: [WebhookEndpointResponse] })
  data: WebhookEndpointResponse[];
}

export class WebhookEndpointDeletedResponse {
  @ApiProperty()
  id: string;

  @ApiProperty({ example: true, enum: [true] })
  deleted: true;

  @ApiProperty({ example: 'Webhook endpoint deleted' })
  message: string;
}

/** One attempt of a delivery and how it went, as sent: every attempt is kept, failed ones included. */
export class WebhookAttemptResponse {
  @ApiProperty({ type: 'integer', example: 1, description: '1 for the first attempt of the delivery, then 2, 3, ...' })
  attempt: number;

  @ApiProperty({ enum: DELIVERY_STATUSES, description: '`pending` while the attempt is under way' })
  status: string;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The response status; null when none came' })
  responseStatus: number | null;

  @ApiProperty({ type: String, nullable: true, description: 'At most 1 KiB of the response body' })
  responseBody: string | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'From the request sent to the response read; null while under way',
  })
  durationMs: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the attempt failed (a status outside 2xx, a timeout, a refused address...)',
  })
  error: string | null;

  @ApiProperty({ format: 'date-time', description: 'When the attempt was made (claimed, right before it was sent)' })
  createdAt: string;
}

/** One event on its way to an endpoint, how its latest attempt went, and its latest attempts. */
export class WebhookDeliveryResponse {
  @ApiProperty()
  id: string;

  @ApiProperty({ description: 'The endpoint the event is sent to' })
  endpointId: string;

  @ApiProperty({ example: 'evt_6650c0ffee0000000000e001' })
  eventId: string;

  @ApiProperty({ enum: EVENT_TYPES })
  eventType: string;

  @ApiProperty({ type: 'integer', description: 'Attempts made so far, the one under way included' })
  attempt: number;

  @ApiProperty({ enum: DELIVERY_STATUSES })
  status: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "The latest attempt's response status; null when none came",
  })
  responseStatus: number | null;

  @ApiProperty({ type: String, nullable: true, description: "At most 1 KiB of the latest attempt's response body" })
  responseBody: string | null;

  @ApiProperty({ type: 'integer', nullable: true })
  durationMs: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the latest attempt failed without a response (timeout, refused address...)',
  })
  error: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the next attempt is due; null once succeeded or failed',
  })
  nextAttemptAt: string | null;

  @ApiProperty({
    type: [WebhookAttemptResponse],
    description: `Every attempt of the delivery, newest first, failed ones included (at most ${MAX_ATTEMPTS}); the one under way, if any, is \`pending\``,
  })
  attempts: WebhookAttemptResponse[];
}

export class WebhookDeliveryEnvelope {
  @ApiProperty({ type: WebhookDeliveryResponse })
  data: WebhookDeliveryResponse;
}

export class WebhookDeliveryListResponse extends PageMetaDto {
  @ApiProperty({ type: [WebhookDeliveryResponse] })
  data: WebhookDeliveryResponse[];
}
