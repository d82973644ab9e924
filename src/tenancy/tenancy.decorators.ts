import { applyDecorators, createParamDecorator, ExecutionContext, ForbiddenException, InternalServerErrorException, SetMetadata } from '@nestjs/common';
import { ApiHeader, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { API_KEY_SCHEME, PROJECT_HEADER_NAME, PUBLISHABLE_KEY_SCHEME, SESSION_COOKIE_SCHEME, USER_BEARER_SCHEME } from '../common/swagger/security-schemes';
import type { ApiName } from './api-names';
import type { AccountAccess, Principal, RequestContext } from './principal';
import type { TenantScope } from './tenant-scope';
import { OBJECT_ID_PATTERN } from '../common/pipes/object-id';

export const PLATFORM_API = 'platformApi';
export const IN_ACCOUNT = 'inAccount';
export const VIEWER_API = 'viewerApi';

/**
 * The API a route belongs to. Declared next to the route (or on its controller); the tenancy guard
 * reads it to resolve the request's platform project, refuse an API the project has not enabled or
 * a key's scopes leave out, and hand the route its `TenantScope`.
 */
export const PlatformApi = (api: ApiName) => applyDecorators(SetMetadata(PLATFORM_API, api), DocumentPlatformApi(api));

/**
 * What every `@PlatformApi` route shares in the OpenAPI document, stated once here so a route added
 * later is covered: a user's token, session or an API key (alternatives), the optional `X-Project-Id`, and the
 * tenancy guard's 403 and 404. A route's own 403 or 404 replaces these (its description wins).
 */
function DocumentPlatformApi(api: ApiName) {
  const error = (status: number, message: string) => ({ statusCode: status, error: status === 403 ? 'Forbidden' : 'Not Found', message });
  return applyDecorators(
    ApiSecurity(USER_BEARER_SCHEME),
    ApiSecurity(SESSION_COOKIE_SCHEME),
    ApiSecurity(API_KEY_SCHEME),
    ApiHeader({
      name: PROJECT_HEADER_NAME,
      required: false,
      description:
        "The platform project of the token's account to act in; default: the account's default project; an API key acts only in its own. " +
        'A project of another account, or an unknown id: 404.',
      // No example: the Swagger UI would send it with "Try it out" and act in a project that does not exist.
      schema: { type: 'string', pattern: OBJECT_ID_PATTERN },
    }),
    ApiResponse({
      status: 403,
      description: `The project has not enabled the ${api} API, or the API key's scopes leave it out`,
      type: ErrorResponseDto,
      example: error(403, `The ${api} API is not enabled for this project`),
    }),
    ApiResponse({
      status: 404,
      description: 'No such resource in the project, or X-Project-Id names no platform project of the account',
      type: ErrorResponseDto,
      example: error(404, 'Platform project not found'),
    }),
    ApiResponse({
      status: 429,
      description:
        'Over the rate limit: `RATE_LIMIT_PER_SECOND` (25) requests a second per API key, and per user in each platform project, on each ' +
        'instance. Every data answer carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-09).',
      type: ErrorResponseDto,
      headers: {
        'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer', minimum: 1 } },
        RateLimit: { description: 'The policy, the requests left and the seconds to the reset: `"data-api";r=0;t=1`', schema: { type: 'string' } },
        'RateLimit-Policy': { description: 'The quota and its window in seconds: `"data-api";q=25;w=1`', schema: { type: 'string' } },
      },
      example: { statusCode: 429, error: 'Too Many Requests', message: 'Rate limit exceeded: at most 25 requests a second for this API key; retry after 1 second' },
    }),
  );
}

/**
 * A read-only route for viewers of the API's content (`/viewer/...`): a publishable key
 * (`pk_test_...`) of the platform project only, which is its tenant scope; a user's token or a
 * secret key is 403 here, and a publishable key is 403 everywhere else. The API must be enabled in
 * the key's project.
 */
export const ViewerApi = (api: ApiName) =>
  applyDecorators(
    SetMetadata(VIEWER_API, api),
    ApiSecurity(PUBLISHABLE_KEY_SCHEME),
    ApiResponse({
      status: 403,
      description: `Not a publishable key, or the project has not enabled the ${api} API`,
      type: ErrorResponseDto,
      example: { statusCode: 403, error: 'Forbidden', message: 'The viewer routes take a publishable key (pk_test_...)' },
    }),
  );

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
