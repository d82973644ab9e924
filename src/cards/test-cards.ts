export const CARD_BRANDS = ['visa', 'mastercard', 'amex', 'discover'] as const;
export type CardBrand = (typeof CARD_BRANDS)[number];

export const CARD_FUNDING = ['credit', 'debit'] as const;
export type CardFunding = (typeof CARD_FUNDING)[number];

export const CARD_FAILURE_CODES = [
  'card_declined',
  'insufficient_funds',
  'lost_card',
  'stolen_card',
  'expired_card',
  'incorrect_cvc',
  'processing_error',
] as const;
export type CardFailureCode = (typeof CARD_FAILURE_CODES)[number];

export interface TestCard {
  brand: CardBrand;
  funding: CardFunding;
  country: string;
  /** Why a charge on this card fails; null for cards that charge successfully. */
  failureCode: CardFailureCode | null;
}

const card = (
  brand: CardBrand,
  funding: CardFunding,
  country: string,
  failureCode: CardFailureCode | null = null,
): TestCard => ({
  brand,
  funding,
  country,
  failureCode,
});

/** The only card numbers accepted in test mode (the service's test-card table). */
export const TEST_CARDS: ReadonlyMap<string, TestCard> = new Map([
  // Cards that charge successfully.
  ['4242424242424242', card('visa', 'credit', 'US')],
  ['4000056655665556', card('visa', 'debit', 'US')],
  ['5555555555554444', card('mastercard', 'credit', 'US')],
  ['2223003122003222', card('mastercard', 'credit', 'US')],
  ['5200828282828210', card('mastercard', 'debit', 'US')],
  ['378282246310005', card('amex', 'credit', 'US')],
  ['371449635398431', card('amex', 'credit', 'US')],
  ['6011111111111117', card('discover', 'credit', 'US')],
  ['6011000990139424', card('discover', 'credit', 'US')],
  ['6011981111111113', card('discover', 'debit', 'US')],
  ['4000001240000000', card('visa', 'credit', 'CA')],
  ['4000000760000002', card('visa', 'credit', 'BR')],
  // Cards that can be saved but whose charges fail.
  ['4000000000000002', card('visa', 'credit', 'US', 'card_declined')],
  ['4000000000009995', card('visa', 'credit', 'US', 'insufficient_funds')],
  ['4000000000009987', card('visa', 'credit', 'US', 'lost_card')],
  ['4000000000009979', card('visa', 'credit', 'US', 'stolen_card')],
  ['4000000000000069', card('visa', 'credit', 'US', 'expired_card')],
  ['4000000000000127', card('visa', 'credit', 'US', 'incorrect_cvc')],
  ['4000000000000119', card('visa', 'credit', 'US', 'processing_error')],
  ['4000000000000341', card('visa', 'credit', 'US', 'card_declined')],
]);

/** The test card with this (normalised) number, or undefined. */
export function findTestCard(number: string): TestCard | undefined {
  return TEST_CARDS.get(number);
}
