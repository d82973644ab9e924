import type { TenantScope } from '../tenancy/tenant-scope';

/**
 * Emitted (awaited, with `emitAsync`) before a client is hard-deleted. A listener that finds the
 * client still referenced in the same platform project throws a ConflictException, and the delete
 * does not happen.
 */
export const CLIENT_HARD_DELETING = 'client.hard-deleting';

export interface ClientHardDeletingEvent {
  scope: TenantScope;
  clientId: string;
}

/** The 400 of a write whose `projectIds` names no content project of the platform project (another tenant's included). */
export const UNKNOWN_PROJECT_IDS = 'each value in projectIds must match an existing project';
