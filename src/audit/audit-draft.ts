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

/** The changed fields, `[before, after]` each. */
export type AuditChanges = Record<string, [unknown, unknown]>;

/**
 * An entry before it is numbered and chained. `changes` is kept as its JSON: a `[before, after]` of
 * arrays is an array inside an array, which FerretDB does not store.
 */
export interface AuditDraft extends AuditContext {
  entryId: string;
  accountId: string;
  action: AuditAction;
  occurredAt: Date;
  target: AuditParty;
  projectId: string | null;
  changes: string | null;
}

/** The changed fields as `[before, after]`, leaving out the ones that did not change. */
export function changesOf(before: Record<string, unknown>, after: Record<string, unknown>): AuditChanges | null {
  const changes: AuditChanges = {};
  for (const field of Object.keys(after)) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field]))
      changes[field] = [before[field] ?? null, after[field] ?? null];
  }
  return Object.keys(changes).length > 0 ? changes : null;
}
