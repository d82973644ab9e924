import type { TenantScope } from '../tenancy/tenant-scope';
import type { AuditAction, AuditParty } from './audit-entry.schema';

/** Who did it, from where: what every entry of a request shares. */
export interface AuditContext {
  actor: AuditParty;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/** The audit context of a data request, from the origin its tenant scope carries. */
export function auditContextOf(scope: TenantScope): AuditContext {
  const origin = scope.origin;
  return {
    actor: origin.actor ? { ...origin.actor } : { type: 'system', id: 'system', label: null },
    ip: origin.ip ?? null,
    userAgent: origin.userAgent ?? null,
    requestId: origin.id,
  };
}

/** An entry before it is numbered and chained. */
export interface AuditDraft extends AuditContext {
  entryId: string;
  accountId: string;
  action: AuditAction;
  occurredAt: Date;
  target: AuditParty;
  projectId: string | null;
  changes: Record<string, [unknown, unknown]> | null;
}

/** The changed fields as `[before, after]`, leaving out the ones that did not change. */
export function changesOf(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, [unknown, unknown]> | null {
  const changes: Record<string, [unknown, unknown]> = {};
  for (const field of Object.keys(after)) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) changes[field] = [before[field] ?? null, after[field] ?? null];
  }
  return Object.keys(changes).length > 0 ? changes : null;
}
