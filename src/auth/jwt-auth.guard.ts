import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { looksLikeApiKey } from '../api-keys/api-key-secret';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { IS_PUBLIC } from '../common/decorators/public.decorator';
import { RouteMetadata } from '../common/decorators/route-metadata';
import type { Principal, RequestContext } from '../tenancy/principal';

/** What an access token carries: the user and the account it acts in (null for a user with none). */
export interface AccessTokenClaims {
  sub: string;
  acc: string | null;
  /** Expiry, in seconds since the epoch (set by JwtService.sign from JWT_EXPIRES_IN). */
  exp?: number;
}

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
 * role and project are read each time by the tenancy guard, never from this cache.
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  private readonly isPublic: RouteMetadata<boolean>;

  constructor(
    reflector: Reflector,
    private readonly jwt: JwtService,
    private readonly apiKeys: ApiKeysService,
  ) {
    this.isPublic = new RouteMetadata(reflector, IS_PUBLIC);
  }

  // `ttlResolution: 0`: the clock is read at each lookup. lru-cache's default remembers it for 1 ms
  // with a timer, which on a busy instance is one more timer set and fired for nearly every request.
  private readonly verified = new LRUCache<string, Principal>({ max: VERIFIED_TOKENS_MAX, ttlResolution: 0 });

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.isPublic.of(context)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & RequestContext>();
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new UnauthorizedException('Missing bearer token: send Authorization: Bearer <accessToken>');
    if (looksLikeApiKey(token)) {
      const key = await this.apiKeys.authenticate(token);
      if (!key) throw new UnauthorizedException(INVALID_API_KEY);
      request.principal = key;
      return true;
    }
    const principal = await this.verify(token);
    if (!principal) throw new UnauthorizedException('Invalid or expired token');
    request.principal = principal;
    return true;
  }

  /**
   * The user whose valid access token this is, else null: for a route that takes a user's token
   * beside another credential (the viewer routes' `X-Viewer-Token`). Checked as the bearer token is.
   */
  async userOfToken(token: string): Promise<string | null> {
    if (looksLikeApiKey(token)) return null;
    const principal = await this.verify(token);
    return principal?.kind === 'user' ? principal.userId : null;
  }

  private async verify(token: string): Promise<Principal | null> {
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
    const principal: Principal = Object.freeze({ kind: 'user', userId: claims.sub, accountId });
    // Kept no longer than the token is valid (the cache drops an entry at its ttl); a token without an expiry is not kept.
    const ttl = typeof claims.exp === 'number' ? claims.exp * 1000 - Date.now() : 0;
    if (ttl > 0) this.verified.set(token, principal, { ttl });
    return principal;
  }
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
