import type { Card } from './card.schema';
import type { CardResponse } from './dto/card.response';

/**
 * The card as its events carry it: the card object without `isDefault`, which is the customer's to
 * say (`customer.default_card_changed`).
 */
export function toCardEventObject(card: Card): Omit<CardResponse, 'isDefault'> {
  const { isDefault: _isDefault, ...object } = toCardResponse(card, false);
  return object;
}

/** Exactly the card object's fields. Nothing internal (the failure code) is copied. */
export function toCardResponse(card: Card, isDefault: boolean): CardResponse {
  return {
    id: String(card._id),
    customer: String(card.customer),
    brand: card.brand,
    funding: card.funding,
    country: card.country,
    last4: card.last4,
    expMonth: card.expMonth,
    expYear: card.expYear,
    fingerprint: card.fingerprint,
    isDefault,
    createdAt: new Date(card.createdAt).toISOString(),
    updatedAt: new Date(card.updatedAt).toISOString(),
  };
}
