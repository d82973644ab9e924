import {
  CARD_EXPIRED,
  checkCardNumber,
  checkExpiry,
  checkNewCard,
  EXPIRY_TOO_FAR,
  INVALID_CARD_NUMBER,
  isExpired,
  normaliseCardNumber,
  parseExpMonth,
  parseExpYear,
  passesLuhn,
  REAL_CARD_REFUSED,
} from './card-validation';
import { findTestCard, TEST_CARDS } from './test-cards';

const NOW = new Date('2026-05-15T12:00:00.000Z');

describe('normaliseCardNumber', () => {
  it('drops spaces and dashes and keeps everything else', () => {
    expect(normaliseCardNumber('4242 4242-4242 4242')).toBe('4242424242424242');
    expect(normaliseCardNumber('4242x4242')).toBe('4242x4242');
  });
});

describe('passesLuhn', () => {
  it.each(['4242424242424242', '378282246310005', '4111111111111111', '79927398713'])('accepts %s', (number) => {
    expect(passesLuhn(number)).toBe(true);
  });

  it.each(['4242424242424241', '378282246310006', '79927398710', '12a4', ''])('refuses %s', (number) => {
    expect(passesLuhn(number)).toBe(false);
  });

  it('every number of the test-card table passes', () => {
    for (const number of TEST_CARDS.keys())
      expect({ number, luhn: passesLuhn(number) }).toEqual({ number, luhn: true });
  });
});

describe('test-card table', () => {
  it('holds the 20 designated numbers, 8 of them decline cards', () => {
    expect(TEST_CARDS.size).toBe(20);
    expect([...TEST_CARDS.values()].filter((card) => card.failureCode !== null)).toHaveLength(8);
  });

  it.each([
    ['4242424242424242', { brand: 'visa', funding: 'credit', country: 'US', failureCode: null }],
    ['4000056655665556', { brand: 'visa', funding: 'debit', country: 'US', failureCode: null }],
    ['5200828282828210', { brand: 'mastercard', funding: 'debit', country: 'US', failureCode: null }],
    ['378282246310005', { brand: 'amex', funding: 'credit', country: 'US', failureCode: null }],
    ['6011981111111113', { brand: 'discover', funding: 'debit', country: 'US', failureCode: null }],
    ['4000001240000000', { brand: 'visa', funding: 'credit', country: 'CA', failureCode: null }],
    ['4000000760000002', { brand: 'visa', funding: 'credit', country: 'BR', failureCode: null }],
    ['4000000000009995', { brand: 'visa', funding: 'credit', country: 'US', failureCode: 'insufficient_funds' }],
    ['4000000000000341', { brand: 'visa', funding: 'credit', country: 'US', failureCode: 'card_declined' }],
  ])('%s is %o', (number, expected) => {
    expect(findTestCard(number)).toEqual(expected);
  });
});

describe('checkCardNumber', () => {
  it('accepts a test card with spaces and dashes', () => {
    expect(checkCardNumber('4242-4242 4242-4242')).toMatchObject({
      ok: true,
      number: '4242424242424242',
      card: { brand: 'visa' },
    });
  });

  it('a checksum failure is an invalid number, not a refused real card', () => {
    expect(checkCardNumber('4242424242424241')).toEqual({ ok: false, message: INVALID_CARD_NUMBER });
  });

  it('a number too short or too long is invalid', () => {
    expect(checkCardNumber('0')).toEqual({ ok: false, message: INVALID_CARD_NUMBER });
    expect(checkCardNumber('00000000000')).toEqual({ ok: false, message: INVALID_CARD_NUMBER });
    expect(checkCardNumber('0'.repeat(20))).toEqual({ ok: false, message: INVALID_CARD_NUMBER });
  });

  it('a valid real number is refused as a real card', () => {
    expect(checkCardNumber('4111111111111111')).toEqual({ ok: false, message: REAL_CARD_REFUSED });
    expect(REAL_CARD_REFUSED).toMatch(/real cards are not accepted in test mode/i);
  });
});

describe('expiry', () => {
  it('reads "4" and "04" alike and refuses months outside 1-12', () => {
    expect(parseExpMonth('4')).toBe(4);
    expect(parseExpMonth('04')).toBe(4);
    expect(parseExpMonth('12')).toBe(12);
    for (const bad of ['0', '00', '13', '004', '', 'ab']) expect(parseExpMonth(bad)).toBeNull();
  });

  it('reads 2-digit years as 20yy and 4-digit years as they are', () => {
    expect(parseExpYear('30')).toBe(2030);
    expect(parseExpYear('2030')).toBe(2030);
    for (const bad of ['3', '203', '20300', 'yy']) expect(parseExpYear(bad)).toBeNull();
  });

  it('the current month is valid, the month before is expired', () => {
    expect(checkExpiry('5', '2026', NOW)).toEqual({ errors: [], value: { expMonth: 5, expYear: 2026 } });
    expect(checkExpiry('04', '26', NOW).errors).toEqual([{ field: 'expYear', messages: [CARD_EXPIRED] }]);
    expect(checkExpiry('12', '2025', NOW).errors).toEqual([{ field: 'expYear', messages: [CARD_EXPIRED] }]);
    expect(isExpired(4, 2026, NOW)).toBe(true);
    expect(isExpired(5, 2026, NOW)).toBe(false);
  });

  it('uses UTC months', () => {
    expect(isExpired(4, 2026, new Date('2026-04-30T23:59:59.999Z'))).toBe(false);
    expect(isExpired(4, 2026, new Date('2026-05-01T00:00:00.000Z'))).toBe(true);
  });

  it('refuses a year more than 50 years ahead', () => {
    expect(checkExpiry('1', '2077', NOW).errors).toEqual([{ field: 'expYear', messages: [EXPIRY_TOO_FAR] }]);
    expect(checkExpiry('1', '2076', NOW).errors).toEqual([]);
  });
});

describe('checkNewCard', () => {
  const valid = { cardNumber: '4242424242424242', expMonth: '12', expYear: '2030', cvc: '123' };

  it('returns the normalised card', () => {
    expect(checkNewCard(valid, NOW)).toEqual({
      errors: [],
      card: { number: '4242424242424242', card: findTestCard('4242424242424242'), expMonth: 12, expYear: 2030 },
    });
  });

  it('wants 4 digits of cvc for American Express and 3 for the others', () => {
    const amex = { ...valid, cardNumber: '3782 822463 10005' };
    expect(checkNewCard({ ...amex, cvc: '1234' }, NOW).card?.card.brand).toBe('amex');
    expect(checkNewCard({ ...amex, cvc: '123' }, NOW).errors).toEqual([
      { field: 'cvc', messages: ['cvc must be 4 digits for American Express'] },
    ]);
    expect(checkNewCard({ ...valid, cvc: '1234' }, NOW).errors).toEqual([
      { field: 'cvc', messages: ['cvc must be 3 digits for this card'] },
    ]);
  });

  it('reports every failing field together', () => {
    const result = checkNewCard({ cardNumber: '4242424242424241', expMonth: '13', expYear: '2030', cvc: '12' }, NOW);
    expect(result.card).toBeUndefined();
    expect(result.errors.map((error) => error.field)).toEqual(['cardNumber', 'expMonth']);
  });
});
