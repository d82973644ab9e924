import { Types } from 'mongoose';

declare const scopeBrand: unique symbol;

/**
 * The platform project a request acts in, and its account. Every service or repository method that
 * reads or writes a tenant's record takes one as a required argument, so forgetting the tenant fails
 * to compile. Only the tenancy guard (and the migration) make scopes: the brand keeps an object
 * literal from passing for one.
 */
export interface TenantScope {
  readonly accountId: string;
  readonly projectId: string;
  readonly [scopeBrand]: true;
}

export function tenantScope(accountId: string, projectId: string): TenantScope {
  return Object.freeze({ accountId, projectId }) as TenantScope;
}

/** The field every tenant-owned document carries. */
export const TENANT_FIELD = 'projectId';

/**
 * The one way to narrow a filter to the scope's platform project: the conditions, then the project,
 * last, so no condition can replace it. `TenantRecords` builds every tenant query with it.
 */
export function scopeFilter<F extends object>(scope: TenantScope, conditions?: F): F & { projectId: Types.ObjectId } {
  return { ...(conditions ?? ({} as F)), [TENANT_FIELD]: new Types.ObjectId(scope.projectId) } as F & { projectId: Types.ObjectId };
}
