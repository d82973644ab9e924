import { Injectable, Logger, OnModuleDestroy, OnModuleInit, UnprocessableEntityException } from '@nestjs/common';
import type { Types } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import type { IdempotentRequest } from '../idempotency/idempotent-request';
import { IDEMPOTENCY_KEY_TTL_SECONDS, KEY_REUSED_MESSAGE } from '../idempotency/request-fingerprint';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { PaymentKey } from './payment-key.schema';
import { PaymentKeysRepository } from './payment-keys.repository';

/** Rounds of "insert, else read" before giving up on a key that keeps expiring under us. */
const MAX_ATTEMPTS = 5;

/**
 * The payments' own record of their `Idempotency-Key`s. `IdempotencyGuard` already
 * replays a finished request and refuses one still running; but it drops a record left in progress
 * for 5 minutes (its server stopped), and the request then runs again. This is what stops that run
 * from creating a second payment: a key, in a project and for a caller, stands for one payment id,
 * by a unique index (atomic on MongoDB and FerretDB alike), and that id can be created only once.
 */
@Injectable()
export class PaymentKeys implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(PaymentKeys.name);
  private stopExpiry: () => void = () => undefined;

  constructor(private readonly keys: PaymentKeysRepository) {}

  async onModuleInit(): Promise<void> {
    this.stopExpiry = await this.keys.expireByAge(IDEMPOTENCY_KEY_TTL_SECONDS, this.logger);
  }

  onModuleDestroy(): void {
    this.stopExpiry();
  }

  /**
   * The payment id an earlier request under this key stands for, or null when the key is unused (or
   * past its 24 hours). The same key with another request is 422.
   */
  async find(scope: TenantScope, request: IdempotentRequest): Promise<Types.ObjectId | null> {
    const existing = await this.keys.find(scope, keyId(scope, request));
    if (!existing || isExpired(existing)) return null;
    return checked(existing, request).paymentId;
  }

  /**
   * Claims the key for `candidate` (a fresh payment id) and returns the id the key stands for: the
   * candidate when this request is the first, else the earlier request's payment id (which may not
   * exist yet, if that request stopped before creating it: the caller then creates it under that id).
   */
  async reserve(scope: TenantScope, request: IdempotentRequest, candidate: Types.ObjectId): Promise<Types.ObjectId> {
    const _id = keyId(scope, request);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        await this.keys.insert(scope, { _id, paymentId: candidate, fingerprint: request.fingerprint });
        return candidate;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const existing = await this.keys.find(scope, _id);
      if (!existing) continue;
      if (isExpired(existing)) {
        await this.keys.deleteExpired(scope, existing);
        continue;
      }
      return checked(existing, request).paymentId;
    }
    throw new Error(`Could not claim the payment key ${_id}`);
  }
}

function keyId(scope: TenantScope, request: IdempotentRequest): string {
  return `${scope.projectId}:${request.caller}:${request.key}`;
}

function isExpired(key: PaymentKey, now = Date.now()): boolean {
  return now - new Date(key.createdAt).getTime() >= IDEMPOTENCY_KEY_TTL_SECONDS * 1000;
}

function checked(key: PaymentKey, request: IdempotentRequest): PaymentKey {
  if (key.fingerprint !== request.fingerprint) throw new UnprocessableEntityException(KEY_REUSED_MESSAGE);
  return key;
}
