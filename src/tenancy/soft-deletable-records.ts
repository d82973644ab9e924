import { NotFoundException } from '@nestjs/common';
import { Model, QueryFilter, trusted, Types } from 'mongoose';
import { countInScope, existsInScope, findInScope, findOneInScope } from './find-in-scope';
import { inScope, scopeProjectId, type TenantScope } from './tenant-scope';
import { insertDocument } from '../common/database/insert-document';

/** A tenant-owned record that a soft delete hides (`deletedAt` set) until a restore clears it. */
export interface SoftDeletable {
  _id: Types.ObjectId;
  deletedAt: Date | null;
}

/** One page of records, newest first, and the total that matches across all pages. */
export interface RecordPage<T> {
  rows: T[];
  total: number;
}

export interface RecordListQuery {
  skip: number;
  limit: number;
  includeDeleted: boolean;
}

const LIVE = { deletedAt: null };
const SOFT_DELETED = { deletedAt: trusted({ $ne: null }) };

/**
 * Create, list, read, update, soft delete, restore and hard delete of a soft-deletable record, every
 * one inside the caller's platform project. A record of another project answers exactly as a
 * missing one: the same 404 with the same message. Each write is one conditional update whose guard
 * sits in the filter (live for update and soft delete, soft-deleted for restore), so a concurrent
 * state change wins cleanly instead of being overwritten.
 */
export class SoftDeletableRecords<T extends SoftDeletable> {
  constructor(
    private readonly model: Model<T>,
    private readonly notFoundMessage: string,
  ) {}

  /** Inserts the fields into the scope's project; returns the new id. */
  async create(scope: TenantScope, fields: Partial<T>): Promise<string> {
    const created = await insertDocument(this.model, { ...fields, projectId: scopeProjectId(scope) });
    return String(created._id);
  }

  /** One page, newest first; soft-deleted records only when asked for. */
  async list(scope: TenantScope, query: RecordListQuery): Promise<RecordPage<T>> {
    const conditions = query.includeDeleted ? {} : LIVE;
    const [rows, total] = await Promise.all([
      findInScope(this.model, scope, conditions, { sort: { _id: -1 }, skip: query.skip, limit: query.limit }),
      countInScope(this.model, scope, conditions),
    ]);
    return { rows, total };
  }

  /** The record, or 404; a soft-deleted one only when asked for. */
  async get(scope: TenantScope, id: string, includeDeleted: boolean): Promise<T> {
    const record = await findOneInScope(this.model, scope, id, includeDeleted ? {} : LIVE);
    if (!record) throw this.notFound();
    return record;
  }

  /** True when a live record with this id exists in the scope's project. A malformed id is simply false. */
  async isLive(scope: TenantScope, id: string): Promise<boolean> {
    return existsInScope(this.model, scope, id, LIVE);
  }

  /** True when the scope's project holds any record, live or soft-deleted. */
  async holdsAny(scope: TenantScope): Promise<boolean> {
    return (await this.model.exists(this.filter(scope, {})).exec()) !== null;
  }

  /** Sets the fields on a live record; a soft-deleted or unknown one is 404. */
  async update(scope: TenantScope, id: string, fields: Partial<T>): Promise<void> {
    await this.updateOne(scope, { _id: id, ...LIVE }, fields);
  }

  async softDelete(scope: TenantScope, id: string): Promise<void> {
    await this.updateOne(scope, { _id: id, ...LIVE }, { deletedAt: new Date() } as Partial<T>);
  }

  /** Only a soft-deleted record can be restored; a live or unknown id is 404. */
  async restore(scope: TenantScope, id: string): Promise<void> {
    await this.updateOne(scope, { _id: id, ...SOFT_DELETED }, { deletedAt: null } as Partial<T>);
  }

  /**
   * Removes the record, live or soft-deleted. `beforeDelete` runs once the record is known to exist
   * and may throw to stop the delete (a child module that still refers to it); nothing is removed then.
   */
  async hardDelete(scope: TenantScope, id: string, beforeDelete?: () => Promise<unknown>): Promise<void> {
    if (beforeDelete) {
      if ((await this.model.exists(this.filter(scope, { _id: id })).exec()) === null) throw this.notFound();
      await beforeDelete();
    }
    const result = await this.model.deleteOne(this.filter(scope, { _id: id })).exec();
    if (result.deletedCount === 0) throw this.notFound();
  }

  private async updateOne(scope: TenantScope, guard: Record<string, unknown>, fields: Partial<T>): Promise<void> {
    const result = await this.model.updateOne(this.filter(scope, guard), { $set: fields }).exec();
    if (result.matchedCount === 0) throw this.notFound();
  }

  private filter(scope: TenantScope, filter: Record<string, unknown>): QueryFilter<T> {
    return inScope(scope, filter) as QueryFilter<T>;
  }

  private notFound(): NotFoundException {
    return new NotFoundException(this.notFoundMessage);
  }
}
