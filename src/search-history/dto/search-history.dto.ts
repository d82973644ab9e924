import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { SEARCH_SURFACES, type SearchSurface } from '../search-history-entry.schema';
import { HISTORY_MAX_ENTRIES } from '../search-history.service';

export class ListSearchHistoryQuery {
  @ApiPropertyOptional({
    enum: SEARCH_SURFACES,
    description: "Only the searches of one of the dashboard's search boxes",
  })
  @IsOptional()
  @IsIn(SEARCH_SURFACES)
  surface?: SearchSurface;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: HISTORY_MAX_ENTRIES,
    default: HISTORY_MAX_ENTRIES,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(HISTORY_MAX_ENTRIES)
  limit?: number;
}

export class UpdateSearchHistorySettingsDto {
  @ApiProperty({
    description:
      'true: searches are no longer recorded (what is recorded stays until removed); false: recording resumes',
    example: true,
  })
  @IsBoolean()
  paused: boolean;
}
