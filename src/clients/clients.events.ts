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
