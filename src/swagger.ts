import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { documentIdempotency } from './common/idempotency/idempotency.openapi';
import { applyServiceWideRules } from './common/swagger/openapi-post-process';

export const BEARER = 'bearer';

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

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Platform service API')
    .setDescription(
      'Accounts, finance (customers, test-mode cards, payments) and content (channels, projects, collections, clients).\n\n' +
        'Every route needs `Authorization: Bearer <accessToken>` from `POST /api/v1/login`, except login, signup, `/health` and the docs. ' +
        'Errors share one body: `{ statusCode, error, message }`, plus `errors` on validation failures.',
    )
    .setVersion('1.0.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER)
    .addSecurityRequirements(BEARER)
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controllerKey: string, methodKey: string) => methodKey,
  });
  return sortKeys(documentIdempotency(applyServiceWideRules(document)));
}

export function setupSwagger(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true },
  });
}
