import type { TenantScope } from '../tenancy/tenant-scope';

/**
 * What the customers module asks of the module that keeps payment methods (cards), declared here
 * because cards depend on customers and never the reverse: the cards module provides it under this
 * token (`useExisting`), and `CustomersService` resolves it on first use
 * (`ModuleRef`, not strict), so a context without the provider starts as long as nothing asks.
 */
export abstract class PaymentMethodLookup {
  /** Whether `methodId` names one of the customer's payment methods in the scope's project (another project's is not). */
  abstract belongsTo(scope: TenantScope, methodId: string, customerId: string): Promise<boolean>;
}
