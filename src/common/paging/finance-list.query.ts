import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsMongoId, IsOptional, Max, Min } from 'class-validator';
import { Types } from 'mongoose';
import { isValidObjectId } from '../pipes/object-id';
import { OBJECT_ID_PATTERN } from '../pipes/object-id';

export const FINANCE_PAGE_DEFAULT = 20;
export const FINANCE_PAGE_MAX = 100;

/** The page size of the cursor-paged lists (finance, events, audit log): 20 by default, at most 100. */
export class PageLimitQuery {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: FINANCE_PAGE_MAX,
    default: FINANCE_PAGE_DEFAULT,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(FINANCE_PAGE_MAX)
  limit: number = FINANCE_PAGE_DEFAULT;
}

/** Cursor paging of the finance lists: newest first, `startingAfter` is the last id already seen. */
export class FinanceListQuery extends PageLimitQuery {
  @ApiPropertyOptional({
    // No example: Swagger UI would pre-fill it and "Try it out" would page past every record.
    description: 'Id of the last object of the previous page',
    pattern: OBJECT_ID_PATTERN,
  })
  @IsOptional()
  @IsMongoId({ message: 'startingAfter must be a valid id' })
  startingAfter?: string;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

/** Builds a page from `limit + 1` rows fetched newest first. */
export function toPage<Row, T>(rows: Row[], limit: number, map: (row: Row) => T): Page<T> {
  return { data: rows.slice(0, limit).map(map), hasMore: rows.length > limit };
}

/**
 * Filter fragment for "older than the cursor" on `_id` order (ObjectIds grow with time), for a lean
 * read (`Records`, `TenantRecords`), which sends conditions to the collection uncast: the id as an
 * ObjectId, the operator plain (a repository's operators are trusted).
 */
export function olderThan(startingAfter?: string): { _id?: { $lt: Types.ObjectId } } {
  return isValidObjectId(startingAfter) ? { _id: { $lt: new Types.ObjectId(startingAfter) } } : {};
}

export class PageMetaDto {
  @ApiProperty({ description: 'Whether more objects follow this page' })
  hasMore: boolean;
}
