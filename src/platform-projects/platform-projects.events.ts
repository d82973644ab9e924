import type { TenantScope } from '../tenancy/tenant-scope';

/**
 * Emitted (awaited, with `emitAsync`) before a platform project is deleted, to ask every data module
 * whether it still holds records in the project. Each listener answers `true` (it does) or `false`,
 * through its repository's `holdsAny(event.scope)`; any `true` refuses the delete with
 * `409 Platform project is not empty`. The platform module never reads another module's model.
 */
export const PLATFORM_PROJECT_DELETING = 'platform-project.deleting';

export interface PlatformProjectDeletingEvent {
  scope: TenantScope;
}

/** Emitted (awaited) after a platform project is deleted: what belonged only to it (its API keys) goes with it. */
export const PLATFORM_PROJECT_DELETED = 'platform-project.deleted';

export interface PlatformProjectDeletedEvent {
  accountId: string;
  projectId: string;
}
