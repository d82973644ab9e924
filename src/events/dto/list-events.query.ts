import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { DATE_TIME_MAX, toDateTime } from '../../common/validators/date-time-query';
import { IsDate, IsIn, IsMongoId, IsOptional, Matches } from 'class-validator';
import { PageLimitQuery } from '../../common/paging/finance-list.query';
import { RECORDED_EVENT_TYPES, type RecordedEventType } from '../event-types';

export const EVENT_ID_PATTERN = '^evt_[0-9a-f]{24}$';

export class ListEventsQuery extends PageLimitQuery {
  @ApiPropertyOptional({
    description: 'Id of the last event of the previous page',
    pattern: EVENT_ID_PATTERN,
    maxLength: 28,
  })
  @IsOptional()
  @Matches(new RegExp(EVENT_ID_PATTERN), {
    message: 'startingAfter must be an event id (evt_ and 24 hexadecimal digits)',
  })
  startingAfter?: string;

  @ApiPropertyOptional({ enum: RECORDED_EVENT_TYPES, description: 'Only events of this type' })
  @IsOptional()
  @IsIn(RECORDED_EVENT_TYPES, { message: `type must be one of: ${RECORDED_EVENT_TYPES.join(', ')}` })
  type?: RecordedEventType;

  @ApiPropertyOptional({
    description: 'Only events about this object: the id of a customer, card, payment or other resource',
    pattern: '^[0-9a-fA-F]{24}$',
    maxLength: 24,
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toLowerCase() : value))
  @IsMongoId({ message: 'object must be the id of a resource (24 hexadecimal digits)' })
  object?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    maxLength: DATE_TIME_MAX,
    description: 'Only events created at or after this time',
  })
  @IsOptional()
  @Transform(toDateTime)
  @IsDate({ message: 'createdFrom must be an ISO 8601 date-time' })
  createdFrom?: Date;

  @ApiPropertyOptional({
    format: 'date-time',
    maxLength: DATE_TIME_MAX,
    description: 'Only events created at or before this time',
  })
  @IsOptional()
  @Transform(toDateTime)
  @IsDate({ message: 'createdTo must be an ISO 8601 date-time' })
  createdTo?: Date;
}
