import type { TenantScope } from '../tenancy/tenant-scope';

/**
 * Emitted (awaited, with `emitAsync`) after content projects are deleted (one, a cascade, or a
 * channel's), so what hangs off them in the modules below goes too. A handler's error reaches the
 * delete, which then does not answer 200.
 */
export const PROJECTS_DELETED = 'projects.deleted';

export interface ProjectsDeletedEvent {
  scope: TenantScope;
  projectIds: readonly string[];
}
