import { CanActivate, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ROLES, UserRole } from '../common/decorators/roles.decorator';
import { RouteMetadata } from '../common/decorators/route-metadata';
import type { RequestContext } from '../tenancy/principal';

/**
 * `@Roles(...)`: the caller's role in the request's account (set by the tenancy guard, which runs
 * first). The owner counts as admin; an API key acts as admin over its scopes.
 */
@Injectable()
export class RolesGuard implements CanActivate {
  private readonly roles: RouteMetadata<UserRole[]>;

  constructor(reflector: Reflector) {
    this.roles = new RouteMetadata(reflector, ROLES);
  }

  canActivate(context: ExecutionContext): boolean {
    const roles = this.roles.of(context);
    if (!roles?.length) return true;
    const account = context.switchToHttp().getRequest<RequestContext>().account;
    const role: UserRole | undefined = account?.owner ? 'admin' : account?.role;
    if (role && roles.includes(role)) return true;
    throw new ForbiddenException(`This operation needs the role ${roles.join(' or ')}`);
  }
}
