import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { STATUS_CODES } from 'node:http';
import { ErrorResponseDto } from '../dto/error-response.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: validation failure, malformed id or malformed JSON',
  401: 'Missing, malformed, expired or otherwise invalid bearer token',
  403: 'The caller lacks the role this operation needs',
  404: 'No such resource',
  409: 'Conflict with the current state (duplicate, or a request with this key still running)',
  413: 'Request body over the size limit',
  415: 'Request body is not application/json',
  416: 'The `Range` asked for is outside the file; `Content-Range` gives its size (`bytes */4096`)',
  422: 'Idempotency-Key reused with a different request body',
  429: 'Too many attempts from this client: wait `Retry-After` seconds',
  500: 'Unexpected server error (no internals are disclosed)',
  503: 'Database unavailable',
};

const EXAMPLE_MESSAGES: Record<number, string> = {
  400: 'Validation failed: email must be an email',
  401: 'Missing bearer token: send Authorization: Bearer <accessToken>',
  403: 'This operation needs the role admin',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'Request body is too large',
  415: 'Unsupported content type: send the body as application/json',
  416: "The range is outside the file's 4096 bytes",
  422: 'Idempotency-Key was already used with a different request body',
  429: 'Too many signups from this client. Try again in 3540 seconds',
  500: 'Internal server error',
  503: 'Database unavailable, try again shortly',
};

function example(status: number) {
  const body = {
    statusCode: status,
    error: STATUS_CODES[status] ?? 'Error',
    message: EXAMPLE_MESSAGES[status] ?? 'Error',
  };
  return status === 400 ? { ...body, errors: [{ field: 'email', messages: ['email must be an email'] }] } : body;
}

/** Documents the error statuses of a route with the shared error body and a fitting example. */
export function ApiErrorResponses(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error',
        type: ErrorResponseDto,
        example: example(status),
        ...(status === 429
          ? {
              headers: {
                'Retry-After': {
                  description: 'Seconds until an attempt is admitted again',
                  schema: { type: 'integer', minimum: 1 },
                },
              },
            }
          : {}),
        ...(status === 416
          ? {
              headers: {
                'Content-Range': {
                  description: 'The size of the file: `bytes */4096`',
                  schema: { type: 'string', pattern: '^bytes \\*/[0-9]+$', maxLength: 100 },
                },
              },
            }
          : {}),
      }),
    ),
  );
}
