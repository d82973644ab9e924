/** The card numbers the service accepts in test mode (the service's test-cards specification). Any future expiry; any 3-digit CVC, 4 for American Express. */
export interface TestCard {
  number: string;
  brand: string;
  funding: string;
  country: string;
  /** Saved, but every charge fails with this code. */
  failureCode?: string;
}

export const TEST_CARDS: readonly TestCard[] = [
  { number: '4242424242424242', brand: 'Visa', funding: 'credit', country: 'US' },
  { number: '4000056655665556', brand: 'Visa', funding: 'debit', country: 'US' },
  { number: '5555555555554444', brand: 'Mastercard', funding: 'credit', country: 'US' },
  { number: '2223003122003222', brand: 'Mastercard', funding: 'credit', country: 'US' },
  { number: '5200828282828210', brand: 'Mastercard', funding: 'debit', country: 'US' },
  { number: '378282246310005', brand: 'American Express', funding: 'credit', country: 'US' },
  { number: '371449635398431', brand: 'American Express', funding: 'credit', country: 'US' },
  { number: '6011111111111117', brand: 'Discover', funding: 'credit', country: 'US' },
  { number: '6011000990139424', brand: 'Discover', funding: 'credit', country: 'US' },
  { number: '6011981111111113', brand: 'Discover', funding: 'debit', country: 'US' },
  { number: '4000001240000000', brand: 'Visa', funding: 'credit', country: 'CA' },
  { number: '4000000760000002', brand: 'Visa', funding: 'credit', country: 'BR' },
  { number: '4000000000000002', brand: 'Visa', funding: 'credit', country: 'US', failureCode: 'card_declined' },
  { number: '4000000000009995', brand: 'Visa', funding: 'credit', country: 'US', failureCode: 'insufficient_funds' },
  { number: '4000000000009987', brand: 'Visa', funding: 'credit', country: 'US', failureCode: 'lost_card' },
  { number: '4000000000009979', brand: 'Visa', funding: 'credit', country: 'US', failureCode: 'stolen_card' },
  { number: '4000000000000069', brand: 'Visa', funding: 'credit', country: 'US', failureCode: 'expired_card' },
  { number: '4000000000000127', brand: 'Visa', funding: 'credit', country: 'US', failureCode: 'incorrect_cvc' },
  { number: '4000000000000119', brand: 'Visa', funding: 'credit', country: 'US', failureCode: 'processing_error' },
  { number: '4000000000000341', brand: 'Visa', funding: 'credit', country: 'US', failureCode: 'card_declined' },
];

/** `4242 4242 4242 4242`; American Express as `3782 822463 10005`. */
export function groupCardNumber(number: string): string {
  if (number.length === 15) return `${number.slice(0, 4)} ${number.slice(4, 10)} ${number.slice(10)}`;
  return number.replace(/(\d{4})(?=\d)/g, '$1 ');
}
