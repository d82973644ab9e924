import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDate, IsIn, IsMongoId, IsOptional, IsString, MaxLength } from 'class-validator';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';
import { DATE_TIME_MAX, toDateTime } from '../../common/validators/date-time-query';
import {
  PROJECT_ACCESS,
  PROJECT_STATUSES,
  PROJECT_TYPES,
  type ProjectAccess,
  type ProjectStatus,
  type ProjectType,
} from '../../projects/project.schema';
import { SearchPageQuery } from './search-page.query';

export const SEARCH_SORTS = ['relevance', 'newest', 'oldest'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

/** What a viewer's search of the content takes: words and the filters a viewer may use. */
export class ViewerSearchQuery extends SearchPageQuery {
  @ApiPropertyOptional({
    example: 'blue ocean',
    maxLength: 200,
    description:
      'Words found in primaryTitle, description or topicIds: each word as itself or a prefix, and within one typo for words of 5 letters or more. ' +
      'Empty: every project the filters let through.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ description: 'Only projects of this channel', pattern: OBJECT_ID_PATTERN })
  @IsOptional()
  @IsMongoId({ message: 'channelId must be a valid id' })
  channelId?: string;

  @ApiPropertyOptional({ enum: PROJECT_TYPES })
  @IsOptional()
  @IsIn(PROJECT_TYPES, { message: `projectTypeId must be one of: ${PROJECT_TYPES.join(', ')}` })
  projectTypeId?: ProjectType;

  @ApiPropertyOptional({ description: 'Only the direct children of this project', pattern: OBJECT_ID_PATTERN })
  @IsOptional()
  @IsMongoId({ message: 'parentId must be a valid id' })
  parentId?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    maxLength: DATE_TIME_MAX,
    description: 'Only projects created at or after this time',
  })
  @IsOptional()
  @Transform(toDateTime)
  @IsDate({ message: 'createdAfter must be an ISO 8601 date-time' })
  createdAfter?: Date;

  @ApiPropertyOptional({
    format: 'date-time',
    maxLength: DATE_TIME_MAX,
    description: 'Only projects created at or before this time',
  })
  @IsOptional()
  @Transform(toDateTime)
  @IsDate({ message: 'createdBefore must be an ISO 8601 date-time' })
  createdBefore?: Date;

  @ApiPropertyOptional({
    enum: SEARCH_SORTS,
    default: 'relevance',
    description: 'relevance (newest first without q), newest or oldest first',
  })
  @IsOptional()
  @IsIn(SEARCH_SORTS, { message: `sort must be one of: ${SEARCH_SORTS.join(', ')}` })
  sort: SearchSort = 'relevance';
}

/** A member's or an API key's search of the platform project's content projects. */
export class SearchProjectsQuery extends ViewerSearchQuery {
  @ApiPropertyOptional({ enum: PROJECT_STATUSES })
  @IsOptional()
  @IsIn(PROJECT_STATUSES, { message: `status must be one of: ${PROJECT_STATUSES.join(', ')}` })
  status?: ProjectStatus;

  @ApiPropertyOptional({ enum: PROJECT_ACCESS })
  @IsOptional()
  @IsIn(PROJECT_ACCESS, { message: `access must be one of: ${PROJECT_ACCESS.join(', ')}` })
  access?: ProjectAccess;
}
