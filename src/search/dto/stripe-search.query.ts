import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { MAX_QUERY_LENGTH } from '../stripe-query';
import { SearchPageQuery } from './search-page.query';

const LANGUAGE =
  "Stripe's search query language, a subset: `field:'value'` (exact, any case), `field~'value'` (substring, 3 characters or more), " +
  "numbers with `>`, `<`, `>=`, `<=` and `:`, `metadata['key']:'value'`, clauses joined by `AND` or by `OR` (not both), `-` before a clause to negate it. ";

/** `?query=` of the customers' search. */
export class SearchCustomersQuery extends SearchPageQuery {
  @ApiProperty({
    example: "email:'jenny.rosen@example.com'",
    minLength: 1,
    maxLength: MAX_QUERY_LENGTH,
    description:
      LANGUAGE + 'Fields: `email`, `name` (first and last name), `phone`, `created` (Unix seconds), `metadata`.',
  })
  @IsString()
  @IsNotEmpty({ message: 'query must not be empty' })
  @MaxLength(MAX_QUERY_LENGTH)
  query: string;
}

/** `?query=` of the payments' search. */
export class SearchPaymentsQuery extends SearchPageQuery {
  @ApiProperty({
    example: "amount>1000 AND currency:'usd'",
    minLength: 1,
    maxLength: MAX_QUERY_LENGTH,
    description:
      LANGUAGE +
      'Fields: `amount` (in minor units, as Stripe counts it: 1000 is 10.00 USD), `currency`, `customer` (its id), `status`, `created` (Unix seconds), `metadata`.',
  })
  @IsString()
  @IsNotEmpty({ message: 'query must not be empty' })
  @MaxLength(MAX_QUERY_LENGTH)
  query: string;
}
