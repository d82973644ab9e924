import { Types } from 'mongoose';
import { TENANT_FIELD } from '../common/database/tenant-field';

declare const scopeBrand: unique symbol;

/**
 * The platform project a request acts in, and its account. Every service or repository method that
 * reads or writes a tenant's record takes one as a required argument, so forgetting the tenant fails
 * to compile. The tenancy guard makes one for each request, and `scopeOfRecord` one for work resumed
 * later from a record that names its tenant; the brand keeps an object literal from passing for one.
 */
export interface TenantScope {
  readonly accountId: string;
  readonly projectId: string;
  /** The request acting in the scope, which the events its changes record name; none for an operator's command. */
  readonly origin: RequestOrigin;
  readonly [scopeBrand]: true;
}

/**
 * The request behind a change: its `X-Request-Id` and `Idempotency-Key`, as events report them, and
 * who sent it from where, as the audit log reports it.
 */
export interface RequestOrigin {
  readonly id: string | null;
  readonly idempotencyKey: string | null;
  readonly actor?: { readonly type: 'user' | 'api_key'; readonly id: string; readonly label: string | null };
  readonly ip?: string | null;
  readonly userAgent?: string | null;
}

const NO_REQUEST: RequestOrigin = Object.freeze({ id: null, idempotencyKey: null });

export function tenantScope(accountId: string, projectId: string, origin: RequestOrigin = NO_REQUEST): TenantScope {
  return Object.freeze({ accountId, projectId, origin }) as TenantScope;
}

/**
 * The scope a stored record names (an upload ticket, a signed content grant, a refund left to
 * settle, a channel being migrated): for work done later, off the request that wrote the record.
 */
export function scopeOfRecord(
  record: { accountId: string | Types.ObjectId; projectId: string | Types.ObjectId },
  origin: RequestOrigin = NO_REQUEST,
): TenantScope {
  return tenantScope(String(record.accountId), String(record.projectId), origin);
}

export { TENANT_FIELD };

/**
 * The one way to narrow a filter to the scope's platform project: the conditions, then the project,
 * last, so no condition can replace it. `TenantRecords` builds every tenant query with it.
 */
export function scopeFilter<F extends object>(scope: TenantScope, conditions?: F): F & { projectId: Types.ObjectId } {
  return { ...(conditions ?? ({} as F)), [TENANT_FIELD]: new Types.ObjectId(scope.projectId) } as F & {
    projectId: Types.ObjectId;
  };
}
