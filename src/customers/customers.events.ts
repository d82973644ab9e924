import type { TenantScope } from '../tenancy/tenant-scope';

/**
 * Emitted (awaited, with `emitAsync`) after a customer is deleted, so its cards go with it. Carries
 * the scope: the listener acts inside the same platform project.
 */
export const CUSTOMER_DELETED = 'customer.deleted';

export interface CustomerDeletedEvent {
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
