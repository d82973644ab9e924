import { ValidateIf, type ValidationOptions } from 'class-validator';

/**
 * The field may be left out, but when it is sent it is validated like any other value, so an
 * explicit `null` is refused instead of being stored. `@IsOptional()` would let `null` through,
 * which is wrong for fields whose schema does not say `nullable`.
 */
export function IsOptionalNotNull(options?: ValidationOptions): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined, options);
}
