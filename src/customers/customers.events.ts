/** Emitted (awaited, with `emitAsync`) after a customer is deleted, so its cards go with it. */
export const CUSTOMER_DELETED = 'customer.deleted';

export interface CustomerDeletedEvent {
  customerId: string;
}
