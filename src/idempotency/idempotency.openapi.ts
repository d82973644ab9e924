import type { OpenAPIObject } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENT_REPLAYED_HEADER } from './request-fingerprint';

type Operation = Record<string, any>;

const KEY_DESCRIPTION =
  'Makes a retry safe. A retry with the same key and the same body (within 24 hours, by the same caller, in the same ' +
  'platform project, on the same path) ' +
  'returns the first response again, with the same status and `Idempotent-Replayed: true`, and changes nothing; ' +
  'the same key with a different body is 422; a retry while the first request is still running is 409 (retry it shortly). ' +
  'Failed requests are not stored: retrying one with the same key runs it again. Routes that manage the platform itself ' +
  '(accounts, members, invitations, platform projects, API keys) act in no project: there the key is checked but not stored.';

const PUBLIC_KEY_DESCRIPTION =
  'Accepted for uniformity (1 to 255 characters, else 400), but anonymous requests are not stored or replayed: ' +
  'a replayed login would hand out an old token, and a repeated signup is already refused with 409.';

function isPublic(operation: Operation): boolean {
  return (
    Array.isArray(operation.security) &&
    operation.security.some((requirement: object) => Object.keys(requirement).length === 0)
  );
}

/**
 * Documents `Idempotency-Key` on every POST operation, the `Idempotent-Replayed` header of its
 * success responses, and the 409 and 422 answers it can cause on authenticated routes.
 */
export function documentIdempotency(document: OpenAPIObject): OpenAPIObject {
  const hasErrorSchema = Boolean(document.components?.schemas?.ErrorResponseDto);
  for (const item of Object.values(document.paths ?? {})) {
    const operation = (item as Record<string, Operation>).post;
    if (!operation) continue;
    const anonymous = isPublic(operation);
    operation.parameters = [
      ...(operation.parameters ?? []).filter(
        (parameter: Operation) => !(parameter.in === 'header' && /^idempotency-key$/i.test(parameter.name)),
      ),
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: anonymous ? PUBLIC_KEY_DESCRIPTION : KEY_DESCRIPTION,
        schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[\\x20-\\x7E]+$' },
        example: '3f1c2b7e-5a7d-4d2e-9a41-0d7c6f1e8b90',
      },
    ];
    if (anonymous) continue;
    const responses = (operation.responses ??= {}) as Record<string, Operation>;
    for (const [status, response] of Object.entries(responses)) {
      if (!/^2\d\d$/.test(status) || '$ref' in response) continue;
      response.headers = {
        ...(response.headers ?? {}),
        [IDEMPOTENT_REPLAYED_HEADER]: {
          description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key',
          schema: { type: 'string', enum: ['true'] },
        },
      };
    }
    if (hasErrorSchema) {
      const error = { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponseDto' } } } };
      responses['409'] ??= {
        description: 'A request with this Idempotency-Key is still running (retry shortly)',
        ...error,
      };
      responses['422'] ??= { description: 'Idempotency-Key reused with a different request body', ...error };
    }
  }
  return document;
}
