import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

export const SEARCH_PAGE_DEFAULT = 10;
export const SEARCH_PAGE_MAX = 100;

/** `limit` and `page` of every search route, as Stripe's search takes them. */
export class SearchPageQuery {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: SEARCH_PAGE_MAX,
    default: SEARCH_PAGE_DEFAULT,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: `limit must be between 1 and ${SEARCH_PAGE_MAX}` })
  @Max(SEARCH_PAGE_MAX, { message: `limit must be between 1 and ${SEARCH_PAGE_MAX}` })
  limit: number = SEARCH_PAGE_DEFAULT;

  @ApiPropertyOptional({
    description: "The previous answer's `next_page`, to read the page after it (an opaque cursor)",
    maxLength: 64,
    pattern: '^[A-Za-z0-9_-]{1,64}$',
  })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: "page must be a previous answer's next_page" })
  page?: string;
}
