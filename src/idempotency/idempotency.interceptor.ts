import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, from, mergeMap, Observable, of, throwError } from 'rxjs';
import type { FinanceConfig } from '../config/finance.config';
import type { RequestContext } from '../tenancy/principal';
import { IS_PUBLIC } from '../common/decorators/public.decorator';
import { IdempotencyStore } from './idempotency.store';
import type { IdempotentRequestContext } from './idempotent-request';
import { callerId, idempotencyScope, IDEMPOTENT_REPLAYED_HEADER, readIdempotencyKey, requestFingerprint } from './request-fingerprint';

/**
 * `Idempotency-Key` on POST requests. The first request with a key runs and its answer is stored;
 * a retry with the same key and the same request gets that answer again (same status, same body,
 * `Idempotent-Replayed: true`) and runs nothing; the same key with another request is 422; a retry
 * while the first still runs is 409.
 *
 * - Keys are scoped to the platform project the request acts in (`request.tenant`, set by the
 *   tenancy guard), the caller (`request.principal`: a user or an API key) and the route, and live
 *   24 hours. The same key in two projects, or from two callers, is two keys.
 * - Routes that act in no platform project (the platform's own management routes) check the
 *   header's form but do not store: their records would belong to no tenant.
 * - A request that fails (any error status) stores nothing: its key is released and a retry runs again.
 * - A record left in progress for 5 minutes (its server stopped mid-request) no longer blocks its key.
 *   The request then runs again: a route whose effect must not happen twice keeps the key with what
 *   it creates (`IdempotentRequest`; payments do) and answers the earlier result instead.
 * - Anonymous routes (login, signup) check the header's form but do not store: replaying a login
 *   would hand out an old token, and a repeated signup is already a 409.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger(IdempotencyInterceptor.name);
  /** Key of the request fingerprints (an HMAC, so stored fingerprints reveal nothing of the bodies). */
  private readonly fingerprintKey: string;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly reflector: Reflector,
    config: ConfigService,
  ) {
    this.fingerprintKey = config.getOrThrow<FinanceConfig>('finance').idempotencyFingerprintKey;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & RequestContext & IdempotentRequestContext>();
    if (request.method !== 'POST') return next.handle();
    const key = readIdempotencyKey(request.headers);
    if (key === undefined) return next.handle();
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    const { tenant, principal } = request;
    if (isPublic || !tenant || !principal) return next.handle();

    const reply = http.getResponse<FastifyReply>();
    const caller = callerId(principal);
    const callerRoute = idempotencyScope(caller, request.method, request.url);
    const fingerprint = requestFingerprint(this.fingerprintKey, request.method, request.url, request.body);

    return from(this.store.begin(tenant, callerRoute, key, fingerprint)).pipe(
      mergeMap((start) => {
        if (start.kind === 'replay') {
          reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
          reply.status(start.statusCode);
          return of(start.body);
        }
        // For routes that keep the key with what they create (payments): see IdempotentRequest.
        request.idempotency = { caller, key, fingerprint };
        return next.handle().pipe(
          catchError((error: unknown) =>
            from(this.store.release(tenant, start.recordId)).pipe(
              catchError((failure: Error) => {
                this.logger.warn(`Releasing an idempotency key failed: ${failure.message}`);
                return of(undefined);
              }),
              mergeMap(() => throwError(() => error)),
            ),
          ),
          // Nest set the route's status (its @HttpCode, else 201 for POST) before the handler ran.
          mergeMap((body) =>
            from(
              this.store.complete(start.recordId, reply.statusCode, body).catch((failure: Error) => {
                // The work is done: answer it. Retries of this key get 409 until the key expires.
                this.logger.error(`Storing an idempotent response failed: ${failure.message}`);
              }),
            ).pipe(mergeMap(() => of(body))),
          ),
        );
      }),
    );
  }
}
