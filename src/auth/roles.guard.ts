import { CanActivate, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ROLES, UserRole } from '../common/decorators/roles.decorator';
import type { RequestContext } from '../tenancy/principal';

/**
 * `@Roles(...)`: the caller's role in the request's account (set by the tenancy guard, which runs
 * first). The owner counts as admin; an API key acts as admin over its scopes.
 */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const roles = this.reflector.getAllAndOverride<UserRole[] | undefined>(ROLES, [context.getHandler(), context.getClass()]);
    if (!roles?.length) return true;
    const account = context.switchToHttp().getRequest<RequestContext>().account;
    const role: UserRole | undefined = account?.owner ? 'admin' : account?.role;
    if (role && roles.includes(role)) return true;
    throw new ForbiddenException(`This operation needs the role ${roles.join(' or ')}`);
  }
}
