import { NotFoundException } from '@nestjs/common';
import type { AnyKeys, Types } from 'mongoose';
import { toObjectId } from '../database/records';
import type { RecordedChange, TenantRecords } from './tenant-records';
import type { TenantScope } from './tenant-scope';
import type { SoftDeletableResource } from './recorded-event-types';

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
const SOFT_DELETED = { deletedAt: { $ne: null } };

/**
 * Create, list, read, update, soft delete, restore and hard delete of a soft-deletable record, every
 * one inside the caller's platform project; the repositories of such records (clients, collections)
 * are built on it. A record of another project answers exactly as a missing one: the same 404 with
 * the same message. Each write is one conditional update whose guard sits in the filter (live for
 * update and soft delete, soft-deleted for restore), so a concurrent state change wins cleanly
 * instead of being overwritten.
 */
export class SoftDeletableRecords<T extends SoftDeletable> {
  /** `resource`: the name its events carry (`collection` records `collection.created`, ...). */
  constructor(
    protected readonly records: TenantRecords<T>,
    private readonly notFoundMessage: string,
    private readonly resource: SoftDeletableResource,
  ) {}

  /** Inserts the fields into the scope's project; returns the new id. */
  async create(scope: TenantScope, fields: AnyKeys<T>): Promise<string> {
    const created = await this.records.insert(scope, fields, [`${this.resource}.created`]);
    return String(created._id);
  }

  /** One page, newest first; soft-deleted records only when asked for. */
  async list(scope: TenantScope, query: RecordListQuery): Promise<RecordPage<T>> {
    const conditions = query.includeDeleted ? {} : LIVE;
    const [rows, total] = await Promise.all([
      this.records.find(scope, conditions, { sort: { _id: -1 }, skip: query.skip, limit: query.limit }),
      this.records.count(scope, conditions),
    ]);
    return { rows, total };
  }

  /** The record, or 404; a soft-deleted one only when asked for. */
  async get(scope: TenantScope, id: string, includeDeleted: boolean): Promise<T> {
    const record = await this.records.findById(scope, id, includeDeleted ? {} : LIVE);
    if (!record) throw this.notFound();
    return record;
  }

  /** True when a live record with this id exists in the scope's project. A malformed id is simply false. */
  isLive(scope: TenantScope, id: string): Promise<boolean> {
    return this.records.existsById(scope, id, LIVE);
  }

  /** True when the scope's project holds any record, live or soft-deleted. */
  holdsAny(scope: TenantScope): Promise<boolean> {
    return this.records.exists(scope);
  }

  /** Sets the fields on a live record; a soft-deleted or unknown one is 404. */
  async update(scope: TenantScope, id: string, fields: Partial<T>): Promise<void> {
    await this.updateOne(scope, id, LIVE, fields, { event: `${this.resource}.updated`, diff: true });
  }

  /** Recorded as `<resource>.deleted`, the record's `deletedAt` set. */
  async softDelete(scope: TenantScope, id: string): Promise<void> {
    await this.updateOne(scope, id, LIVE, { deletedAt: new Date() } as Partial<T>, {
      event: `${this.resource}.deleted`,
    });
  }

  /** Only a soft-deleted record can be restored; a live or unknown id is 404. */
  async restore(scope: TenantScope, id: string): Promise<void> {
    await this.updateOne(scope, id, SOFT_DELETED, { deletedAt: null } as Partial<T>, {
      event: `${this.resource}.restored`,
    });
  }

  /**
   * Removes the record, live or soft-deleted. `beforeDelete` runs once the record is known to exist
   * and may throw to stop the delete (a child module that still refers to it); nothing is removed then.
   */
  async hardDelete(scope: TenantScope, id: string, beforeDelete?: () => Promise<unknown>): Promise<void> {
    const _id = toObjectId(id);
    if (!_id) throw this.notFound();
    if (beforeDelete) {
      if (!(await this.records.existsById(scope, id))) throw this.notFound();
      await beforeDelete();
    }
    if (!(await this.records.deleteOne(scope, { _id }, { event: `${this.resource}.deleted` }))) throw this.notFound();
  }

  private async updateOne(
    scope: TenantScope,
    id: string,
    guard: Record<string, unknown>,
    fields: Partial<T>,
    change: RecordedChange,
  ): Promise<void> {
    const _id = toObjectId(id);
    const result = _id
      ? await this.records.updateOne(scope, { _id, ...guard }, { $set: fields }, change)
      : { matched: 0 };
    if (result.matched === 0) throw this.notFound();
  }

  private notFound(): NotFoundException {
    return new NotFoundException(this.notFoundMessage);
  }
}
