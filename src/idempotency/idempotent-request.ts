import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Types } from 'mongoose';
import type { TenantScope } from '../tenancy/tenant-scope';

/**
 * The `Idempotency-Key` of the request a route is running, as `IdempotencyGuard` read it:
 * set only on routes of a platform project whose request carried a key and is running for the first
 * time (a replay never reaches the route). A route that creates something can store it with what it
 * creates, so that a retry finds it even after the guard's own record is gone.
 */
export interface IdempotentRequest {
  /** `user:<id>` or `key:<id>` (see `callerId`). */
  readonly caller: string;
  readonly key: string;
  /** The request's keyed fingerprint (`requestFingerprint`): another request under the same key differs. */
  readonly fingerprint: string;
}

export interface IdempotentRequestContext {
  idempotency?: IdempotentRequest;
  /** The key's record, opened by the guard and settled by the request's answer (`settleIdempotentResponses`). */
  idempotencyRecord?: { readonly tenant: TenantScope; readonly recordId: Types.ObjectId };
  /** The route took the key (`@Idempotency()`): it keeps it with what it creates, and a run under it again answers that. */
  idempotencyKeptByRoute?: boolean;
}

/** The running request's `IdempotentRequest`, or null when it carried no key. */
export const Idempotency = createParamDecorator(
  (_data: unknown, execution: ExecutionContext): IdempotentRequest | null => {
    const request = execution.switchToHttp().getRequest<IdempotentRequestContext>();
    request.idempotencyKeptByRoute = request.idempotency !== undefined;
    return request.idempotency ?? null;
  },
);
