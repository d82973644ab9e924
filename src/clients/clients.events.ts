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

/**
 * Emitted (awaited) by a channel or client write that names content projects (`projectIds`): the
 * projects module answers whether every id names a content project of the scope's platform project.
 * Clients and channels sit below projects, so they ask instead of reading projects themselves.
 */
export const CONTENT_PROJECTS_LOOKUP = 'content-projects.lookup';

export interface ContentProjectsLookupEvent {
  scope: TenantScope;
  projectIds: readonly string[];
}

/**
 * Emitted (awaited) by the assets module, which sits below projects: the projects module answers the
 * channel of a content project of the scope's platform project (its id), or null for an unknown one,
 * so a write of an asset is judged by that channel's roles.
 */
export const CONTENT_PROJECT_CHANNEL_LOOKUP = 'content-projects.channel-lookup';

export interface ContentProjectChannelLookupEvent {
  scope: TenantScope;
  projectId: string;
}

/** The 400 of a write whose `projectIds` names no content project of the platform project (another tenant's included). */
export const UNKNOWN_PROJECT_IDS = 'each value in projectIds must match an existing project';
