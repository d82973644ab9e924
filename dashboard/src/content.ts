import type { Schemas } from './api/client';
import { queryEnums } from './api/enums';

export type ContentProject = Schemas['ProjectResponse'];
export type ProjectAccess = ContentProject['access'];
export type ProjectStatus = ContentProject['status'];
export type ProjectType = ContentProject['projectTypeId'];

/** The most a content list answers at once (the API's `limit` maximum). */
export const CONTENT_PAGE_MAX = 500;
/** The levels of a project tree (a project and three levels of sub-projects). */
export const MAX_TREE_DEPTH = 4;

const LIST_ENUMS = queryEnums['/channels/{channelId}/projects'];
export const PROJECT_TYPES: readonly ProjectType[] = LIST_ENUMS.projectTypeId;
export const PROJECT_STATUSES: readonly ProjectStatus[] = LIST_ENUMS.status;
export const PROJECT_ACCESS: readonly ProjectAccess[] = LIST_ENUMS.access;

export const ACCESS_LABELS: Record<ProjectAccess, string> = {
  public: 'Public',
  permissions: 'Permissions',
  linkPrivate: 'Link only',
};

/** What each access setting means for viewers, in one sentence. */
export const ACCESS_MEANINGS: Record<ProjectAccess, string> = {
  public: "Anyone reading through the app's publishable key sees it once it and every project above it are published.",
  permissions: 'Only the people granted access below (or on a project above) see it, reading with their own sign-in.',
  linkPrivate:
    'Only people holding one of its share links (or a link of a project above) see it, with the password when the link has one.',
};

/** A project of a channel with its sub-projects, as the channel's list draws it. */
export interface TreeNode {
  project: ContentProject;
  children: TreeNode[];
  /** 0 for a top-level project. */
  depth: number;
}

/**
 * The channel's projects as a forest, from their `parentId`s (each level oldest first, as listed). A
 * project whose parent is not in the list (beyond the page read) is drawn at the top.
 */
export function buildForest(projects: readonly ContentProject[]): TreeNode[] {
  const byId = new Map(projects.map((project) => [project._id, { project, children: [] as TreeNode[], depth: 0 }]));
  const roots: TreeNode[] = [];
  for (const node of byId.values()) {
    const parent = node.project.parentId ? byId.get(node.project.parentId) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  const setDepth = (nodes: TreeNode[], depth: number) => {
    for (const node of nodes) {
      node.depth = depth;
      setDepth(node.children, depth + 1);
    }
  };
  setDepth(roots, 0);
  return roots;
}

/** Every project below a node. */
export function descendantCount(node: TreeNode): number {
  return node.children.reduce((sum, child) => sum + 1 + descendantCount(child), 0);
}

/** The forest in reading order, for pickers. */
export function flatten(nodes: readonly TreeNode[]): TreeNode[] {
  return nodes.flatMap((node) => [node, ...flatten(node.children)]);
}

/** An `<input type="datetime-local">` value as the API's ISO date-time; empty: none. */
export function localToIso(value: string): string | undefined {
  return value ? new Date(value).toISOString() : undefined;
}

/** Mantine colours of the status badges. */
export const STATUS_COLORS: Record<ProjectStatus, string> = { draft: 'gray', published: 'green', archived: 'yellow' };
export const STATUS_LABELS: Record<ProjectStatus, string> = {
  draft: 'Draft',
  published: 'Published',
  archived: 'Archived',
};

/** A project type as a person reads it: `musicVideo` is "Music video". */
export function typeLabel(type: string): string {
  const words = type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Every project of a node's subtree, itself included: what a move may not put it under. */
export function subtreeIds(node: TreeNode): Set<string> {
  return new Set([node.project._id, ...flatten(node.children).map((child) => child.project._id)]);
}

/** How many levels a node's subtree spans, itself included. */
export function subtreeHeight(node: TreeNode): number {
  return 1 + Math.max(0, ...node.children.map(subtreeHeight));
}
