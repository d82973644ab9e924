import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/**
 * The characters `String.prototype.trim()` removes, spelled out so that every regex engine (the
 * service's and a client's) reads the same set: `\s` differs between JavaScript and other engines.
 */
const TRIMMED = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/** OpenAPI `pattern` of a text that is not blank: it holds at least one character that trimming keeps. */
export const NOT_BLANK_PATTERN = `[^${TRIMMED}]`;

/**
 * A class-transformer `@Transform` that trims a string of at most `max` characters. A longer one is
 * left as sent, so `@MaxLength(max)` refuses it: the documented `maxLength` applies to what the
 * client sent, not to what is left after trimming.
 */
export function trimWithin(max: number) {
  return ({ value }: { value: unknown }): unknown =>
    typeof value === 'string' && value.length <= max ? value.trim() : value;
}

/**
 * A required, not-blank text of at most `max` characters, trimmed: validation and its OpenAPI
 * schema in one decorator.
 */
export function NotBlankText(max: number, example: string, description?: string): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      example,
      minLength: 1,
      maxLength: max,
      pattern: NOT_BLANK_PATTERN,
      description: description
        ? `${description}. Not blank; surrounding whitespace is trimmed`
        : 'Not blank; surrounding whitespace is trimmed',
    }),
    Transform(trimWithin(max)),
    IsString(),
    IsNotEmpty({ message: '$property must not be empty' }),
    MaxLength(max),
  );
}
