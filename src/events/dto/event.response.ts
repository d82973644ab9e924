import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageMetaDto } from '../../common/paging/finance-list.query';
import { EVENT_TYPES } from '../event-types';

export class EventDataDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The resource as its GET returns it, after the change (secrets never included)',
  })
  object: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'On `*.updated`, `customer.default_card_changed` and `payment.refunded`: the fields that changed, with their values before',
  })
  previousAttributes?: Record<string, unknown>;
}

export class EventRequestDto {
  @ApiProperty({ type: String, nullable: true, description: 'The X-Request-Id of the request that made the change' })
  id: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Its Idempotency-Key, when it had one' })
  idempotencyKey: string | null;
}

/** An event, as the event list returns it and a webhook delivery sends it. */
export class EventResponse {
  @ApiProperty({ example: 'evt_6650c0ffee0000000000e001' })
  id: string;

  @ApiProperty({ enum: EVENT_TYPES, example: 'payment.succeeded' })
  type: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ description: 'The platform project the event belongs to' })
  projectId: string;

  @ApiProperty({ example: '2026-11-24' })
  apiVersion: string;

  @ApiProperty({ type: EventDataDto })
  data: EventDataDto;

  @ApiProperty({ type: EventRequestDto })
  request: EventRequestDto;
}

export class EventEnvelope {
  @ApiProperty({ type: EventResponse })
  data: EventResponse;
}

export class EventListResponse extends PageMetaDto {
  @ApiProperty({ type: [EventResponse] })
  data: EventResponse[];
}
