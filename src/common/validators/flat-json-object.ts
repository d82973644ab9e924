import { applyDecorators } from '@nestjs/common';
import { ApiProperty, type ApiPropertyOptions, type SchemaObject } from '@nestjs/swagger';
import { registerDecorator, ValidationOptions } from 'class-validator';

export const FLAT_OBJECT_MAX_KEYS = 20;
export const FLAT_OBJECT_MAX_STRING = 500;
const KEY = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * OpenAPI schema of a free-form JSON object such as an address: up to 20 keys of letters, digits,
 * `_` or `-`, each holding a string, a number, a boolean or null. Flat on purpose: keys with `$` or
 * `.` and nested arrays cannot be stored portably (FerretDB refuses nested arrays), and an address
 * needs neither.
 */
export const FLAT_OBJECT_SCHEMA: SchemaObject = {
  type: 'object',
  maxProperties: FLAT_OBJECT_MAX_KEYS,
  additionalProperties: {
    nullable: true,
    oneOf: [{ type: 'string', maxLength: FLAT_OBJECT_MAX_STRING }, { type: 'number' }, { type: 'boolean' }],
  },
};

export const FLAT_OBJECT_DESCRIPTION =
  `A flat JSON object: at most ${FLAT_OBJECT_MAX_KEYS} keys made of letters, digits, _ or -, each holding a string (up to ${FLAT_OBJECT_MAX_STRING} characters), a number, a boolean or null.`;

export function isFlatJsonObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  if (entries.length > FLAT_OBJECT_MAX_KEYS) return false;
  return entries.every(
    ([key, item]) =>
      KEY.test(key) &&
      (item === null ||
        typeof item === 'boolean' ||
        (typeof item === 'number' && Number.isFinite(item)) ||
        (typeof item === 'string' && item.length <= FLAT_OBJECT_MAX_STRING)),
  );
}

/** Validates a field against FLAT_OBJECT_SCHEMA. */
export function IsFlatJsonObject(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isFlatJsonObject',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `$property must be an object of at most ${FLAT_OBJECT_MAX_KEYS} keys (letters, digits, _ or -) holding strings, numbers, booleans or null`,
        ...options,
      },
      validator: { validate: isFlatJsonObject },
    });
}

/** Swagger schema and validation of a flat JSON object property in one decorator. */
export function ApiFlatJsonObject(options: { required?: boolean; example?: object; description?: string } = {}): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ ...FLAT_OBJECT_SCHEMA, required: options.required ?? false, example: options.example, description: options.description ?? FLAT_OBJECT_DESCRIPTION } as unknown as ApiPropertyOptions),
    IsFlatJsonObject(),
  );
}
