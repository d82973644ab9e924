import {
  createParamDecorator,
  ExecutionContext,
  ForbiddenException,
  InternalServerErrorException,
} from '@nestjs/common';
import type { AccountAccess, Principal, RequestContext, SessionFacts } from './principal';
import type { TenantScope } from './tenant-scope';

function context(execution: ExecutionContext): RequestContext {
  return execution.switchToHttp().getRequest<RequestContext>();
}

/** The request's tenant scope. A route whose policy's scope is not `project` or `viewer` has none: that is a wiring bug, so 500. */
export const Tenant = createParamDecorator((_data: unknown, execution: ExecutionContext): TenantScope => {
  const tenant = context(execution).tenant;
  if (!tenant) throw new InternalServerErrorException('This route has no tenant scope');
  return tenant;
});

/** The caller's access to the account the request acts in (routes whose policy's scope is `account` or `project`). */
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

/** The request's session, on routes only a session can use (sign out, step-up): 403 for a bearer token. */
export const CurrentSession = createParamDecorator((_data: unknown, execution: ExecutionContext): SessionFacts => {
  const principal = context(execution).principal;
  if (!principal) throw new InternalServerErrorException('This route has no caller');
  if (principal.kind !== 'user' || !principal.session)
    throw new ForbiddenException('This route needs a session: sign in with POST /api/v1/sessions');
  return principal.session;
});

/** The request's session when the cookie authenticated it, else null (a bearer token). */
export const OptionalSession = createParamDecorator(
  (_data: unknown, execution: ExecutionContext): SessionFacts | null => {
    const principal = context(execution).principal;
    return principal?.kind === 'user' ? (principal.session ?? null) : null;
  },
);
