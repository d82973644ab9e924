import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { isCurrencyCode } from '../../common/money/currencies';
import { MoneyError, toMinorUnits } from '../../common/money/money';

function problem(value: unknown, currency: unknown): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'amount must be a number';
  if (value <= 0) return 'amount must be greater than 0';
  // Without a valid currency only the sign can be checked; the currency field reports its own error.
  if (!isCurrencyCode(currency)) return null;
  try {
    toMinorUnits(value, currency);
    return null;
  } catch (error) {
    if (error instanceof MoneyError) return error.message;
    throw error;
  }
}

/**
 * A positive amount in major units that the currency named by `currencyField` can express: no more
 * decimals than its minor unit, at most 99,999,999. Without `currencyField`, only "a number > 0".
 */
export function IsAmount(currencyField?: string, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isAmount',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate(value: unknown, args: ValidationArguments): boolean {
          const currency = currencyField ? (args.object as Record<string, unknown>)[currencyField] : undefined;
          return problem(value, currency) === null;
        },
        defaultMessage(args: ValidationArguments): string {
          const currency = currencyField ? (args.object as Record<string, unknown>)[currencyField] : undefined;
          return problem(args.value, currency) ?? 'amount is invalid';
        },
      },
    });
  };
}
