import type { FieldError } from '../common/pipes/validation.pipe';
import { CardBrand, findTestCard, TestCard } from './test-cards';

export const INVALID_CARD_NUMBER = 'Invalid card number: check the digits';
export const REAL_CARD_REFUSED =
  'Real cards are not accepted in test mode: use one of the designated test card numbers (for example 4242424242424242)';
export const CARD_EXPIRED = 'The card has expired: expMonth/expYear must not be in the past';
export const EXPIRY_TOO_FAR = 'expYear must be at most 50 years ahead';

/** Years accepted ahead of the current one. */
const MAX_YEARS_AHEAD = 50;

/** Digits only: spaces and dashes are ignored; any other character leaves it invalid. */
export function normaliseCardNumber(raw: string): string {
  return raw.replace(/[\s-]/g, '');
}

/** The Luhn (mod 10) checksum every card number carries. */
export function passesLuhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export type CardNumberCheck = { ok: true; number: string; card: TestCard } | { ok: false; message: string };

/** A typo gets "invalid card number"; a valid number that is not a test card gets "real cards are not accepted". */
export function checkCardNumber(raw: string): CardNumberCheck {
  const number = normaliseCardNumber(raw);
  if (!/^\d{12,19}$/.test(number) || !passesLuhn(number)) return { ok: false, message: INVALID_CARD_NUMBER };
  const card = findTestCard(number);
  if (!card) return { ok: false, message: REAL_CARD_REFUSED };
  return { ok: true, number, card };
}

/** `"4"` and `"04"` alike; null when not a month 1-12. */
export function parseExpMonth(raw: string): number | null {
  if (!/^\d{1,2}$/.test(raw)) return null;
  const month = Number(raw);
  return month >= 1 && month <= 12 ? month : null;
}

/** Four digits, or two meaning 20yy; null otherwise. */
export function parseExpYear(raw: string): number | null {
  if (/^\d{4}$/.test(raw)) return Number(raw);
  if (/^\d{2}$/.test(raw)) return 2000 + Number(raw);
  return null;
}

/** A card is valid through the last day of its expiry month (UTC), so the current month is still valid. */
export function expiryProblem(month: number, year: number, now: Date): string | null {
  const currentYear = now.getUTCFullYear();
  const currentMonth = now.getUTCMonth() + 1;
  if (year < currentYear || (year === currentYear && month < currentMonth)) return CARD_EXPIRED;
  if (year > currentYear + MAX_YEARS_AHEAD) return EXPIRY_TOO_FAR;
  return null;
}

export function isExpired(month: number, year: number, now: Date): boolean {
  return expiryProblem(month, year, now) === CARD_EXPIRED;
}

export function cvcLength(brand: CardBrand): number {
  return brand === 'amex' ? 4 : 3;
}

export interface NewCardInput {
  cardNumber: string;
  expMonth: string;
  expYear: string;
  cvc: string;
}

export interface CheckedCard {
  number: string;
  card: TestCard;
  expMonth: number;
  expYear: number;
}

/** Every rule of a new card; field errors (empty when none) or the normalised card. */
export function checkNewCard(input: NewCardInput, now: Date): { errors: FieldError[]; card?: CheckedCard } {
  const errors: FieldError[] = [];
  const add = (field: string, message: string) => errors.push({ field, messages: [message] });

  const number = checkCardNumber(input.cardNumber);
  if (!number.ok) add('cardNumber', number.message);

  const expiry = checkExpiry(input.expMonth, input.expYear, now);
  errors.push(...expiry.errors);

  if (number.ok) {
    const length = cvcLength(number.card.brand);
    if (!new RegExp(`^\\d{${length}}$`).test(input.cvc)) {
      add('cvc', `cvc must be ${length} digits for ${number.card.brand === 'amex' ? 'American Express' : 'this card'}`);
    }
  }
  if (errors.length > 0 || !number.ok || !expiry.value) return { errors };
  return { errors, card: { number: number.number, card: number.card, ...expiry.value } };
}

/** Month and year formats, then "not in the past" on the pair. */
export function checkExpiry(
  rawMonth: string,
  rawYear: string,
  now: Date,
): { errors: FieldError[]; value?: { expMonth: number; expYear: number } } {
  const errors: FieldError[] = [];
  const expMonth = parseExpMonth(rawMonth);
  const expYear = parseExpYear(rawYear);
  if (expMonth === null)
    errors.push({ field: 'expMonth', messages: ['expMonth must be a month from 1 to 12 ("4" or "04")'] });
  if (expYear === null) errors.push({ field: 'expYear', messages: ['expYear must be a year of 2 or 4 digits'] });
  if (expMonth === null || expYear === null) return { errors };
  const problem = expiryProblem(expMonth, expYear, now);
  if (problem) return { errors: [{ field: 'expYear', messages: [problem] }] };
  return { errors, value: { expMonth, expYear } };
}
