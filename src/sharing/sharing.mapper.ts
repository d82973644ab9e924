import type { Project } from '../projects/project.schema';
import type { GrantView } from './dto/grant.response';
import type { CreatedShareLinkView, ShareLinkView } from './dto/share-link.response';
import { VIEWER_PROJECT_FIELDS, type ViewerProjectResponse } from './dto/viewer-project.response';
import { toProjectResponse } from '../projects/projects.mapper';
import type { Grant } from './grant.schema';
import type { ShareLink } from './share-link.schema';

const iso = (date: Date | null | undefined): string | null => (date ? new Date(date).toISOString() : null);

/** Where a viewer reads the project a link shows, relative to the service. */
export function viewerPathOf(contentProjectId: string): string {
  return `/viewer/projects/${contentProjectId}`;
}

/** Copies the view's fields only: the token's hash and the password's have no way out. */
/** `views`: counted apart (share_link_views); an event shows the link without them. */
export function toShareLinkView(
  link: ShareLink & { passwordHash?: string | null },
  views = 0,
  hasPassword?: boolean,
): ShareLinkView {
  return {
    id: String(link._id),
    projectId: String(link.contentProjectId),
    start: link.start,
    url: viewerPathOf(String(link.contentProjectId)),
    hasPassword: hasPassword ?? Boolean(link.passwordHash),
    views,
    expiresAt: iso(link.expiresAt),
    revokedAt: iso(link.revokedAt),
    createdAt: new Date(link.createdAt).toISOString(),
  };
}

export function toCreatedShareLinkView(link: ShareLink, hasPassword: boolean, token: string): CreatedShareLinkView {
  return { ...toShareLinkView(link, 0, hasPassword), token };
}

/** `views`: counted apart (grant_views); an event shows the grant without them. */
export function toGrantView(grant: Grant, views = 0): GrantView {
  return {
    id: String(grant._id),
    projectId: String(grant.contentProjectId),
    userId: grant.userId ? String(grant.userId) : null,
    email: grant.email ?? null,
    role: grant.role,
    views,
    expiresAt: iso(grant.expiresAt),
    revokedAt: iso(grant.revokedAt),
    createdAt: new Date(grant.createdAt).toISOString(),
  };
}

/** What a viewer may see of a project: its content, nothing of how it is managed. */
export function toViewerProject(project: Project): ViewerProjectResponse {
  const full = toProjectResponse(project);
  const view: Record<string, unknown> = { id: full._id };
  for (const field of VIEWER_PROJECT_FIELDS) view[field] = full[field];
  return view as unknown as ViewerProjectResponse;
}
