import type { TenantScope } from '../tenancy/tenant-scope';

/**
 * What clients and channels ask of the module that keeps content projects, declared here because
 * projects depend on channels and channels on clients, never the reverse: the projects module
 * provides it under this token (`useExisting`), and `ClientsService` resolves it on first use
 * (`ModuleRef`, not strict), so a context without the provider starts as long as nothing asks.
 */
export abstract class ContentProjectsLookup {
  /** Whether every id names a content project of the scope's platform project (another tenant's is unknown). */
  abstract allExist(scope: TenantScope, projectIds: readonly string[]): Promise<boolean>;
}
