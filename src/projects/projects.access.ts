import type { AccessPolicy, ChannelRoleName, DerivedChannelRole } from '../access/policy/access-policy';
import { isValidObjectId } from '../common/pipes/object-id';

/** What every content project route declares: a user's token or session, or a secret key, in the projects API. */
export const PROJECTS_ACCESS = {
  credentials: ['userToken', 'session', 'secretKey'],
  scope: 'project',
  api: 'projects',
  assurance: 'accountMfa',
} as const satisfies AccessPolicy;

/** An id the body names, lowercased; null for an explicit null; undefined for anything validation will refuse. */
function idIn(value: unknown): string | null | undefined {
  if (value === null) return null;
  return isValidObjectId(value) ? value.toLowerCase() : undefined;
}

/**
 * Editing a project needs editor. Taking it out of its channel, or putting a top-level project under
 * another, is as strong as deleting a top-level project (manager): else an editor could move a
 * project to a channel of their own and share it, or make a top-level project a sub-project and
 * delete it as one. The body is read as the service reads it: another `channelId` moves the project,
 * top-level there unless `parentId` says otherwise; a field validation will refuse changes nothing.
 */
export const UPDATE_PROJECT_ROLE: DerivedChannelRole = {
  says: 'editor or above (manager to move a project to another channel, or a top-level project under another)',
  of: ({ channelId, parentId, deleting, body }): ChannelRoleName | null => {
    if (deleting) return null;
    const to = idIn(body.channelId);
    const moving = typeof to === 'string' && to !== channelId;
    const named = idIn(body.parentId);
    const parent = body.parentId !== undefined && named !== undefined ? named : moving ? null : parentId;
    return moving || (parent !== parentId && parentId === null) ? 'manager' : 'editor';
  },
};

/**
 * Deleting a top-level project (and with it, by cascade, a whole tree) needs manager; a sub-project,
 * editor. A delete already begun was judged when it began: whoever may change a sub-project may
 * finish it.
 */
export const DELETE_PROJECT_ROLE: DerivedChannelRole = {
  says: 'manager or above for a top-level project (editor for a sub-project)',
  of: ({ parentId, deleting }) => (parentId !== null || deleting ? 'editor' : 'manager'),
};
