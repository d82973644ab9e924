import {
  BadRequestException,
  ConflictException,
  Injectable,
  NotFoundException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { InProcessEmitter } from '../in-process-events/in-process-events';
import type { Types } from 'mongoose';
import { Leases } from '../leases/leases.service';
import { isValidObjectId } from '../common/pipes/object-id';
import type { ProjectChannelLookup } from '../assets/assets.ports';
import { AssetsService } from '../assets/assets.service';
import { CHANNEL_NOT_FOUND, ChannelsService } from '../channels/channels.service';
import type { ContentProjectsLookup } from '../clients/clients.ports';
import { pickDefined } from '../common/fields/pick-defined';
import type { ContentPage } from '../common/paging/total-count';
import type { TenantScope } from '../tenancy/tenant-scope';
import { CreateProjectDto } from './dto/create-project.dto';
import { ListProjectsQuery } from './dto/list-projects.query';
import {
  PROJECT_CONTENT_FIELDS,
  ProjectResponse,
  ProjectTreeNodeResponse,
  ProjectTreeResponse,
} from './dto/project.response';
import { MAX_TREE_DEPTH, MAX_TREE_NODES, type Project } from './project.schema';
import { UpdateProjectDto } from './dto/update-project.dto';
import { toProjectResponse } from './projects.mapper';
import { ProjectCascades } from './project-cascades';
import { PROJECTS_DELETED, type ProjectsDeletedEvent } from './projects.events';
import { ProjectsRepository, type TreeFields } from './projects.repository';

const PROJECT_NOT_FOUND = 'Project not found';

/** Where a content project sits in its channel's tree (ProjectsService.placeOf). */
export interface ProjectPlace {
  readonly channelId: string;
  readonly parentId: string | null;
  /** Its delete has begun: the cascade is recorded and the project no longer found. */
  readonly deleting: boolean;
}
const CYCLE = 'A project cannot move under itself or one of its sub-projects';
const TOO_DEEP = `A project tree has at most ${MAX_TREE_DEPTH} levels`;
const TREE_BUSY = "Another change of this channel's project tree is in progress; retry the request";

/** The fields a request may write, all but `channelId` (which decides where the project lives). */
const WRITABLE_FIELDS = [...PROJECT_CONTENT_FIELDS, 'access', 'status'] as const;
const LIST_FIELDS = ['topicIds', 'supportedFormats', 'supportedModes', 'supportedFeatures'] as const;

/** Copies the fields the request carries, by name, so nothing else reaches the database. Lists lose duplicates. */
export function projectFields(dto: UpdateProjectDto): Record<string, unknown> {
  const fields: Record<string, unknown> = pickDefined(dto, WRITABLE_FIELDS);
  for (const name of LIST_FIELDS) {
    const value = fields[name];
    if (Array.isArray(value)) fields[name] = [...new Set(value)];
  }
  return fields;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * The list filter inside one channel (the repository adds the platform project). Enum
 * values were validated at the edge; `q` becomes a RegExp value (which `sanitizeFilter` leaves
 * alone, unlike a `$regex` object) matching the literal text, any case.
 */
export function projectListFilter(
  channelId: string,
  query: Pick<ListProjectsQuery, 'status' | 'projectTypeId' | 'access' | 'q'>,
) {
  const filter: Record<string, unknown> = { channelId };
  if (query.status !== undefined) filter.status = query.status;
  if (query.projectTypeId !== undefined) filter.projectTypeId = query.projectTypeId;
  if (query.access !== undefined) filter.access = query.access;
  if (query.q !== undefined && query.q !== '') {
    const text = new RegExp(escapeRegExp(query.q), 'i');
    filter.$or = [{ primaryTitle: text }, { description: text }];
  }
  return filter;
}

/**
 * Every read and write is inside the caller's platform project (`scope`), and so is the channel a
 * project lives in: another project's channel is as unknown as a missing one.
 *
 * A project's `channelId` is the source of truth: lists and the channel-delete cascade go by it.
 * The channel's `projectIds` is a copy kept in step without transactions, so the writes are
 * ordered for the failures that matter:
 * - create: insert the project, then add its id to the channel. If the channel vanished in
 *   between, the project removes itself, so no project outlives its channel. A crash in between
 *   leaves a working project that `projectIds` does not list yet.
 * - delete: remove the project, then pull its id. A crash in between leaves a stale id that
 *   resolves to 404, never a project without a channel.
 * - move: check the target, switch `channelId` (guarded on the old value, so concurrent moves
 *   cannot both win), add the id to the target, then pull it from the source.
 *
 * The tree's invariant: every `parentId` names a project of the same channel, no project is its own
 * ancestor, and no chain is longer than MAX_TREE_DEPTH. Each check reads several records (the
 * parent's ancestors, the project's descendants) before one write, and a guarded update does not
 * make that atomic on FerretDB: two crossing moves could each see no cycle and both land. So every
 * write that changes the tree's shape (a create under a parent, a move, a delete) runs under the
 * channel's tree lease (`project-tree:<channelId>`, both channels' in id order for a move between
 * channels), which serialises them across instances; writes of other fields take no lease. A
 * subtree is deleted from the bottom up, so a crash midway leaves a smaller tree, never an orphan.
 *
 * Who may create, edit, move and delete a project is the routes' declared channel role
 * (projects.access.ts), which the access guard holds before this service runs, on the record that
 * `placeOf` answers it; the service keeps the tree's rules and no role of its own.
 */
@Injectable()
export class ProjectsService implements ContentProjectsLookup, ProjectChannelLookup {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly channels: ChannelsService,
    private readonly leases: Leases,
    private readonly assets: AssetsService,
    private readonly cascades: ProjectCascades,
    private readonly events: InProcessEmitter,
  ) {}

  async create(scope: TenantScope, channelId: string, dto: CreateProjectDto): Promise<ProjectResponse> {
    if (dto.channelId !== undefined && dto.channelId.toLowerCase() !== channelId) {
      throw new BadRequestException('channelId in the body must match the channel in the path');
    }
    await this.assertChannel(scope, channelId);
    const parentId = dto.parentId ?? null;
    const created =
      parentId === null
        ? await this.insertInto(scope, channelId, dto, null)
        : await this.underTreeLease([channelId], async () => {
            const parent = await this.parentFor(scope, channelId, parentId);
            const depth = 1 + (await this.ancestorsOf(scope, parent)).length;
            if (depth + 1 > MAX_TREE_DEPTH) throw new UnprocessableEntityException(TOO_DEEP);
            return this.insertInto(scope, channelId, dto, parent._id);
          });
    return toProjectResponse(created);
  }

  async listByChannel(
    scope: TenantScope,
    channelId: string,
    query: ListProjectsQuery,
  ): Promise<ContentPage<ProjectResponse>> {
    await this.assertChannel(scope, channelId);
    const { rows, total } = await this.projects.page(
      scope,
      projectListFilter(channelId, query),
      query.skip,
      query.limit,
    );
    return { items: rows.map(toProjectResponse), total };
  }

  /** A project's direct children, filtered as the channel's list is; 404 for an unknown project. */
  async listChildren(scope: TenantScope, id: string, query: ListProjectsQuery): Promise<ContentPage<ProjectResponse>> {
    const project = await this.projects.findById(scope, id);
    if (!project) throw new NotFoundException(PROJECT_NOT_FOUND);
    const { channelId: _channel, ...conditions } = projectListFilter(String(project.channelId), query);
    const { rows, total } = await this.projects.pageChildren(scope, project._id, conditions, query.skip, query.limit);
    return { items: rows.map(toProjectResponse), total };
  }

  /** The project and every project below it, level by level; 422 past MAX_TREE_NODES. */
  async tree(scope: TenantScope, id: string): Promise<ProjectTreeResponse> {
    const root = await this.projects.findById(scope, id);
    if (!root) throw new NotFoundException(PROJECT_NOT_FOUND);
    const nodes: ProjectTreeNodeResponse[] = [toTreeNode(root, 0)];
    let level: Types.ObjectId[] = [root._id];
    // No level below the fourth can exist, so none is asked for; the bound also stops a stored cycle.
    for (let depth = 1; level.length > 0 && depth < MAX_TREE_DEPTH; depth++) {
      const children = await this.projects.childrenOf(scope, level, MAX_TREE_NODES + 1 - nodes.length);
      if (nodes.length + children.length > MAX_TREE_NODES) {
        throw new UnprocessableEntityException(
          `The tree holds more than ${MAX_TREE_NODES} projects; read it level by level with GET /projects/{projectId}/children`,
        );
      }
      for (const child of children) nodes.push(toTreeNode(child, depth));
      level = children.map((child) => child._id);
    }
    return { nodes };
  }

  /**
   * The project's ancestors, nearest first (its parent, then the parent's parent...), the project
   * itself left out: empty for a top-level project. 404 for an unknown project.
   */
  async findAncestors(scope: TenantScope, projectId: string): Promise<ProjectResponse[]> {
    const project = await this.projects.findById(scope, projectId);
    if (!project) throw new NotFoundException(PROJECT_NOT_FOUND);
    return (await this.ancestorsOf(scope, project)).map(toProjectResponse);
  }

  async findOne(scope: TenantScope, id: string): Promise<ProjectResponse> {
    const project = await this.projects.findById(scope, id);
    if (!project) throw new NotFoundException(PROJECT_NOT_FOUND);
    return toProjectResponse(project);
  }

  async update(scope: TenantScope, id: string, dto: UpdateProjectDto): Promise<ProjectResponse> {
    const current = await this.projects.findById(scope, id);
    if (!current) throw new NotFoundException(PROJECT_NOT_FOUND);
    const from = String(current.channelId);
    const to = dto.channelId?.toLowerCase();
    const moving = to !== undefined && to !== from;
    // An unknown target (another tenant's among them) is 404 before any role is asked.
    if (moving) await this.assertChannel(scope, to);
    const currentParent = current.parentId ? String(current.parentId) : null;
    // Another channel without a parent named: top-level there.
    const parent = dto.parentId !== undefined ? (dto.parentId?.toLowerCase() ?? null) : moving ? null : currentParent;
    const reparenting = parent !== currentParent;
    if (!moving && !reparenting) return toProjectResponse(await this.write(scope, current, projectFields(dto)));

    const target = moving ? to : from;
    const updated = await this.underTreeLease([from, target], async () => {
      let parentId: Types.ObjectId | null = null;
      if (parent !== null) {
        if (parent === id) throw new UnprocessableEntityException(CYCLE);
        const found = await this.parentFor(scope, target, parent);
        const ancestors = await this.ancestorsOf(scope, found);
        if (ancestors.some((ancestor) => String(ancestor._id) === id)) throw new UnprocessableEntityException(CYCLE);
        const height = await this.heightOf(scope, current._id);
        if (ancestors.length + 1 + height > MAX_TREE_DEPTH) throw new UnprocessableEntityException(TOO_DEEP);
        parentId = found._id;
      }
      if (moving && (await this.heightOf(scope, current._id)) > 1) {
        throw new UnprocessableEntityException(
          'A project with sub-projects does not move to another channel; move or delete its sub-projects first',
        );
      }
      const set = { ...projectFields(dto), parentId, ...(moving ? { channelId: to } : {}) };
      return this.write(scope, current, set, current.parentId ?? null);
    });

    if (moving) {
      if (!(await this.channels.addProject(scope, to, id))) {
        // The target was deleted after the check, and its cascade may have missed this project.
        await this.projects.moveBack(scope, id, to, from);
        throw new NotFoundException(CHANNEL_NOT_FOUND);
      }
      await this.channels.removeProject(scope, from, id);
    }
    return toProjectResponse(updated);
  }

  /**
   * Deletes the project; one with sub-projects or assets only with `cascade`, which takes them all
   * (409 without it). The cascade is recorded and its projects marked under the channel's tree
   * lease, then run (ProjectCascades); a delete retried after a stop finishes what is left. A lone
   * project without assets goes at once (`removeLeaf`).
   */
  async remove(scope: TenantScope, id: string, cascade = false): Promise<void> {
    const project = await this.projects.findById(scope, id);
    if (!project) {
      // A project a cascade has begun to take is marked, so not found: the retry sees that cascade through.
      const pending = await this.cascades.pending(scope, id);
      if (!pending) throw new NotFoundException(PROJECT_NOT_FOUND);
      return this.cascades.finish(id);
    }
    const channelId = String(project.channelId);
    const cascaded = await this.underTreeLease([channelId], async () => {
      const levels = await this.descendantLevels(scope, project._id);
      if (levels.length > 0 && !cascade) {
        throw new ConflictException('The project has sub-projects; delete with ?cascade=true to delete them with it');
      }
      if (!cascade && (await this.assets.anyInProjects(scope, [id]))) {
        throw new ConflictException('The project has assets; delete with ?cascade=true to delete them with it');
      }
      if (levels.length > 0 || cascade) {
        await this.cascades.begin(scope, 'project', id, channelId, [id, ...levels.flat().map(String)]);
        return true;
      }
      await this.removeLeaf(scope, project._id, channelId);
      return false;
    });
    if (cascaded) await this.cascades.finish(id);
  }

  /**
   * A project without sub-projects or assets needs no cascade's record: what hangs off it goes
   * before its record, so a stop anywhere leaves the project for a retried delete, and the channel's
   * copy of its id, last, is what every delete tolerates. An asset created meanwhile finds its
   * project gone and removes itself, or is taken here.
   */
  private async removeLeaf(scope: TenantScope, id: Types.ObjectId, channelId: string): Promise<void> {
    const removed = [String(id)];
    const event: ProjectsDeletedEvent = { scope, projectIds: removed };
    await this.events.emitAsync(PROJECTS_DELETED, event);
    if (!(await this.projects.deleteOneById(scope, id))) throw new NotFoundException(PROJECT_NOT_FOUND);
    await this.assets.removeForProjects(scope, removed);
    await this.channels.removeProjects(scope, channelId, removed);
  }

  /** Whether every id (malformed ones included) names a content project of the scope's platform project. */
  async allExist(scope: TenantScope, ids: readonly string[]): Promise<boolean> {
    const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
    if (unique.length === 0) return true;
    if (!unique.every(isValidObjectId)) return false;
    return (await this.projects.countOf(scope, unique)) === unique.length;
  }

  /** Whether the scope's platform project still holds any content project (a platform project delete asks). */
  holdsRecords(scope: TenantScope): Promise<boolean> {
    return this.projects.holdsAny(scope);
  }

  /** Before a channel goes: its cascade recorded, its projects and their assets marked (ProjectCascades). */
  async beginChannelCascade(scope: TenantScope, channelId: string): Promise<void> {
    if (!isValidObjectId(channelId)) return;
    await this.cascades.begin(
      scope,
      'channel',
      channelId,
      channelId,
      await this.projects.idsOfChannel(scope, channelId),
    );
  }

  /** The cascade of a channel delete, inside the channel's platform project: recorded, then run (ProjectCascades). */
  async removeAllOfChannel(scope: TenantScope, channelId: string): Promise<void> {
    const ids = await this.projects.idsOfChannel(scope, channelId);
    // A channel without projects leaves nothing to cascade (its collaborators go by their own module).
    if (ids.length === 0 && !(await this.cascades.pending(scope, channelId))) return;
    await this.cascades.begin(scope, 'channel', channelId, channelId, ids);
    await this.cascades.finish(channelId);
  }

  private async insertInto(
    scope: TenantScope,
    channelId: string,
    dto: CreateProjectDto,
    parentId: Types.ObjectId | null,
  ): Promise<Project> {
    const created = await this.projects.insert(scope, { ...projectFields(dto), channelId, parentId });
    const id = String(created._id);
    if (!(await this.channels.addProject(scope, channelId, id))) {
      await this.projects.deleteById(scope, id);
      throw new NotFoundException(CHANNEL_NOT_FOUND);
    }
    return created;
  }

  /** The update guarded on the project's channel (and its parent, for a move); 409 when a move won meanwhile. */
  private async write(
    scope: TenantScope,
    current: Project,
    set: Record<string, unknown>,
    parent?: Types.ObjectId | null,
  ): Promise<Project> {
    const id = String(current._id);
    const updated = await this.projects.updateInChannel(scope, id, String(current.channelId), set, parent);
    if (updated) return updated;
    if (await this.projects.existsById(scope, id)) {
      throw new ConflictException('The project was moved meanwhile; retry the update');
    }
    throw new NotFoundException(PROJECT_NOT_FOUND);
  }

  /** The parent a create or move names: 404 when unknown, 422 in another channel than `channelId`. */
  private async parentFor(scope: TenantScope, channelId: string, parentId: string): Promise<Project> {
    const parent = await this.projects.findById(scope, parentId);
    if (!parent) throw new NotFoundException('Parent project not found');
    if (String(parent.channelId) !== channelId)
      throw new UnprocessableEntityException('The parent project is in another channel');
    return parent;
  }

  /** Nearest first; at most MAX_TREE_DEPTH reads, so a stored cycle cannot loop. */
  private async ancestorsOf(scope: TenantScope, project: Project): Promise<Project[]> {
    const ancestors: Project[] = [];
    let next = project.parentId;
    while (next && ancestors.length < MAX_TREE_DEPTH) {
      const parent = await this.projects.findById(scope, String(next));
      if (!parent) break;
      ancestors.push(parent);
      next = parent.parentId;
    }
    return ancestors;
  }

  /** The ids below the project, one array per level (children first); empty for a leaf. */
  private async descendantLevels(scope: TenantScope, id: Types.ObjectId): Promise<Types.ObjectId[][]> {
    const levels: Types.ObjectId[][] = [];
    let level = [id];
    while (levels.length < MAX_TREE_DEPTH) {
      level = (await this.projects.childrenOf(scope, level, 0)).map((child) => child._id);
      if (level.length === 0) break;
      levels.push(level);
    }
    return levels;
  }

  /** How many levels the subtree has, the project's own included (1 for a leaf). */
  private async heightOf(scope: TenantScope, id: Types.ObjectId): Promise<number> {
    return 1 + (await this.descendantLevels(scope, id)).length;
  }

  private underTreeLease<T>(channelIds: readonly string[], work: () => Promise<T>): Promise<T> {
    const keys = [...new Set(channelIds)].sort().map((channelId) => `project-tree:${channelId}`);
    const run = (index: number): Promise<T> =>
      index === keys.length ? work() : this.leases.withLease(keys[index], TREE_BUSY, () => run(index + 1));
    return run(0);
  }

  /** The channel of a content project of the scope's platform project; null for an unknown one (an asset's write asks). */
  async channelOf(scope: TenantScope, projectId: string): Promise<string | null> {
    const project = await this.projects.findById(scope, projectId);
    return project ? String(project.channelId) : null;
  }

  /**
   * Where a content project sits, for the access guard's channel roles: its channel and parent, or,
   * for a project whose delete has begun (no longer found), the channel its cascade was recorded in,
   * marked `deleting`; null when the scope holds neither.
   */
  async placeOf(scope: TenantScope, id: string): Promise<ProjectPlace | null> {
    const project = await this.projects.findById(scope, id);
    if (project) {
      const parentId = project.parentId ? String(project.parentId) : null;
      return { channelId: String(project.channelId), parentId, deleting: false };
    }
    const pending = await this.cascades.pending(scope, id);
    return pending ? { channelId: String(pending.channelId), parentId: null, deleting: true } : null;
  }

  /** The project's stored record (for modules that decide on its fields, such as who may view it); null when unknown. */
  findRecord(scope: TenantScope, id: string): Promise<Project | null> {
    return this.projects.findById(scope, id);
  }

  /** The project, then its ancestors nearest first: one read each; null when the project is unknown. */
  async findWithAncestors(scope: TenantScope, projectId: string): Promise<Project[] | null> {
    const project = await this.projects.findById(scope, projectId);
    if (!project) return null;
    const chain: Project[] = [project];
    let next = project.parentId ?? null;
    while (next && chain.length <= MAX_TREE_DEPTH) {
      const parent = await this.projects.findById(scope, String(next));
      if (!parent) break;
      chain.push(parent);
      next = parent.parentId ?? null;
    }
    return chain;
  }

  /** These projects as the API shows them, in no order; unknown ids (another tenant's among them) left out. */
  async findManyByIds(scope: TenantScope, ids: readonly string[]): Promise<ProjectResponse[]> {
    return (await this.projects.findByIds(scope, ids)).map(toProjectResponse);
  }

  /**
   * These projects and all their ancestors, by id (one read a level, at most MAX_TREE_DEPTH): for
   * modules that decide on a whole chain at once, such as which search results a viewer may see.
   */
  async findManyWithAncestors(scope: TenantScope, ids: readonly string[]): Promise<Map<string, Project>> {
    const found = new Map<string, Project>();
    let wanted = [...new Set(ids)];
    for (let level = 0; wanted.length > 0 && level <= MAX_TREE_DEPTH; level++) {
      const read = await this.projects.findByIds(scope, wanted);
      for (const project of read) found.set(String(project._id), project);
      wanted = [...new Set(read.flatMap((project) => (project.parentId ? [String(project.parentId)] : [])))].filter(
        (id) => !found.has(id),
      );
    }
    return found;
  }

  /** Every project of every platform project, as its events show it, with its tenant: only for rebuilding the search index. */
  async *everyProject(): AsyncGenerator<{ tenant: string; object: ProjectResponse }> {
    for await (const project of this.projects.everyTenantsProjects(500))
      yield { tenant: String(project.projectId), object: toProjectResponse(project) };
  }

  /** One page of a project's children meeting `conditions` (stored values: the caller builds them), in id order, and the total. */
  pageChildren(
    scope: TenantScope,
    parentId: Types.ObjectId,
    conditions: Record<string, unknown>,
    skip: number,
    limit: number,
  ): Promise<{ rows: Project[]; total: number }> {
    return this.projects.pageChildren(scope, parentId, conditions, skip, limit);
  }

  private async assertChannel(scope: TenantScope, channelId: string): Promise<void> {
    if (!(await this.channels.exists(scope, channelId))) throw new NotFoundException(CHANNEL_NOT_FOUND);
  }
}

function toTreeNode(project: TreeFields, depth: number): ProjectTreeNodeResponse {
  return {
    _id: String(project._id),
    parentId: project.parentId ? String(project.parentId) : null,
    depth,
    primaryTitle: project.primaryTitle,
    projectTypeId: project.projectTypeId,
    status: project.status,
  };
}
