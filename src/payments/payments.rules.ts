import type { ChargeableCard } from '../cards/cards.service';
import type { PaymentStatus } from './payment.schema';

export interface ChargeOutcome {
  status: Extract<PaymentStatus, 'requires_payment_method' | 'failed' | 'succeeded'>;
  failureCode: string | null;
  card: string | null;
}

/** What charging the customer's default card gives: no card, a declining test card, or money. */
export function chargeOutcome(card: ChargeableCard | null): ChargeOutcome {
  if (!card) return { status: 'requires_payment_method', failureCode: null, card: null };
  if (card.failureCode) return { status: 'failed', failureCode: card.failureCode, card: card.cardId };
  return { status: 'succeeded', failureCode: null, card: card.cardId };
}

/** Status after a refund: all of it refunded, or part of it. */
export function statusAfterRefund(
  amountMinor: number,
  refundedMinor: number,
): Extract<PaymentStatus, 'refunded' | 'partially_refunded'> {
  if (refundedMinor > amountMinor) throw new RangeError('Refunded more than the payment amount');
  return refundedMinor === amountMinor ? 'refunded' : 'partially_refunded';
}
