import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { documentIdempotency } from './idempotency/idempotency.openapi';
import { applyServiceWideRules, stateNullables } from './common/swagger/openapi-post-process';
import {
  linkCreatesToRecords,
  linkNamedRecords,
  linkProjectsToDataApis,
  type NamedRecords,
  type ProjectSource,
} from './common/swagger/openapi-links';
import {
  API_KEY_SCHEME,
  PUBLISHABLE_KEY_SCHEME,
  SESSION_COOKIE_SCHEME,
  USER_BEARER_SCHEME,
} from './common/swagger/security-schemes';

/** Object keys sorted, so the document is a stable artifact that diffs cleanly. */
function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    ) as T;
  }
  return value;
}

/** The answers that name the project where the caller acts without X-Project-Id: the account's default one. */
const PROJECT_SOURCES: ProjectSource[] = [
  { operationId: 'getCurrentUser', status: '200', pointer: '/data/account/defaultProjectId' },
];

/**
 * Clients and a client's channels name content projects by `projectIds`: their lists link the first
 * record's first one, so a caller goes from a client to its content without a channel id in hand.
 * Not to the delete: the project is every record's that names it.
 */
const NAMED_RECORDS: NamedRecords[] = [
  {
    sources: ['listClients', 'listClientChannels'],
    status: '200',
    pointer: '/0/projectIds/0',
    parameter: 'projectId',
    targets: ['getProject', 'updateProject'],
  },
];

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Platform service API')
    .setDescription(
      'Accounts, finance (customers, test-mode cards, payments), content (channels, projects, collections, clients), and the events of ' +
        'every change with webhook endpoints that receive them.\n\n' +
        'Every route needs `Authorization: Bearer <accessToken>` from `POST /api/v1/login`, except login, signup, `/health` and the docs. ' +
        "The data routes (customers, cards, payments, channels, projects, collections, clients, events, webhook endpoints) also take a platform project's API key " +
        'instead, `Authorization: Bearer sk_test_...` (the `apiKey` scheme); a key acts only in its own project and never manages the platform. ' +
        'The read-only `/viewer` routes take only a publishable key, `Authorization: Bearer pk_test_...` (the `publishableKey` scheme), ' +
        'with `X-Share-Token` (and `X-Share-Password`) or `X-Viewer-Token` where the content asks for them. ' +
        'Errors share one body: `{ statusCode, error, message }`, plus `errors` on validation failures. ' +
        'No text of a body or a query may contain the NUL character (U+0000): 400. ' +
        'The data routes are rate limited per API key and per user in each project (429 with Retry-After; RateLimit-Policy and RateLimit headers).',
    )
    .setVersion('1.0.0')
    // Relative to where the document is served: generators and Swagger UI call the same host.
    .addServer('/', 'This service')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token from POST /api/v1/login' },
      USER_BEARER_SCHEME,
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'sk_test_...',
        description: "A platform project's API key (POST /api/v1/platform/projects/{id}/keys); data routes only",
      },
      API_KEY_SCHEME,
    )
    .addCookieAuth(
      'sid',
      {
        type: 'apiKey',
        in: 'cookie',
        name: 'sid',
        description:
          'A dashboard session from POST /api/v1/sessions: the cookie `__Host-sid` over https (`sid` over plain http in development); state-changing requests also need an allowed Origin',
      },
      SESSION_COOKIE_SCHEME,
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'pk_test_...',
        description:
          "A platform project's publishable key (POST /api/v1/platform/projects/{id}/keys with kind publishable): the /viewer routes only",
      },
      PUBLISHABLE_KEY_SCHEME,
    )
    .addSecurityRequirements(USER_BEARER_SCHEME)
    .addSecurityRequirements(SESSION_COOKIE_SCHEME)
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controllerKey: string, methodKey: string) => methodKey,
  });
  const linked = linkCreatesToRecords(
    linkNamedRecords(documentIdempotency(applyServiceWideRules(dedupeSecurity(document))), NAMED_RECORDS),
  );
  return sortKeys(stateNullables(linkProjectsToDataApis(linked, PROJECT_SOURCES)));
}

/** A route whose own decorators name a scheme its access policy names too lists it twice: once is enough. */
function dedupeSecurity(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, { security?: Record<string, string[]>[] }>)) {
      if (!Array.isArray(operation?.security)) continue;
      const seen = new Set<string>();
      operation.security = operation.security.filter((requirement) => {
        const key = JSON.stringify(requirement);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    }
  }
  return document;
}

/**
 * `/docs`, `/docs-json` and `/docs-yaml`. The document is built by the first request for it, not at
 * start: its scan of every route and its object tree are memory an instance only needs once someone
 * reads the docs.
 */
export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    // Tags start closed: with every operation of the API listed open, Swagger UI stops rendering
    // after the first tag's first few operations; a reader opens the tag they came for.
    swaggerOptions: { persistAuthorization: true, docExpansion: 'none' },
  });
}
