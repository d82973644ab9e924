import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { growingLru } from '../../common/cache/growing-lru';
import type { Principal } from '../../tenancy/principal';
import type { AccessTokenClaims } from './access-token';

/** Verified access tokens kept at most: a few MB at the worst, for one verification per token and instance. */
const VERIFIED_TOKENS_MAX = 10_000;

/** A token whose signature verified: who, and what its login proved when. */
export interface VerifiedToken {
  principal: Principal & { kind: 'user' };
  /** Milliseconds since the epoch. */
  issuedAt: number;
  /** The credentials version the login read (`cav`); undefined in tokens from before it was carried. */
  credentialsAt: number | undefined;
  assurance: 'password' | 'mfa';
}

/**
 * Users' access tokens (HS256): signed for a login (src/auth) and verified for the access guard's
 * authentication (src/access/authentication.ts). What a token still grants (its user's credentials
 * since it was issued) is the guard's question, never answered here.
 *
 * A token that verified once is remembered, by its exact text, until its `exp`: a signed token
 * cannot change, so its next verification would give the same answer (jsonwebtoken was a
 * noticeable share of a small request's CPU: bench/README.md).
 */
@Injectable()
export class AccessTokens {
  constructor(private readonly jwt: JwtService) {}

  // `ttlResolution: 0`: the clock is read at each lookup. lru-cache's default remembers it for 1 ms
  // with a timer, which on a busy instance is one more timer set and fired for nearly every request.
  private readonly verified = growingLru<string, VerifiedToken>(VERIFIED_TOKENS_MAX, { ttlResolution: 0 });

  /** A signed token of these claims, expiring after `JWT_EXPIRES_IN`. */
  issue(claims: AccessTokenClaims): Promise<string> {
    return this.jwt.signAsync(claims);
  }

  /** What a token says, when its signature and expiry verify; null otherwise. */
  async verify(token: string): Promise<VerifiedToken | null> {
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
    const issuedAt =
      typeof claims.ims === 'number' ? claims.ims : typeof claims.iat === 'number' ? claims.iat * 1000 : 0;
    const credentialsAt = typeof claims.cav === 'number' ? claims.cav : undefined;
    const verified: VerifiedToken = {
      principal,
      issuedAt,
      credentialsAt,
      assurance: claims.asr === 'mfa' ? 'mfa' : 'password',
    };
    // Kept no longer than the token is valid (the cache drops an entry at its ttl); a token without an expiry is not kept.
    const ttl = typeof claims.exp === 'number' ? claims.exp * 1000 - Date.now() : 0;
    if (ttl > 0) this.verified.set(token, verified, { ttl });
    return verified;
  }
}
