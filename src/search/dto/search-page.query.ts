import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

export const SEARCH_PAGE_DEFAULT = 10;
export const SEARCH_PAGE_MAX = 100;
/**
 * A `next_page`: where the next page starts among the results, 0 to 10,000 (pages reach that deep
 * at most). Callers send it back as it came; the pattern is the whole rule, so a schema states it.
 */
export const SEARCH_PAGE_PATTERN = '^(0|[1-9][0-9]{0,3}|10000)$';

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
    description: "The previous answer's `next_page`, to read the page after it (send it back as it came)",
    maxLength: 5,
    pattern: SEARCH_PAGE_PATTERN,
    example: '10',
  })
  @IsOptional()
  @Matches(new RegExp(SEARCH_PAGE_PATTERN), { message: "page must be a previous answer's next_page" })
  page?: string;
}
