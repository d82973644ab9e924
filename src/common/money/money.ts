import { minorUnitExponent } from './currencies';

/** Largest amount of one payment, in major units (99,999,999 USD, 99,999,999 JPY, ...). */
export const MAX_MAJOR_UNITS = 99_999_999;

export type MoneyProblem = 'not_a_number' | 'not_positive' | 'too_many_decimals' | 'too_large';

/** An amount that cannot be expressed in the currency's minor units; `message` is for the client. */
export class MoneyError extends Error {
  constructor(
    readonly problem: MoneyProblem,
    message: string,
  ) {
    super(message);
    this.name = 'MoneyError';
  }
}

const NUMBER_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i;

/**
 * The plain decimal text of a finite number, without exponent: `1e-7` becomes `0.0000001`.
 * JavaScript prints a number with the fewest digits that read back as the same number, so this is
 * the decimal the client wrote in its JSON (for up to 15 significant digits), not the binary
 * approximation the parser stored: `10.005` stays `10.005`.
 */
export function decimalText(value: number): string {
  if (!Number.isFinite(value)) throw new MoneyError('not_a_number', 'amount must be a finite number');
  const match = NUMBER_TEXT.exec(String(value));
  if (!match) throw new MoneyError('not_a_number', 'amount must be a finite number');
  const [, sign, whole, fraction = '', exponentText = '0'] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponentText);
  let integerPart: string;
  let fractionPart: string;
  if (point <= 0) {
    integerPart = '0';
    fractionPart = '0'.repeat(-point) + digits;
  } else if (point >= digits.length) {
    integerPart = digits + '0'.repeat(point - digits.length);
    fractionPart = '';
  } else {
    integerPart = digits.slice(0, point);
    fractionPart = digits.slice(point);
  }
  integerPart = integerPart.replace(/^0+(?=\d)/, '');
  fractionPart = fractionPart.replace(/0+$/, '');
  const text = fractionPart ? `${integerPart}.${fractionPart}` : integerPart;
  return sign && text !== '0' ? `-${text}` : text;
}

/**
 * Converts an amount in major units (as sent in JSON) to an integer count of minor units, exactly,
 * by string arithmetic: `0.3 USD` is `30`, never `29.999999999999996`. Refuses amounts that are not
 * above zero, carry more decimals than the currency has, or exceed the per-payment maximum.
 */
export function toMinorUnits(amount: number, currency: string): number {
  const exponent = minorUnitExponent(currency);
  const text = decimalText(amount);
  if (text.startsWith('-') || text === '0') {
    throw new MoneyError('not_positive', 'amount must be greater than 0');
  }
  const [whole, fraction = ''] = text.split('.');
  if (fraction.length > exponent) {
    throw new MoneyError(
      'too_many_decimals',
      exponent === 0
        ? `amount must be a whole number in ${currency.toUpperCase()}`
        : `amount has more than ${exponent} decimals, the smallest unit of ${currency.toUpperCase()}`,
    );
  }
  if (
    whole.length > String(MAX_MAJOR_UNITS).length ||
    Number(whole) > MAX_MAJOR_UNITS ||
    (Number(whole) === MAX_MAJOR_UNITS && fraction !== '')
  ) {
    throw new MoneyError('too_large', `amount must not exceed ${MAX_MAJOR_UNITS} ${currency.toUpperCase()}`);
  }
  // At most 8 + 3 digits: well inside the exactly representable integers.
  return Number(whole + fraction.padEnd(exponent, '0'));
}

/** The decimal text of a count of minor units: `30` USD is `"0.30"`, `1005` KWD is `"1.005"`. */
export function formatMinorUnits(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`Minor units must be a safe integer, got ${minor}`);
  const exponent = minorUnitExponent(currency);
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  const text = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return negative ? `-${text}` : text;
}

/**
 * A count of minor units as a JSON number in major units: `30` USD is `0.3`. Built from the decimal
 * text, so the number is the one nearest that decimal and prints as it.
 */
export function fromMinorUnits(minor: number, currency: string): number {
  return Number(formatMinorUnits(minor, currency));
}
