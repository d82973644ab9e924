import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';

export const CONTENT_PAGE_DEFAULT = 100;
export const CONTENT_PAGE_MAX = 500;

/** `?limit=&skip=` of the content lists; the total goes out in `X-Total-Count`. */
export class ContentListQuery {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: CONTENT_PAGE_MAX,
    default: CONTENT_PAGE_DEFAULT,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(CONTENT_PAGE_MAX)
  limit: number = CONTENT_PAGE_DEFAULT;

  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 0, maximum: 1_000_000, default: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  skip: number = 0;
}

/** `?includeDeleted=true` for the soft-deletable resources. */
export class IncludeDeletedQuery {
  @ApiPropertyOptional({ type: Boolean, default: false, description: 'Also return soft-deleted records' })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'includeDeleted must be true or false' })
  includeDeleted: boolean = false;
}
