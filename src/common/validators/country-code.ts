import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, isISO31661Alpha2 } from 'class-validator';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Every ISO 3166-1 alpha-2 code, upper case, from class-validator's own table. */
export const COUNTRY_CODES: readonly string[] = [...LETTERS].flatMap((first) =>
  [...LETTERS].map((second) => first + second).filter((code) => isISO31661Alpha2(code)),
);

/**
 * An ISO 3166-1 alpha-2 country, accepted in upper or lower case and kept in upper case. The
 * document lists the upper-case codes only: an enum whose members differ only in case is refused by
 * client generators (two constants of one name). Lower case is normalised before validation.
 */
export function ApiCountryCode(options: { example?: string; description?: string } = {}): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      // OpenAPI 3.0 wants null inside the enum of a nullable enum.
      enum: [...COUNTRY_CODES, null] as string[],
      nullable: true,
      example: options.example ?? 'US',
      default: null,
      description:
        options.description ??
        'ISO 3166-1 alpha-2 country code, upper case (lower case is accepted and stored upper case)',
    }),
    Transform(({ value }) =>
      typeof value === 'string' && value === value.toLowerCase() ? value.toUpperCase() : value,
    ),
    IsIn(COUNTRY_CODES, { message: 'country must be an ISO 3166-1 alpha-2 country code' }),
  );
}
