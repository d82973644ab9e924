import { createParamDecorator, ExecutionContext, InternalServerErrorException, SetMetadata } from '@nestjs/common';
import type { ApiName } from './api-names';
import type { AccountAccess, Principal, RequestContext } from './principal';
import type { TenantScope } from './tenant-scope';

export const PLATFORM_API = 'platformApi';
export const IN_ACCOUNT = 'inAccount';
export const USER_ONLY = 'userOnly';

/**
 * The API a route belongs to. Declared next to the route (or on its controller); the tenancy guard
 * reads it to resolve the request's platform project, refuse an API the project has not enabled or
 * a key's scopes leave out, and hand the route its `TenantScope`.
 */
export const PlatformApi = (api: ApiName) => SetMetadata(PLATFORM_API, api);

/** The route acts inside the token's account (no project): membership is checked, `@Account()` is set. */
export const InAccount = () => SetMetadata(IN_ACCOUNT, true);

/** The route manages the platform or the user: an API key gets 403. */
export const UserOnly = () => SetMetadata(USER_ONLY, true);

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
