import { ACCESS, type AccessPolicy } from '../access/policy/access-policy';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { FinanceConfig } from '../config/finance.config';
import type { RequestContext } from '../tenancy/principal';
import { RouteMetadata } from '../common/decorators/route-metadata';
import { IdempotencyStore } from './idempotency.store';
import { IdempotentReplay } from './idempotent-replay';
import type { IdempotentRequestContext } from './idempotent-request';
import { callerId, idempotencyScope, readIdempotencyKey, requestFingerprint } from './request-fingerprint';

/**
 * `Idempotency-Key` on POST requests. The first request with a key runs and its answer is stored;
 * a retry with the same key and the same request gets that answer again (same status, same body,
 * `Idempotent-Replayed: true`) and runs nothing; the same key with another request is 422; a retry
 * while the first still runs is 409.
 *
 * - Keys are scoped to the platform project the request acts in (`request.tenant`, set by the
 *   tenancy guard, which runs before this one), the caller (`request.principal`: a user or an API
 *   key) and the route, and live 24 hours. The same key in two projects, or from two callers, is two keys.
 * - Routes that act in no platform project (the platform's own management routes) check the
 *   header's form but do not store: their records would belong to no tenant.
 * - The request's own answer settles its record (`settleIdempotentResponses`): a success is stored
 *   for its retries; a 4xx, the route's own or a later pipe's, releases the key, so a retry runs
 *   again; a 5xx keeps it in progress, since a write whose answer was lost may have happened.
 * - A record left in progress for 5 minutes (its server stopped mid-request) no longer blocks its key.
 *   The request then runs again: a route whose effect must not happen twice keeps the key with what
 *   it creates (`IdempotentRequest`; payments do) and answers the earlier result instead.
 * - Anonymous routes (login, signup) check the header's form but do not store: replaying a login
 *   would hand out an old token, and a repeated signup is already a 409.
 *
 * A guard with a response hook rather than an interceptor: an interceptor puts every POST through
 * Nest's rxjs pipeline, with or without a key; a request without a key costs this guard one header
 * read. It is bound to each POST route by `@Idempotent()`.
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  /** Key of the request fingerprints (an HMAC, so stored fingerprints reveal nothing of the bodies). */
  private readonly fingerprintKey: string;
  private readonly policies: RouteMetadata<AccessPolicy>;

  constructor(
    private readonly store: IdempotencyStore,
    reflector: Reflector,
    config: ConfigService,
  ) {
    this.policies = new RouteMetadata(reflector, ACCESS);
    this.fingerprintKey = config.getOrThrow<FinanceConfig>('finance').idempotencyFingerprintKey;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & RequestContext & IdempotentRequestContext>();
    if (request.method !== 'POST') return true;
    const key = readIdempotencyKey(request.headers);
    if (key === undefined) return true;
    if (this.policies.of(context)?.scope === 'none' || !request.tenant || !request.principal) return true;
    return this.begin(request, key);
  }

  private async begin(
    request: FastifyRequest & RequestContext & IdempotentRequestContext,
    key: string,
  ): Promise<boolean> {
    const tenant = request.tenant!;
    const caller = callerId(request.principal!);
    const fingerprint = requestFingerprint(this.fingerprintKey, request.method, request.url, request.body);
    const start = await this.store.begin(
      tenant,
      idempotencyScope(caller, request.method, request.url),
      key,
      fingerprint,
    );
    if (start.kind === 'replay') throw new IdempotentReplay(start.statusCode, start.body);
    // For routes that keep the key with what they create (payments): see IdempotentRequest.
    request.idempotency = { caller, key, fingerprint };
    request.idempotencyRecord = { tenant, recordId: start.recordId };
    return true;
  }
}
