import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { ContentListQuery } from '../../common/paging/content-list.query';
import {
  PROJECT_ACCESS,
  PROJECT_STATUSES,
  PROJECT_TYPES,
  type ProjectAccess,
  type ProjectStatus,
  type ProjectType,
} from '../project.schema';

export class ListProjectsQuery extends ContentListQuery {
  @ApiPropertyOptional({ enum: PROJECT_STATUSES })
  @IsOptional()
  @IsIn(PROJECT_STATUSES, { message: `status must be one of: ${PROJECT_STATUSES.join(', ')}` })
  status?: ProjectStatus;

  @ApiPropertyOptional({ enum: PROJECT_TYPES })
  @IsOptional()
  @IsIn(PROJECT_TYPES, { message: `projectTypeId must be one of: ${PROJECT_TYPES.join(', ')}` })
  projectTypeId?: ProjectType;

  @ApiPropertyOptional({ enum: PROJECT_ACCESS })
  @IsOptional()
  @IsIn(PROJECT_ACCESS, { message: `access must be one of: ${PROJECT_ACCESS.join(', ')}` })
  access?: ProjectAccess;

  @ApiPropertyOptional({
    example: 'blue',
    maxLength: 200,
    description: 'Text found in primaryTitle or description, ignoring case',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
}
