import type { TenantScope } from '../tenancy/tenant-scope';

/**
 * Emitted (awaited, with `emitAsync`) while a customer is being deleted, so its cards go with it:
 * first before the customer itself goes (children first, so a failure part-way leaves the customer
 * in place and a retried delete finishes the cascade), then once more after, for a card saved in
 * between. A listener must therefore be idempotent. Carries the scope: the listener acts inside the
 * same platform project.
 */
export const CUSTOMER_DELETING = 'customer.deleting';

export interface CustomerDeletingEvent {
  scope: TenantScope;
  customerId: string;
}

/**
 * Emitted (awaited, with `emitAsync`) to ask whether a payment method (a card) belongs to a
 * customer, before it becomes the customer's `defaultMethod`. A listener answers `true` when it
 * owns such a method in the scope's project; no `true` answer means the id names none of the
 * customer's methods (another project's card included).
 */
export const CUSTOMER_PAYMENT_METHOD_LOOKUP = 'customer.payment-method-lookup';

export interface CustomerPaymentMethodLookupEvent {
  scope: TenantScope;
  customerId: string;
  methodId: string;
}
