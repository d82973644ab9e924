import { CanActivate, ExecutionContext, ForbiddenException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { Reflector } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { looksLikeApiKey } from '../api-keys/api-key-secret';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { IS_PUBLIC } from '../common/decorators/public.decorator';
import { RouteMetadata } from '../common/decorators/route-metadata';
import type { Principal, RequestContext } from '../tenancy/principal';
import { sessionsConfig } from '../config/sessions.config';
import { SESSION_COOKIE, STEP_UP } from '../sessions/session-cookie';
import { SessionsService } from '../sessions/sessions.service';
import { CredentialsChanges } from '../users/credentials-changes';

/** What an access token carries: the user and the account it acts in (null for a user with none). */
export interface AccessTokenClaims {
  sub: string;
  acc: string | null;
  /** Expiry, in seconds since the epoch (set by JwtService.sign from JWT_EXPIRES_IN). */
  exp?: number;
  /** Issued at, in seconds since the epoch: a token issued before its user's last password change is refused. */
  iat?: number;
}

/** Methods that change nothing: a session cookie needs no Origin check on them. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const ORIGIN_REFUSED = 'A request with the session cookie that changes anything must come from this service or the dashboard (Origin)';

/** Verified access tokens kept at most: a few MB at the worst, for one verification per token and instance. */
const VERIFIED_TOKENS_MAX = 10_000;

export const INVALID_API_KEY = 'Invalid API key';

/**
 * Deny by default: every route needs a valid bearer token unless marked `@Public()`; public routes
 * (login, signup) ignore tokens, an API key included: they neither read nor check one. Who the
 * caller is goes on the request as its principal; where it acts (account, project) is the tenancy
 * guard's question.
 *
 * A bearer token starting with `sk_` or `pk_` is an API key, never a user's access token (a JWT starts
 * with `eyJ`): a live `sk_test_` or `pk_test_` key of this service (one indexed read, no cache) or
 * `401 Invalid API key`.
 *
 * An access token that verified once is remembered, by its exact text, until its `exp`: a signed
 * token cannot change, so its next verification would give the same answer (jsonwebtoken was a
 * noticeable share of a small request's CPU: bench/README.md). What a token grants is still decided on every request: membership,
 * role and project are read each time by the tenancy guard, never from this cache. A token issued
 * before the second of its user's last password change is refused (CredentialsChanges).
 *
 * Without a bearer token, the `sid` session cookie authenticates (one indexed read). A request that
 * changes anything with it must carry an `Origin` of this service or of `DASHBOARD_ORIGINS` (403):
 * SameSite=Lax keeps the cookie off other sites' sub-requests and posts, this keeps off the rest.
 * On `@StepUp()` routes a session must have proven a second factor recently (SessionsService).
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  private readonly isPublic: RouteMetadata<boolean>;
  private readonly stepUp: RouteMetadata<boolean>;

  constructor(
    reflector: Reflector,
    private readonly jwt: JwtService,
    private readonly apiKeys: ApiKeysService,
    private readonly sessions: SessionsService,
    private readonly credentials: CredentialsChanges,
    @Inject(sessionsConfig.KEY) private readonly config: ConfigType<typeof sessionsConfig>,
  ) {
    this.isPublic = new RouteMetadata(reflector, IS_PUBLIC);
    this.stepUp = new RouteMetadata(reflector, STEP_UP);
  }

  // `ttlResolution: 0`: the clock is read at each lookup. lru-cache's default remembers it for 1 ms
  // with a timer, which on a busy instance is one more timer set and fired for nearly every request.
  private readonly verified = new LRUCache<string, { principal: Principal & { kind: 'user' }; iat: number }>({ max: VERIFIED_TOKENS_MAX, ttlResolution: 0 });

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.isPublic.of(context)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & RequestContext>();
    const token = bearerToken(request.headers.authorization);
    if (!token) return this.bySession(context, request);
    if (looksLikeApiKey(token)) {
      const key = await this.apiKeys.authenticate(token);
      if (!key) throw new UnauthorizedException(INVALID_API_KEY);
      request.principal = key;
      return true;
    }
    const verified = await this.verify(token);
    if (!verified) throw new UnauthorizedException('Invalid or expired token');
    if (verified.iat < Math.floor((await this.credentials.changedAt(verified.principal.userId)) / 1000)) {
      throw new UnauthorizedException('This token was issued before the password changed: log in again');
    }
    request.principal = verified.principal;
    return true;
  }

  private async bySession(context: ExecutionContext, request: FastifyRequest & RequestContext): Promise<boolean> {
    const cookie = request.cookies?.[SESSION_COOKIE];
    if (!cookie) throw new UnauthorizedException('Missing bearer token: send Authorization: Bearer <accessToken>, or sign in for a session cookie');
    const session = await this.sessions.authenticate(cookie);
    if (!session) throw new UnauthorizedException('The session has ended: sign in again');
    if (!SAFE_METHODS.has(request.method) && !this.allowedOrigin(request)) throw new ForbiddenException(ORIGIN_REFUSED);
    if (this.stepUp.of(context)) await this.sessions.assertSteppedUp(session);
    request.principal = Object.freeze({ kind: 'user', userId: session.userId, accountId: session.accountId, session });
    return true;
  }

  /** The request's `Origin` is this service's own (as the client addressed it) or one of `DASHBOARD_ORIGINS`. */
  private allowedOrigin(request: FastifyRequest): boolean {
    const origin = request.headers.origin;
    if (typeof origin !== 'string' || origin === 'null') return false;
    const normalised = origin.toLowerCase();
    return normalised === `${request.protocol}://${request.host}`.toLowerCase() || this.config.dashboardOrigins.includes(normalised);
  }

  /**
   * The user whose valid access token this is, else null: for a route that takes a user's token
   * beside another credential (the viewer routes' `X-Viewer-Token`). Checked as the bearer token is.
   */
  async userOfToken(token: string): Promise<string | null> {
    if (looksLikeApiKey(token)) return null;
    const verified = await this.verify(token);
    if (!verified || verified.iat < Math.floor((await this.credentials.changedAt(verified.principal.userId)) / 1000)) return null;
    return verified.principal.userId;
  }

  private async verify(token: string): Promise<{ principal: Principal & { kind: 'user' }; iat: number } | null> {
    const known = this.verified.get(token);
    if (known) return known;
    let claims: AccessTokenClaims;
    try {
      // The algorithm list is pinned in JwtModule's verifyOptions, so `alg: none` and RS/HS confusion fail here.
      claims = await this.jwt.verifyAsync<AccessTokenClaims>(token);
    } catch {
      return null;
    }
    if (typeof claims.sub !== 'string' || !/^[0-9a-f]{24}$/.test(claims.sub)) return null;
    const accountId = typeof claims.acc === 'string' && /^[0-9a-f]{24}$/.test(claims.acc) ? claims.acc : null;
    const principal = Object.freeze({ kind: 'user' as const, userId: claims.sub, accountId });
    const verified = { principal, iat: typeof claims.iat === 'number' ? claims.iat : 0 };
    // Kept no longer than the token is valid (the cache drops an entry at its ttl); a token without an expiry is not kept.
    const ttl = typeof claims.exp === 'number' ? claims.exp * 1000 - Date.now() : 0;
    if (ttl > 0) this.verified.set(token, verified, { ttl });
    return verified;
  }
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
