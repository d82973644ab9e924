import type { TenantScope } from '../tenancy/tenant-scope';

/** Where a refund stands: in its payment's totals, written and still to be applied or voided, or neither (voided, or never written). */
export type RefundState = 'applied' | 'pending' | 'not-applied';

/**
 * What the audit sweep asks of the module that keeps refunds, to settle a refund's entry left by a
 * stopped process. Declared here because every module records to the audit log and the log imports
 * none of them: the payments module provides it under this token (`useExisting`), and `AuditTrail`
 * resolves it when it settles a refund's intent.
 */
export abstract class RefundSettlements {
  abstract refundState(scope: TenantScope, paymentId: string, refundId: string): Promise<RefundState>;
}
