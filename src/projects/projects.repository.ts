import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { AnyKeys, Model, Types } from 'mongoose';
import { Records, toObjectId } from '../database/records';
import { type RecordedChange, TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { EventRelay } from '../events/event-relay';
import { Project } from './project.schema';
import { toProjectResponse } from './projects.mapper';

const PROJECT_UPDATED: RecordedChange = { event: 'project.updated', diff: true };

/** What a tree read needs of each project. */
export type TreeFields = Pick<Project, '_id' | 'parentId' | 'primaryTitle' | 'projectTypeId' | 'status'>;
const TREE_FIELDS = ['_id', 'parentId', 'primaryTitle', 'projectTypeId', 'status'] as const;
/** A project no cascade has begun to take: the only kind read, listed, counted or built under. */
const LIVE = { deletingAt: null };

/** The content projects of a platform project: the only code that reads or writes them. */
@Injectable()
export class ProjectsRepository {
  private readonly records: TenantRecords<Project>;
  /** Every tenant's projects at once: only for rebuilding the search index, below. */
  private readonly everyTenant: Records<Project>;

  constructor(@InjectModel(Project.name) model: Model<Project>, relay: EventRelay) {
    this.records = new TenantRecords(model, relay.recorder(new Records(model), toProjectResponse));
    this.everyTenant = new Records(model);
  }

  /** These projects of the scope, in no order; malformed and unknown ids left out. */
  findByIds(scope: TenantScope, ids: readonly string[]): Promise<Project[]> {
    const known = ids.flatMap((id) => toObjectId(id) ?? []);
    return known.length === 0 ? Promise.resolve([]) : this.records.find(scope, { _id: { $in: known } });
  }

  /** Every project of every tenant, in `_id` order, a batch at a time: the search index's rebuild reads them all. */
  everyTenantsProjects(batch: number): AsyncGenerator<Project> {
    return this.everyTenant.eachInIdOrder({}, batch);
  }

  insert(scope: TenantScope, fields: AnyKeys<Project>): Promise<Project> {
    return this.records.insert(scope, fields, ['project.created']);
  }

  findById(scope: TenantScope, id: string): Promise<Project | null> {
    return this.records.findById(scope, id, LIVE);
  }

  existsById(scope: TenantScope, id: string): Promise<boolean> {
    return this.records.existsById(scope, id, LIVE);
  }

  /** One page of a channel's projects matching `conditions` (the channel's id among them), oldest first, and the total. */
  async page(
    scope: TenantScope,
    conditions: Record<string, unknown>,
    skip: number,
    limit: number,
  ): Promise<{ rows: Project[]; total: number }> {
    const stored = { ...conditions, channelId: toObjectId(String(conditions.channelId)), ...LIVE };
    const [rows, total] = await Promise.all([
      this.records.find(scope, stored, { sort: { _id: 1 }, skip, limit }),
      this.records.count(scope, stored),
    ]);
    return { rows, total };
  }

  /**
   * Sets the fields while the project is still in channel `from` (and, when given, still under
   * `parent`: a move's guard); the project after, or null.
   */
  updateInChannel(
    scope: TenantScope,
    id: string,
    from: string,
    set: Record<string, unknown>,
    parent?: Types.ObjectId | null,
  ): Promise<Project | null> {
    const _id = toObjectId(id);
    const channelId = toObjectId(from);
    if (!_id || !channelId) return Promise.resolve(null);
    const conditions = parent === undefined ? { _id, channelId } : { _id, channelId, parentId: parent };
    return this.records.updateAndGet(scope, conditions, { $set: set }, { validate: true, ...PROJECT_UPDATED });
  }

  /** The direct children of any of `parents`, oldest first, at most `limit`; only the tree's fields. */
  childrenOf(scope: TenantScope, parents: readonly Types.ObjectId[], limit: number): Promise<TreeFields[]> {
    return this.records.find(
      scope,
      { parentId: { $in: parents }, ...LIVE },
      { fields: TREE_FIELDS, sort: { _id: 1 }, limit },
    ) as Promise<TreeFields[]>;
  }

  /** One page of a project's children matching `conditions`, oldest first, and the total. */
  async pageChildren(
    scope: TenantScope,
    parentId: Types.ObjectId,
    conditions: Record<string, unknown>,
    skip: number,
    limit: number,
  ): Promise<{ rows: Project[]; total: number }> {
    const stored = { ...conditions, parentId, ...LIVE };
    const [rows, total] = await Promise.all([
      this.records.find(scope, stored, { sort: { _id: 1 }, skip, limit }),
      this.records.count(scope, stored),
    ]);
    return { rows, total };
  }

  /** Removes the one project (its `project.deleted` recorded): one read and one delete, where `deleteByIds` reads once more for an empty batch. */
  deleteOneById(scope: TenantScope, id: Types.ObjectId): Promise<boolean> {
    return this.records.deleteOne(scope, { _id: id }, { event: 'project.deleted' });
  }

  /** Removes these projects, each recorded as `project.deleted` (a subtree's level); how many. */
  deleteByIds(scope: TenantScope, ids: readonly Types.ObjectId[]): Promise<number> {
    return ids.length === 0
      ? Promise.resolve(0)
      : this.records.deleteMany(scope, { _id: { $in: ids } }, { event: 'project.deleted' });
  }

  /** Moves the project back to `from` while it is still in `to` (a move whose target vanished). */
  async moveBack(scope: TenantScope, id: string, to: string, from: string): Promise<void> {
    const _id = toObjectId(id);
    const channelId = toObjectId(to);
    if (_id && channelId)
      await this.records.updateOne(scope, { _id, channelId }, { $set: { channelId: from } }, PROJECT_UPDATED);
  }

  /** Removes the project and answers it as it was; null when there was none. */
  async deleteById(scope: TenantScope, id: string): Promise<Project | null> {
    const project = await this.records.findById(scope, id);
    if (!project || !(await this.records.deleteOne(scope, { _id: project._id }, { event: 'project.deleted' })))
      return null;
    return project;
  }

  /** How many of the ids name projects of the scope's platform project (every id well-formed and distinct). */
  countOf(scope: TenantScope, ids: readonly string[]): Promise<number> {
    return this.records.count(scope, { _id: { $in: ids.map(toObjectId) }, ...LIVE });
  }

  holdsAny(scope: TenantScope): Promise<boolean> {
    return this.records.exists(scope);
  }

  /** Marks these projects as taken by a cascade (no event: each records `project.deleted` when it goes). */
  async markDeleting(scope: TenantScope, ids: readonly Types.ObjectId[], now = new Date()): Promise<void> {
    if (ids.length > 0)
      await this.records.updateMany(scope, { _id: { $in: [...ids] }, ...LIVE }, { $set: { deletingAt: now } });
  }

  /** The ids of a channel's projects, those a cascade has begun to take included. */
  async idsOfChannel(scope: TenantScope, channelId: string): Promise<string[]> {
    const id = toObjectId(channelId);
    return id
      ? (await this.records.find(scope, { channelId: id }, { fields: ['_id'] })).map((project) => String(project._id))
      : [];
  }
}
