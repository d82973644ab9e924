import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  Max,
} from 'class-validator';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';
import { RECORDED_EVENT_TYPES } from '../../events/event-types';
import { ENDPOINT_STATUSES, type EndpointStatus } from '../webhook-endpoint.schema';

export const ENABLED_EVENT_VALUES = ['*', ...RECORDED_EVENT_TYPES] as const;
export const URL_MAX = 2048;
export const DESCRIPTION_MAX = 500;

const URL_DOC = {
  description:
    'Where events are sent, `https` only (unless the server sets `WEBHOOK_ALLOW_PRIVATE_URLS=true`). A host that is or resolves to a loopback, ' +
    'private, link-local, unique-local, multicast or cloud-metadata address is refused.',
  example: 'https://example.com/webhooks',
  format: 'uri',
  maxLength: URL_MAX,
};
const ENABLED_EVENTS_DOC = {
  type: [String],
  enum: [...ENABLED_EVENT_VALUES],
  enumName: 'EnabledEvent',
  minItems: 1,
  maxItems: ENABLED_EVENT_VALUES.length,
  uniqueItems: true,
  example: ['payment.succeeded', 'payment.refunded'],
  description: '`["*"]` for every event, or the event types to send',
};
const EVENTS_MESSAGE = `each value in enabledEvents must be * or one of: ${RECORDED_EVENT_TYPES.join(', ')}`;

export class CreateWebhookEndpointDto {
  @ApiProperty(URL_DOC)
  @IsString()
  @MaxLength(URL_MAX)
  url: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: DESCRIPTION_MAX, example: 'Order fulfilment' })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX)
  description?: string | null;

  @ApiProperty(ENABLED_EVENTS_DOC)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(ENABLED_EVENT_VALUES.length)
  @ArrayUnique({ message: 'enabledEvents must not repeat a value' })
  @IsIn(ENABLED_EVENT_VALUES, { each: true, message: EVENTS_MESSAGE })
  enabledEvents: string[];
}

export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional(URL_DOC)
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(URL_MAX)
  url?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: DESCRIPTION_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX)
  description?: string | null;

  @ApiPropertyOptional(ENABLED_EVENTS_DOC)
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(ENABLED_EVENT_VALUES.length)
  @ArrayUnique({ message: 'enabledEvents must not repeat a value' })
  @IsIn(ENABLED_EVENT_VALUES, { each: true, message: EVENTS_MESSAGE })
  enabledEvents?: string[];

  @ApiPropertyOptional({
    enum: ENDPOINT_STATUSES,
    description: 'Enabling an endpoint the service disabled clears its reason',
  })
  @IsOptionalNotNull()
  @IsIn(ENDPOINT_STATUSES, { message: 'status must be enabled or disabled' })
  status?: EndpointStatus;
}

export class RollSecretDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: 24,
    default: 24,
    description: 'How long the current secret keeps signing beside the new one (0: not at all)',
  })
  @IsOptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(24)
  expiresInHours?: number;
}
