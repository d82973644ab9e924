/** Emitted (awaited, with `emitAsync`) after a customer is deleted, so its cards go with it. */
export const CUSTOMER_DELETED = 'customer.deleted';

export interface CustomerDeletedEvent {
  customerId: string;
}

/**
 * Emitted (awaited, with `emitAsync`) to ask whether a payment method (a card) belongs to a
 * customer, before it becomes the customer's `defaultMethod`. A listener answers `true` when it
 * owns such a method; no `true` answer means the id names none of the customer's methods.
 */
export const CUSTOMER_PAYMENT_METHOD_LOOKUP = 'customer.payment-method-lookup';

export interface CustomerPaymentMethodLookupEvent {
  customerId: string;
  methodId: string;
}
