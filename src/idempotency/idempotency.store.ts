import { ConflictException, Injectable, Logger, OnModuleDestroy, OnModuleInit, UnprocessableEntityException } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { inScope, scopeProjectId, type TenantScope } from '../tenancy/tenant-scope';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { expireByAge, sweepExpired } from '../database/expire-by-age';
import { IdempotencyRecord } from './idempotency-record.schema';
import { IDEMPOTENCY_KEY_TTL_SECONDS, KEY_REUSED_MESSAGE } from './request-fingerprint';
import { insertDocument } from '../common/database/insert-document';
import { Clock } from '../common/clock/clock';

export type IdempotencyStart =
  | { kind: 'started'; recordId: Types.ObjectId }
  | { kind: 'replay'; statusCode: number; body: unknown };

/** Rounds of "insert, else read" before giving up on a key that keeps appearing and vanishing. */
const MAX_ATTEMPTS = 5;
/**
 * A record still in progress after this long belongs to a request whose server stopped before it
 * answered; it is dropped so the key does not answer 409 for a whole day.
 */
export const IN_PROGRESS_LEASE_MS = 5 * 60 * 1000;

/**
 * Remembers requests by `Idempotency-Key`, per platform project. The unique index on (project,
 * caller and route, key) decides which of several concurrent requests runs; the others see its
 * record and wait for nothing: they get 409 while it runs and its stored answer once it is done.
 */
@Injectable()
export class IdempotencyStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(IdempotencyStore.name);
  private stopExpiry: () => void = () => undefined;

  constructor(
    @InjectModel(IdempotencyRecord.name) private readonly records: Model<IdempotencyRecord>,
    private readonly clock: Clock,
  ) {}

  /**
   * Lets MongoDB drop expired keys by itself. FerretDB has no TTL indexes; there, and in any case,
   * a record older than 24 hours counts as absent and is replaced when its key comes back.
   */
  async onModuleInit(): Promise<void> {
    this.stopExpiry = await expireByAge(this.records.collection, IDEMPOTENCY_KEY_TTL_SECONDS, this.logger);
  }

  onModuleDestroy(): void {
    this.stopExpiry();
  }

  /** `callerRoute` names the caller and the route (`idempotencyScope`); the tenant scope, the project. */
  async begin(scope: TenantScope, callerRoute: string, key: string, fingerprint: string): Promise<IdempotencyStart> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        const created = await insertDocument(this.records, {
          projectId: scopeProjectId(scope),
          scope: callerRoute,
          key,
          fingerprint,
          state: 'in_progress',
        });
        return { kind: 'started', recordId: created._id };
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const existing = await this.records.findOne(inScope(scope, { scope: callerRoute, key })).lean<IdempotencyRecord>().exec();
      // Gone in between: the request that held the key failed and released it. Try again.
      if (!existing) continue;
      if (this.isExpired(existing) || this.isAbandoned(existing)) {
        await this.records.deleteOne(inScope(scope, { _id: existing._id, createdAt: existing.createdAt })).exec();
        continue;
      }
      if (existing.fingerprint !== fingerprint) {
        throw new UnprocessableEntityException(KEY_REUSED_MESSAGE);
      }
      if (existing.state !== 'completed' || existing.statusCode === null) {
        throw new ConflictException(
          'A request with this Idempotency-Key is still being processed; retry it shortly to get its result',
        );
      }
      return {
        kind: 'replay',
        statusCode: existing.statusCode,
        body: existing.responseBody === null ? undefined : JSON.parse(existing.responseBody),
      };
    }
    throw new ConflictException('A request with this Idempotency-Key is still being processed; retry it shortly to get its result');
  }

  /**
   * Stores the answer of the request that ran (its JSON body as sent, or null for none), for its
   * retries. The filter is the record's id alone: `begin` inserted it in this request's project a
   * moment ago, so the id already names the project's record (or nothing, when an abandoned record
   * was dropped meanwhile), and only the request that made it completes it. An id alone is also the
   * one filter FerretDB narrows in SQL; with the project and state beside it, it decodes and filters
   * every record of the last 24 hours. So this one write goes to the collection past the
   * tenantOwned guard, like the expiry sweep.
   */
  async complete(recordId: Types.ObjectId, statusCode: number, responseBody: string | null): Promise<void> {
    await this.records.collection.updateOne({ _id: recordId }, { $set: { state: 'completed', statusCode, responseBody, updatedAt: new Date() } });
  }

  /** Frees the key of a request that failed, so the client can retry it. */
  async release(scope: TenantScope, recordId: Types.ObjectId): Promise<void> {
    await this.records.deleteOne(inScope(scope, { _id: recordId, state: 'in_progress' as const })).exec();
  }

  /** Drops records past their 24 hours, in every project (see `expireByAge`). */
  purgeExpired(now = new Date()): Promise<number> {
    return sweepExpired(this.records.collection, IDEMPOTENCY_KEY_TTL_SECONDS, now);
  }

  private isAbandoned(record: IdempotencyRecord, now = this.clock.now().getTime()): boolean {
    return record.state === 'in_progress' && now - new Date(record.createdAt).getTime() >= IN_PROGRESS_LEASE_MS;
  }

  private isExpired(record: IdempotencyRecord, now = this.clock.now().getTime()): boolean {
    return now - new Date(record.createdAt).getTime() >= IDEMPOTENCY_KEY_TTL_SECONDS * 1000;
  }
}
