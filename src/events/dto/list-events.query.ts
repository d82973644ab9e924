import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsDate, IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { FINANCE_PAGE_DEFAULT, FINANCE_PAGE_MAX } from '../../common/paging/finance-list.query';
import { RECORDED_EVENT_TYPES, type RecordedEventType } from '../event-types';

export const EVENT_ID_PATTERN = '^evt_[0-9a-f]{24}$';
const DATE_TIME_MAX = 40;

/** The time a filter names; a longer text than any ISO 8601 date-time is no date (Invalid Date: 400). */
const toDate = ({ value }: { value: unknown }) => (typeof value === 'string' ? new Date(value.length <= DATE_TIME_MAX ? value : Number.NaN) : value);

export class ListEventsQuery {
  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 1, maximum: FINANCE_PAGE_MAX, default: FINANCE_PAGE_DEFAULT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(FINANCE_PAGE_MAX)
  limit: number = FINANCE_PAGE_DEFAULT;

  @ApiPropertyOptional({ description: 'Id of the last event of the previous page', pattern: EVENT_ID_PATTERN, maxLength: 28 })
  @IsOptional()
  @Matches(new RegExp(EVENT_ID_PATTERN), { message: 'startingAfter must be an event id (evt_ and 24 hexadecimal digits)' })
  startingAfter?: string;

  @ApiPropertyOptional({ enum: RECORDED_EVENT_TYPES, description: 'Only events of this type' })
  @IsOptional()
  @IsIn(RECORDED_EVENT_TYPES, { message: `type must be one of: ${RECORDED_EVENT_TYPES.join(', ')}` })
  type?: RecordedEventType;

  @ApiPropertyOptional({ format: 'date-time', maxLength: DATE_TIME_MAX, description: 'Only events created at or after this time' })
  @IsOptional()
  @Transform(toDate)
  @IsDate({ message: 'createdFrom must be an ISO 8601 date-time' })
  createdFrom?: Date;

  @ApiPropertyOptional({ format: 'date-time', maxLength: DATE_TIME_MAX, description: 'Only events created at or before this time' })
  @IsOptional()
  @Transform(toDate)
  @IsDate({ message: 'createdTo must be an ISO 8601 date-time' })
  createdTo?: Date;
}
