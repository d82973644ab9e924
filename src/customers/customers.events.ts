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
