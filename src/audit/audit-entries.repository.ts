import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Types, type Model } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { Records } from '../database/records';
import { AuditEntry } from './audit-entry.schema';

export interface AuditFilters {
  action?: string;
  actorId?: string;
  projectId?: string;
  from?: Date;
  to?: Date;
}

/** The audit log collection: the only code that reads or writes it. Entries are inserted, never updated. */
@Injectable()
export class AuditEntriesRepository {
  private readonly records: Records<AuditEntry>;

  constructor(@InjectModel(AuditEntry.name) model: Model<AuditEntry>) {
    this.records = new Records(model);
  }

  /**
   * The account's newest entry, or null, by sorting its entries: FerretDB sorts in the service's
   * database process, after reading every one of them, so appends find the newest by `atSequence`.
   */
  newest(accountId: string): Promise<AuditEntry | null> {
    return this.records.findOne({ accountId: new Types.ObjectId(accountId) }, { sort: { sequence: -1 } });
  }

  /** The account's entry numbered `sequence`, or null: one equality lookup, which every database answers from an index. */
  atSequence(accountId: string, sequence: number): Promise<AuditEntry | null> {
    return this.records.findOne({ accountId: new Types.ObjectId(accountId), sequence });
  }

  /** Inserts the entry; 'taken' when its number or its id is there already. */
  async insert(entry: Omit<AuditEntry, '_id'>): Promise<'inserted' | 'taken'> {
    try {
      await this.records.insert(entry);
      return 'inserted';
    } catch (error) {
      if (isDuplicateKey(error)) return 'taken';
      throw error;
    }
  }

  hasEntry(entryId: string): Promise<boolean> {
    return this.records.exists({ entryId });
  }

  /** Newest first, `limit + 1` entries before the cursor's sequence, matching the filters. */
  page(accountId: string, filters: AuditFilters, limit: number, beforeSequence?: number): Promise<AuditEntry[]> {
    return this.records.find(this.conditions(accountId, filters, beforeSequence), {
      sort: { sequence: -1 },
      limit: limit + 1,
    });
  }

  findByEntryId(accountId: string, entryId: string): Promise<AuditEntry | null> {
    return this.records.findOne({ accountId: new Types.ObjectId(accountId), entryId });
  }

  /**
   * Every matching entry, oldest first, a batch at a time (export and verify): one sorted read with
   * a cursor, as FerretDB sorts after reading every entry of the account and would do so for each
   * batch that a read per batch asked for.
   */
  each(accountId: string, filters: AuditFilters = {}): AsyncIterable<AuditEntry> {
    return this.records.aggregateEach<AuditEntry>(
      [{ $match: this.conditions(accountId, filters) }, { $sort: { sequence: 1 } }],
      500,
    );
  }

  /** The accounts holding an entry older than `cutoff`. */
  async accountsWithEntriesBefore(cutoff: Date): Promise<string[]> {
    const rows = await this.records.aggregate<{ _id: Types.ObjectId }>([
      { $match: { occurredAt: { $lt: cutoff } } },
      { $group: { _id: '$accountId' } },
    ]);
    return rows.map((row) => String(row._id));
  }

  /** The account's lowest-numbered entry that occurred at or after `since`, or null. */
  firstSince(accountId: string, since: Date): Promise<AuditEntry | null> {
    return this.records.findOne(
      { accountId: new Types.ObjectId(accountId), occurredAt: { $gte: since } },
      { sort: { sequence: 1 } },
    );
  }

  /** Drops the account's entries numbered below `sequence`: retention cuts the start of the chain, never a piece of it. */
  deleteBefore(accountId: string, sequence: number): Promise<number> {
    return this.records.deleteMany({ accountId: new Types.ObjectId(accountId), sequence: { $lt: sequence } });
  }

  private conditions(accountId: string, filters: AuditFilters, beforeSequence?: number): Record<string, unknown> {
    const conditions: Record<string, unknown> = { accountId: new Types.ObjectId(accountId) };
    if (filters.action) conditions.action = filters.action;
    if (filters.actorId) conditions['actor.id'] = filters.actorId;
    if (filters.projectId) conditions.projectId = filters.projectId;
    if (filters.from || filters.to)
      conditions.occurredAt = {
        ...(filters.from ? { $gte: filters.from } : {}),
        ...(filters.to ? { $lte: filters.to } : {}),
      };
    if (beforeSequence !== undefined) conditions.sequence = { $lt: beforeSequence };
    return conditions;
  }
}
