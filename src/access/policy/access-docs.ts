import { ApiHeader, ApiResponse, type ApiResponseOptions } from '@nestjs/swagger';
import { ErrorResponseDto } from '../../common/dto/error-response.dto';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';
import { PROJECT_HEADER_NAME } from '../../common/swagger/security-schemes';
import type { ApiName } from '../../tenancy/api-names';

/** Where Nest's Swagger module keeps a handler's responses, by status. */
const RESPONSES_METADATA = 'swagger/apiResponse';

const error = (status: number, message: string) => ({
  statusCode: status,
  error: status === 403 ? 'Forbidden' : 'Not Found',
  message,
});

/**
 * What every `project` route shares in the OpenAPI document, stated once here so a route added later
 * is covered: the optional `X-Project-Id`, and the tenancy's 403 and 404, and the rate limit's 429.
 */
function projectResponses(api: ApiName): ApiResponseOptions[] {
  return [
    {
      status: 403,
      description: `The project has not enabled the ${api} API, or the API key's scopes leave it out`,
      type: ErrorResponseDto,
      example: error(403, `The ${api} API is not enabled for this project`),
    },
    {
      status: 404,
      description: 'No such resource in the project, or X-Project-Id names no platform project of the account',
      type: ErrorResponseDto,
      example: error(404, 'Platform project not found'),
    },
    {
      status: 429,
      description:
        'Over the rate limit: `RATE_LIMIT_PER_SECOND` (25) requests a second per API key, and per user in each platform project, on each ' +
        'instance. Every data answer carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-09).',
      type: ErrorResponseDto,
      headers: {
        'Retry-After': { description: 'Seconds until the window resets', schema: { type: 'integer', minimum: 1 } },
        RateLimit: {
          description: 'The policy, the requests left and the seconds to the reset: `"data-api";r=0;t=1`',
          schema: { type: 'string' },
        },
        'RateLimit-Policy': {
          description: 'The quota and its window in seconds: `"data-api";q=25;w=1`',
          schema: { type: 'string' },
        },
      },
      example: {
        statusCode: 429,
        error: 'Too Many Requests',
        message: 'Rate limit exceeded: at most 25 requests a second for this API key; retry after 1 second',
      },
    },
  ];
}

function viewerResponses(api: ApiName): ApiResponseOptions[] {
  return [
    {
      status: 403,
      description: `Not a publishable key, or the project has not enabled the ${api} API`,
      type: ErrorResponseDto,
      example: {
        statusCode: 403,
        error: 'Forbidden',
        message: 'The viewer routes take a publishable key (pk_test_...)',
      },
    },
  ];
}

/**
 * The shared answers in the OpenAPI document of a policy's scope and API (`@Access()` passes them, so
 * this file knows nothing of the policy's type). A route's own description of a status wins: this
 * runs after the route's other decorators (`@Access()` is written first) and adds only the statuses
 * they left out.
 */
export function documentPolicy(
  scope: string,
  api: ApiName | undefined,
  descriptor: PropertyDescriptor,
  target: object,
  key: string | symbol,
): void {
  if (!api || (scope !== 'project' && scope !== 'viewer')) return;
  const own = (Reflect.getMetadata(RESPONSES_METADATA, descriptor.value as object) ?? {}) as Record<string, unknown>;
  const shared = scope === 'project' ? projectResponses(api) : viewerResponses(api);
  for (const response of shared) {
    if (!(String(response.status) in own)) ApiResponse(response)(target, key, descriptor);
  }
  if (scope === 'project') {
    ApiHeader({
      name: PROJECT_HEADER_NAME,
      required: false,
      description:
        "The platform project of the token's account to act in; default: the account's default project; an API key acts only in its own. " +
        'A project of another account, or an unknown id: 404.',
      // No example: the Swagger UI would send it with "Try it out" and act in a project that does not exist.
      schema: { type: 'string', pattern: OBJECT_ID_PATTERN },
    })(target, key, descriptor);
  }
}
