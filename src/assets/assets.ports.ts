import type { TenantScope } from '../tenancy/tenant-scope';

/**
 * What the assets module asks of the module that keeps content projects, declared here because
 * projects depend on assets (a project's delete removes its assets), never the reverse: the projects
 * module provides it under this token (`useExisting`), and `AssetsService` resolves it on first use
 * (`ModuleRef`, not strict), so a context without the provider starts as long as nothing asks.
 */
export abstract class ProjectChannelLookup {
  /** The channel id of a content project of the scope's platform project; null for an unknown one (another tenant's included). */
  abstract channelOf(scope: TenantScope, projectId: string): Promise<string | null>;
}
