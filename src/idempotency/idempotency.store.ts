import {
  ConflictException,
  Injectable,
  Logger,
  OnModuleDestroy,
  OnModuleInit,
  UnprocessableEntityException,
} from '@nestjs/common';
import type { Types } from 'mongoose';
import type { TenantScope } from '../tenancy/tenant-scope';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { Clock } from '../common/clock/clock';
import type { IdempotencyRecord } from './idempotency-record.schema';
import { IdempotencyRecordsRepository } from './idempotency-records.repository';
import { IDEMPOTENCY_KEY_TTL_SECONDS, KEY_REUSED_MESSAGE } from './request-fingerprint';

export type IdempotencyStart =
  { kind: 'started'; recordId: Types.ObjectId } | { kind: 'replay'; statusCode: number; body: unknown };

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
    private readonly records: IdempotencyRecordsRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Lets MongoDB drop expired keys by itself. FerretDB has no TTL indexes; there, and in any case,
   * a record older than 24 hours counts as absent and is replaced when its key comes back.
   */
  async onModuleInit(): Promise<void> {
    this.stopExpiry = await this.records.expireByAge(this.logger);
  }

  onModuleDestroy(): void {
    this.stopExpiry();
  }

  /** `callerRoute` names the caller and the route (`idempotencyScope`); the tenant scope, the project. */
  async begin(scope: TenantScope, callerRoute: string, key: string, fingerprint: string): Promise<IdempotencyStart> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        return { kind: 'started', recordId: await this.records.open(scope, callerRoute, key, fingerprint) };
      } catch (error) {
        // The key is taken: by an earlier request, or by one that opened it at the same moment.
        if (!isDuplicateKey(error)) throw error;
      }
      const existing = await this.records.find(scope, callerRoute, key);
      // Gone in between: the request that held the key failed and released it. Try again.
      if (!existing) continue;
      if (this.isExpired(existing) || this.isAbandoned(existing)) {
        await this.records.dropStale(scope, existing);
        continue;
      }
      if (existing.fingerprint !== fingerprint) {
        throw new UnprocessableEntityException(KEY_REUSED_MESSAGE);
      }
      if (existing.state === 'unstored') {
        throw new ConflictException(
          'A request with this Idempotency-Key ran, but its response could not be stored: the key answers 409 until it expires (24 hours); ' +
            'use a new key for a new request',
        );
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
    throw new ConflictException(
      'A request with this Idempotency-Key is still being processed; retry it shortly to get its result',
    );
  }

  /**
   * Stores the answer of the request that ran (its JSON body as sent, or null for none), for its
   * retries. When the answer cannot be stored, the record is marked `unstored` (a small write that
   * may succeed where the answer did not, a body too large say) so that the key answers 409 until it
   * expires instead of counting as abandoned after IN_PROGRESS_LEASE_MS and running again; the
   * failure is still thrown, for the caller to log. Only when that write fails too does the record
   * stay in progress.
   */
  async complete(recordId: Types.ObjectId, statusCode: number, responseBody: string | null): Promise<void> {
    try {
      await this.records.complete(recordId, statusCode, responseBody);
    } catch (error) {
      await this.records.markUnstored(recordId).catch((again: Error) => {
        this.logger.error(
          `Marking an unstored idempotent response failed: ${again.message}; its key runs again after ${IN_PROGRESS_LEASE_MS / 60_000} minutes`,
        );
      });
      throw error;
    }
  }

  /** The request ran, but what it answered is lost: its key answers 409 until it expires, and never runs again. */
  async markRan(recordId: Types.ObjectId): Promise<void> {
    await this.records.markUnstored(recordId);
  }

  /** Frees the key of a request that failed, so the client can retry it. */
  async release(scope: TenantScope, recordId: Types.ObjectId): Promise<void> {
    await this.records.release(scope, recordId);
  }

  private isAbandoned(record: IdempotencyRecord, now = this.clock.now().getTime()): boolean {
    return record.state === 'in_progress' && now - new Date(record.createdAt).getTime() >= IN_PROGRESS_LEASE_MS;
  }

  private isExpired(record: IdempotencyRecord, now = this.clock.now().getTime()): boolean {
    return now - new Date(record.createdAt).getTime() >= IDEMPOTENCY_KEY_TTL_SECONDS * 1000;
  }
}
