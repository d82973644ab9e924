import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import type { FastifyRequest } from 'fastify';
import { ANY_API_KEY_PREFIX } from '../api-keys/api-key-secret';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { IS_PUBLIC } from '../common/decorators/public.decorator';
import type { Principal, RequestContext } from '../tenancy/principal';

/** What an access token carries: the user and the account it acts in (null for a user with none). */
export interface AccessTokenClaims {
  sub: string;
  acc: string | null;
}

export const INVALID_API_KEY = 'Invalid API key';

/**
 * Deny by default: every route needs a valid bearer token unless marked `@Public()`; public routes
 * (login, signup) ignore tokens, an API key included: they neither read nor check one. Who the
 * caller is goes on the request as its principal; where it acts (account, project) is the tenancy
 * guard's question.
 *
 * A bearer token starting with `sk_` is an API key, never a user's access token (a JWT starts with
 * `eyJ`): a live `sk_test_` key of this service (one indexed read, no cache) or `401 Invalid API key`.
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly jwt: JwtService,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & RequestContext>();
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new UnauthorizedException('Missing bearer token: send Authorization: Bearer <accessToken>');
    if (token.startsWith(ANY_API_KEY_PREFIX)) {
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

  private async verify(token: string): Promise<Principal | null> {
    try {
      // The algorithm list is pinned in JwtModule's verifyOptions, so `alg: none` and RS/HS confusion fail here.
      const claims = await this.jwt.verifyAsync<AccessTokenClaims>(token);
      if (typeof claims.sub !== 'string' || !/^[0-9a-f]{24}$/.test(claims.sub)) return null;
      const accountId = typeof claims.acc === 'string' && /^[0-9a-f]{24}$/.test(claims.acc) ? claims.acc : null;
      return { kind: 'user', userId: claims.sub, accountId };
    } catch {
      return null;
    }
  }
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
