import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import type { FastifyRequest } from 'fastify';
import { AuthenticatedUser } from '../common/decorators/current-user.decorator';
import { IS_PUBLIC } from '../common/decorators/public.decorator';
import { USER_ROLES, UserRole } from '../common/decorators/roles.decorator';

export interface AccessTokenClaims {
  sub: string;
  role: UserRole;
}

type RequestWithUser = FastifyRequest & { user?: AuthenticatedUser };

/**
 * Deny by default: every route needs a valid bearer token unless marked `@Public()`. On a public
 * route a valid token is still read (signup needs to know whether an admin is asking), and an
 * invalid one is ignored.
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly jwt: JwtService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RequestWithUser>();
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    const token = bearerToken(request.headers.authorization);

    if (isPublic) {
      if (token) request.user = (await this.verify(token)) ?? undefined;
      return true;
    }
    if (!token) throw new UnauthorizedException('Missing bearer token: send Authorization: Bearer <accessToken>');
    const user = await this.verify(token);
    if (!user) throw new UnauthorizedException('Invalid or expired token');
    request.user = user;
    return true;
  }

  private async verify(token: string): Promise<AuthenticatedUser | null> {
    try {
      // The algorithm list is pinned in JwtModule's verifyOptions, so `alg: none` and RS/HS confusion fail here.
      const claims = await this.jwt.verifyAsync<AccessTokenClaims>(token);
      if (typeof claims.sub !== 'string' || !USER_ROLES.includes(claims.role)) return null;
      return { id: claims.sub, role: claims.role };
    } catch {
      return null;
    }
  }
}

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
