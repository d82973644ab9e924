import { Injectable, type Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model, Types } from 'mongoose';
import { Records } from '../database/records';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { IdempotencyRecord } from './idempotency-record.schema';
import { IDEMPOTENCY_KEY_TTL_SECONDS } from './request-fingerprint';

/** The records of `Idempotency-Key`s: the only code that reads or writes them. */
@Injectable()
export class IdempotencyRecordsRepository {
  private readonly records: TenantRecords<IdempotencyRecord>;
  /** By id alone: see `complete`. */
  private readonly byId: Records<IdempotencyRecord>;

  constructor(@InjectModel(IdempotencyRecord.name) model: Model<IdempotencyRecord>) {
    this.records = new TenantRecords(model);
    this.byId = new Records(model);
  }

  /**
   * Opens the key's record, in progress: its id. A key (project, caller and route) already taken
   * fails with a duplicate key from the unique index, and writes nothing. One insert: a new key is
   * the common case, and on MongoDB an insert checks the unique index as it writes, where an upsert
   * would first query for the key and then insert (and retry on the same duplicate under a race).
   */
  async open(scope: TenantScope, callerRoute: string, key: string, fingerprint: string): Promise<Types.ObjectId> {
    const opened = await this.records.insert(scope, {
      scope: callerRoute,
      key,
      fingerprint,
      state: 'in_progress',
      statusCode: null,
      responseBody: null,
    });
    return opened._id as Types.ObjectId;
  }

  find(scope: TenantScope, callerRoute: string, key: string): Promise<IdempotencyRecord | null> {
    return this.records.findOne(scope, { scope: callerRoute, key });
  }

  /** Drops a record past its life, only while it is still the one read (its `createdAt`). */
  async dropStale(scope: TenantScope, record: IdempotencyRecord): Promise<void> {
    await this.records.deleteOne(scope, { _id: record._id, createdAt: record.createdAt });
  }

  /**
   * Stores the answer. The filter is the record's id alone: `open` inserted it in this request's
   * project a moment ago, so the id already names the project's record (or nothing, when an
   * abandoned record was dropped meanwhile), and only the request that made it completes it. An id
   * alone is also the one filter FerretDB narrows in SQL.
   */
  async complete(recordId: Types.ObjectId, statusCode: number, responseBody: string | null): Promise<void> {
    await this.byId.setById(recordId, { state: 'completed', statusCode, responseBody, updatedAt: new Date() });
  }

  /** The request ran but its answer could not be stored: a write smaller than `complete`'s, by id alone too. */
  async markUnstored(recordId: Types.ObjectId): Promise<void> {
    await this.byId.setById(recordId, { state: 'unstored', updatedAt: new Date() });
  }

  /** Frees the key of a request that failed, so the client can retry it. */
  async release(scope: TenantScope, recordId: Types.ObjectId): Promise<void> {
    await this.records.deleteOne(scope, { _id: recordId, state: 'in_progress' });
  }

  /** Records are forgotten 24 hours after they were opened (a TTL index, or a sweep where there is none). */
  expireByAge(logger: Logger): Promise<() => void> {
    return this.byId.expireByAge(IDEMPOTENCY_KEY_TTL_SECONDS, logger);
  }
}
