import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { DATE_TIME_MAX, toDateTime } from '../../common/validators/date-time-query';
import { IsDate, IsIn, IsMongoId, IsOptional, Matches } from 'class-validator';
import { PageLimitQuery } from '../../common/paging/finance-list.query';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';
import { AUDIT_ACTIONS } from '../audit-entry.schema';

/** The filters the list and the export share. */
export class AuditFiltersQuery {
  @ApiPropertyOptional({ enum: AUDIT_ACTIONS, description: 'Only entries of this action' })
  @IsOptional()
  @IsIn(AUDIT_ACTIONS, { message: `action must be one of: ${AUDIT_ACTIONS.join(', ')}` })
  action?: string;

  @ApiPropertyOptional({
    pattern: OBJECT_ID_PATTERN,
    minLength: 24,
    maxLength: 24,
    description: 'Only entries of this user or API key',
  })
  @IsOptional()
  @IsMongoId({ message: 'actorId must be a valid id' })
  actorId?: string;

  @ApiPropertyOptional({
    pattern: OBJECT_ID_PATTERN,
    minLength: 24,
    maxLength: 24,
    description: 'Only entries of this platform project',
  })
  @IsOptional()
  @IsMongoId({ message: 'projectId must be a valid id' })
  projectId?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    maxLength: DATE_TIME_MAX,
    description: 'Only entries at or after this time',
  })
  @IsOptional()
  @Transform(toDateTime)
  @IsDate({ message: 'from must be an ISO 8601 date-time' })
  from?: Date;

  @ApiPropertyOptional({
    format: 'date-time',
    maxLength: DATE_TIME_MAX,
    description: 'Only entries at or before this time',
  })
  @IsOptional()
  @Transform(toDateTime)
  @IsDate({ message: 'to must be an ISO 8601 date-time' })
  to?: Date;
}

export class AuditLogQuery extends IntersectionType(AuditFiltersQuery, PageLimitQuery) {
  @ApiPropertyOptional({
    pattern: '^aud_[0-9a-f-]{36}$',
    maxLength: 40,
    description: 'Id of the last entry of the previous page',
  })
  @IsOptional()
  @Matches(/^aud_[0-9a-f-]{36}$/, { message: 'startingAfter must be an audit entry id' })
  startingAfter?: string;
}

export class AuditExportQuery extends AuditFiltersQuery {
  @ApiPropertyOptional({ enum: ['jsonl', 'csv'], default: 'jsonl' })
  @IsOptional()
  @IsIn(['jsonl', 'csv'], { message: 'format must be jsonl or csv' })
  format: 'jsonl' | 'csv' = 'jsonl';
}
