import { CURRENCY_CODES, isCurrencyCode, minorUnitExponent } from './currencies';
import { decimalText, formatMinorUnits, fromMinorUnits, MoneyError, toMinorUnits } from './money';

function problemOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof MoneyError) return error.problem;
    throw error;
  }
}

describe('currencies', () => {
  it('knows the minor-unit decimals of zero-, two- and three-decimal currencies, in any case', () => {
    expect(['jpy', 'KRW', 'Vnd', 'clp'].map(minorUnitExponent)).toEqual([0, 0, 0, 0]);
    expect(['usd', 'EUR', 'gbp'].map(minorUnitExponent)).toEqual([2, 2, 2]);
    expect(['bhd', 'JOD', 'kwd', 'omr', 'tnd'].map(minorUnitExponent)).toEqual([3, 3, 3, 3, 3]);
  });

  it('refuses unknown codes', () => {
    expect(isCurrencyCode('usd')).toBe(true);
    expect(isCurrencyCode('USD')).toBe(true);
    expect(isCurrencyCode('xyz')).toBe(false);
    expect(isCurrencyCode('us')).toBe(false);
    expect(isCurrencyCode(42)).toBe(false);
    expect(() => minorUnitExponent('abc')).toThrow(RangeError);
  });

  it('lists lower-case three-letter codes without duplicates', () => {
    expect(CURRENCY_CODES.every((code) => /^[a-z]{3}$/.test(code))).toBe(true);
    expect(new Set(CURRENCY_CODES).size).toBe(CURRENCY_CODES.length);
    expect(CURRENCY_CODES.length).toBeGreaterThan(150);
  });
});

describe('decimalText', () => {
  it.each([
    [10.005, '10.005'],
    [0.1, '0.1'],
    [100, '100'],
    [1e-7, '0.0000001'],
    [1.5e-10, '0.00000000015'],
    [1e21, '1000000000000000000000'],
    [-2.5, '-2.5'],
    [0, '0'],
    [-0, '0'],
  ])('%p is %p', (value, text) => {
    expect(decimalText(value)).toBe(text);
  });

  it('refuses NaN and infinities', () => {
    expect(problemOf(() => decimalText(Number.NaN))).toBe('not_a_number');
    expect(problemOf(() => decimalText(Number.POSITIVE_INFINITY))).toBe('not_a_number');
  });
});

describe('toMinorUnits', () => {
  it('converts exactly, with no floating-point drift', () => {
    expect(toMinorUnits(0.3, 'usd')).toBe(30);
    expect(toMinorUnits(19.99, 'usd')).toBe(1999);
    expect(toMinorUnits(1.005, 'kwd')).toBe(1005);
    expect(toMinorUnits(10, 'jpy')).toBe(10);
    expect(toMinorUnits(0.01, 'eur')).toBe(1);
    expect(toMinorUnits(1.1, 'usd')).toBe(110);
    // 1.15 * 100 is 114.99999999999999 in floating point.
    expect(toMinorUnits(1.15, 'usd')).toBe(115);
  });

  it('refuses more decimals than the currency has', () => {
    expect(problemOf(() => toMinorUnits(10.005, 'usd'))).toBe('too_many_decimals');
    expect(problemOf(() => toMinorUnits(1.5, 'jpy'))).toBe('too_many_decimals');
    expect(problemOf(() => toMinorUnits(1.0005, 'kwd'))).toBe('too_many_decimals');
    expect(problemOf(() => toMinorUnits(0.001, 'usd'))).toBe('too_many_decimals');
    expect(problemOf(() => toMinorUnits(1e-7, 'usd'))).toBe('too_many_decimals');
  });

  it('refuses zero and negative amounts', () => {
    expect(problemOf(() => toMinorUnits(0, 'usd'))).toBe('not_positive');
    expect(problemOf(() => toMinorUnits(-0, 'usd'))).toBe('not_positive');
    expect(problemOf(() => toMinorUnits(-5, 'usd'))).toBe('not_positive');
  });

  it('allows up to 99,999,999 major units and no more', () => {
    expect(toMinorUnits(99_999_999, 'usd')).toBe(9_999_999_900);
    expect(toMinorUnits(99_999_998.99, 'usd')).toBe(9_999_999_899);
    expect(toMinorUnits(99_999_999, 'kwd')).toBe(99_999_999_000);
    expect(problemOf(() => toMinorUnits(99_999_999.01, 'usd'))).toBe('too_large');
    expect(problemOf(() => toMinorUnits(100_000_000, 'jpy'))).toBe('too_large');
    expect(problemOf(() => toMinorUnits(1e300, 'usd'))).toBe('too_large');
  });
});

describe('formatMinorUnits and fromMinorUnits', () => {
  it('puts the decimal point by the currency exponent', () => {
    expect(formatMinorUnits(30, 'usd')).toBe('0.30');
    expect(formatMinorUnits(5, 'usd')).toBe('0.05');
    expect(formatMinorUnits(1005, 'kwd')).toBe('1.005');
    expect(formatMinorUnits(10, 'jpy')).toBe('10');
    expect(formatMinorUnits(-150, 'eur')).toBe('-1.50');
  });

  it('round-trips with toMinorUnits', () => {
    for (const [amount, currency] of [
      [0.3, 'usd'],
      [0.01, 'usd'],
      [1.005, 'kwd'],
      [10, 'jpy'],
      [99_999_999, 'usd'],
      [12345.67, 'eur'],
    ] as const) {
      expect(fromMinorUnits(toMinorUnits(amount, currency), currency)).toBe(amount);
    }
  });

  it('sums in minor units without drift: 0.1 + 0.2 is exactly 0.3', () => {
    expect(fromMinorUnits(toMinorUnits(0.1, 'usd') + toMinorUnits(0.2, 'usd'), 'usd')).toBe(0.3);
    expect(toMinorUnits(0.3, 'usd') - toMinorUnits(0.1, 'usd') - toMinorUnits(0.2, 'usd')).toBe(0);
  });

  it('refuses fractional minor units', () => {
    expect(() => formatMinorUnits(1.5, 'usd')).toThrow(RangeError);
  });
});
