import { BadRequestException, ConflictException, Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import type { Types } from 'mongoose';
import { isValidObjectId } from '../common/pipes/object-id';
import { CHANNEL_NOT_FOUND, ChannelsService } from '../channels/channels.service';
import { pickDefined } from '../common/fields/pick-defined';
import type { ContentPage } from '../common/paging/total-count';
import type { TenantScope } from '../tenancy/tenant-scope';
import { CreateProjectDto } from './dto/create-project.dto';
import { ListProjectsQuery } from './dto/list-projects.query';
import { ProjectResponse } from './dto/project.response';
import { UpdateProjectDto } from './dto/update-project.dto';
import { toProjectResponse } from './projects.mapper';
import { ProjectsRepository } from './projects.repository';
import type { Project } from './project.schema';

const PROJECT_NOT_FOUND = 'Project not found';
const PARENT_NOT_FOUND = 'Parent project not found';
/** How far up an ancestor walk goes at most: deeper than any tree the service lets be built, so a stored cycle ends it. */
const MAX_ANCESTORS = 16;

/** The fields a request may write, all but `channelId` (which decides where the project lives). */
const WRITABLE_FIELDS = [
  'projectTypeId',
  'subTypeId',
  'primaryTitle',
  'description',
  'portraitImg',
  'landscapeImg',
  'contentUploadType',
  'access',
  'status',
  'primaryLanguageId',
  'categoryId',
  'subCategoryId',
  'topicIds',
  'supportedFormats',
  'supportedModes',
  'supportedFeatures',
] as const;
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
export function projectListFilter(channelId: string, query: Pick<ListProjectsQuery, 'status' | 'projectTypeId' | 'access' | 'q'>) {
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
 */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly channels: ChannelsService,
  ) {}

  async create(scope: TenantScope, channelId: string, dto: CreateProjectDto): Promise<ProjectResponse> {
    if (dto.channelId !== undefined && dto.channelId.toLowerCase() !== channelId) {
      throw new BadRequestException('channelId in the body must match the channel in the path');
    }
    await this.assertChannel(scope, channelId);
    const parentId = dto.parentId ? await this.parentIn(scope, channelId, dto.parentId) : null;
    const created = await this.projects.insert(scope, { ...projectFields(dto), channelId, parentId });
    const id = String(created._id);
    if (!(await this.channels.addProject(scope, channelId, id))) {
      await this.projects.deleteById(scope, id);
      throw new NotFoundException(CHANNEL_NOT_FOUND);
    }
    return toProjectResponse(created);
  }

  async listByChannel(scope: TenantScope, channelId: string, query: ListProjectsQuery): Promise<ContentPage<ProjectResponse>> {
    await this.assertChannel(scope, channelId);
    const { rows, total } = await this.projects.page(scope, projectListFilter(channelId, query), query.skip, query.limit);
    return { items: rows.map(toProjectResponse), total };
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
    if (moving) await this.assertChannel(scope, to);

    const set = { ...projectFields(dto), ...(moving ? { channelId: to } : {}) };
    const updated = await this.projects.updateInChannel(scope, id, from, set);
    if (!updated) {
      if (await this.projects.existsById(scope, id)) {
        throw new ConflictException('The project was moved to another channel meanwhile; retry the update');
      }
      throw new NotFoundException(PROJECT_NOT_FOUND);
    }

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

  async remove(scope: TenantScope, id: string): Promise<void> {
    const deleted = await this.projects.deleteById(scope, id);
    if (!deleted) throw new NotFoundException(PROJECT_NOT_FOUND);
    await this.channels.removeProject(scope, String(deleted.channelId), id);
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

  /** The cascade of a channel delete, inside the channel's platform project. */
  removeAllOfChannel(scope: TenantScope, channelId: string): Promise<void> {
    return this.projects.deleteAllOfChannel(scope, channelId);
  }

  /** The project's stored record (for modules that decide on its fields, such as who may view it); null when unknown. */
  findRecord(scope: TenantScope, id: string): Promise<Project | null> {
    return this.projects.findById(scope, id);
  }

  /** The project's ancestors, nearest first (its parent, the parent's parent...); empty for a top-level or unknown project. */
  async findAncestors(scope: TenantScope, projectId: string): Promise<Project[]> {
    return (await this.findWithAncestors(scope, projectId))?.slice(1) ?? [];
  }

  /** The project, then its ancestors nearest first: one read each; null when the project is unknown. */
  async findWithAncestors(scope: TenantScope, projectId: string): Promise<Project[] | null> {
    const project = await this.projects.findById(scope, projectId);
    if (!project) return null;
    const chain: Project[] = [project];
    let next = project.parentId ?? null;
    while (next && chain.length <= MAX_ANCESTORS) {
      const parent = await this.projects.findById(scope, String(next));
      if (!parent) break;
      chain.push(parent);
      next = parent.parentId ?? null;
    }
    return chain;
  }

  /** One page of a project's children meeting `conditions` (stored values: the caller builds them), in id order, and the total. */
  pageChildren(scope: TenantScope, parentId: Types.ObjectId, conditions: Record<string, unknown>, skip: number, limit: number): Promise<{ rows: Project[]; total: number }> {
    return this.projects.pageChildren(scope, parentId, conditions, skip, limit);
  }

  /** The id of the parent a new project names: a project of the same channel (404 unknown, 422 another channel). */
  private async parentIn(scope: TenantScope, channelId: string, parentId: string): Promise<string> {
    const parent = await this.projects.findById(scope, parentId);
    if (!parent) throw new NotFoundException(PARENT_NOT_FOUND);
    if (String(parent.channelId) !== channelId) throw new UnprocessableEntityException('The parent project is in another channel: a sub-project lives in its parent\'s channel');
    return String(parent._id);
  }

  private async assertChannel(scope: TenantScope, channelId: string): Promise<void> {
    if (!(await this.channels.exists(scope, channelId))) throw new NotFoundException(CHANNEL_NOT_FOUND);
  }
}
