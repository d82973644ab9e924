import { clientOf } from '../common/http/client-address';
import { CanActivate, ExecutionContext, HttpException, HttpStatus, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestContext } from '../tenancy/principal';
import { RateLimiter, type RateLimitState, VIEWERS_KEY_PREFIX } from './rate-limiter';

/** The name of the one policy, as the RateLimit headers carry it. */
export const POLICY = 'data-api';

/**
 * Limits the data API: each API key, and each user in each platform project, gets
 * `RATE_LIMIT_PER_SECOND` requests a second. A publishable key is shipped in an app that many
 * clients run: each client address gets `RATE_LIMIT_PER_SECOND`, and all of them together
 * `VIEWER_RATE_LIMIT_PER_SECOND`, so one client's flood is refused alone (its refused requests are
 * not counted against the app's other viewers). Asked by the access guard after the tenancy, on routes that have a
 * tenant scope; every answer carries the IETF `RateLimit-Policy` and `RateLimit` headers
 * (draft-ietf-httpapi-ratelimit-headers-09), and a refusal is 429 with `Retry-After`.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest & RequestContext>();
    const principal = request.principal;
    if (!request.tenant || !principal || !this.limiter.enabled) return true;
    let state: RateLimitState | null;
    let who: string;
    if (principal.kind === 'apiKey' && principal.publishable) {
      state = await this.limiter.count(request, `viewer:${principal.keyId}:${clientOf(request.ip)}`);
      who = 'this client of this key';
      const together = state?.exceeded
        ? null
        : await this.limiter.count(request, `${VIEWERS_KEY_PREFIX}${principal.keyId}`);
      if (together?.exceeded) [state, who] = [together, "this key's viewers together"];
    } else {
      state = await this.limiter.count(
        request,
        principal.kind === 'apiKey' ? `key:${principal.keyId}` : `user:${principal.userId}:${request.tenant.projectId}`,
      );
      who = principal.kind === 'apiKey' ? 'this API key' : 'you in this platform project';
    }
    if (!state) return true;
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    reply.header('RateLimit-Policy', `"${POLICY}";q=${state.limit};w=${state.windowSeconds}`);
    reply.header('RateLimit', `"${POLICY}";r=${state.remaining};t=${state.resetSeconds}`);
    if (!state.exceeded) return true;
    reply.header('Retry-After', String(state.resetSeconds));
    throw new HttpException(
      `Rate limit exceeded: at most ${state.limit} requests a second for ${who}; retry after ${state.resetSeconds} second${state.resetSeconds === 1 ? '' : 's'}`,
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}
