import { createParamDecorator, ExecutionContext, ForbiddenException, InternalServerErrorException, SetMetadata } from '@nestjs/common';
import type { ApiName } from './api-names';
import type { AccountAccess, Principal, RequestContext } from './principal';
import type { TenantScope } from './tenant-scope';

export const PLATFORM_API = 'platformApi';
export const IN_ACCOUNT = 'inAccount';

/**
 * The API a route belongs to. Declared next to the route (or on its controller); the tenancy guard
 * reads it to resolve the request's platform project, refuse an API the project has not enabled or
 * a key's scopes leave out, and hand the route its `TenantScope`.
 */
export const PlatformApi = (api: ApiName) => SetMetadata(PLATFORM_API, api);

/**
 * The route acts inside the token's account, in no project (platform projects, API keys):
 * membership is checked on every request and `@Account()` is set. API keys reach only `@PlatformApi`
 * routes; every other authenticated route answers them 403.
 */
export const InAccount = () => SetMetadata(IN_ACCOUNT, true);

function context(execution: ExecutionContext): RequestContext {
  return execution.switchToHttp().getRequest<RequestContext>();
}

/** The request's tenant scope. A route without `@PlatformApi` has none: that is a wiring bug, so 500. */
export const Tenant = createParamDecorator((_data: unknown, execution: ExecutionContext): TenantScope => {
  const tenant = context(execution).tenant;
  if (!tenant) throw new InternalServerErrorException('This route has no tenant scope');
  return tenant;
});

/** The caller's access to the account the request acts in (`@InAccount` or `@PlatformApi` routes). */
export const Account = createParamDecorator((_data: unknown, execution: ExecutionContext): AccountAccess => {
  const account = context(execution).account;
  if (!account) throw new InternalServerErrorException('This route has no account');
  return account;
});

/** Who is calling. */
export const Caller = createParamDecorator((_data: unknown, execution: ExecutionContext): Principal => {
  const principal = context(execution).principal;
  if (!principal) throw new InternalServerErrorException('This route has no caller');
  return principal;
});

/** The calling user's id. Routes that take it are the user's own: an API key never reaches them (403). */
export const UserId = createParamDecorator((_data: unknown, execution: ExecutionContext): string => {
  const principal = context(execution).principal;
  if (!principal) throw new InternalServerErrorException('This route has no caller');
  if (principal.kind !== 'user') throw new ForbiddenException('API keys cannot manage the platform');
  return principal.userId;
});
