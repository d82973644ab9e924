import type { TenantScope } from '../tenancy/tenant-scope';

/**
 * Emitted (awaited, with `emitAsync`) by a cascade of content projects (one, a subtree, or a
 * channel's) before their records go, so what hangs off them in the modules above goes too. A
 * cascade stopped half-way emits it again when it is run again, so a handler must be a no-op for
 * what it removed already. A handler's error fails the cascade's run, which is tried again later.
 */
export const PROJECTS_DELETED = 'projects.deleted';

export interface ProjectsDeletedEvent {
  scope: TenantScope;
  projectIds: readonly string[];
}
