import fastifyCookie from '@fastify/cookie';
import { BadRequestException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Logger, PinoLogger } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import { AppModule } from './app.module';
import { RateLimiter } from './rate-limits/rate-limiter';
import { installMethodNotAllowed } from './common/http/method-not-allowed';
import { installRequestLogging } from './common/logging/request-logging';
import { AppLogger } from './common/logging/app-logger';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { settleIdempotentResponses } from './idempotency/idempotent-responses';
import { API_SECURITY_HEADERS, helmetHeaders, PAGE_HELMET_OPTIONS, PAGE_PATH } from './common/http/security-headers';
import { appConfig } from './config/app.config';
import type { EnvironmentVariables } from './config/env.validation';
import { serveDashboard } from './dashboard';
import { setupSwagger } from './swagger';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * No body of the contract nests past a few levels; a deeper one would reach the validation and the
 * class transformer, whose recursion overflows the stack (a 500) from a body well within `BODY_LIMIT`.
 */
const MAX_BODY_DEPTH = 32;

/** Whether `value` holds objects or arrays more than `limit` deep; walked without recursion. */
export function nestingDepthExceeds(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(node))
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return false;
}

/** Keeps a caller's request id when it is safe to log, else makes one. */
function requestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * `TRUST_PROXY` as Fastify's `trustProxy`: nothing trusted by default, so a client cannot pick its
 * own address (and its own throttling bucket) with X-Forwarded-For. A hop count trusts that many
 * proxies in front of the service whatever their address (Fastify itself refuses a bare number for
 * that reason): use it only where the service cannot be reached but through them; prefer a list.
 */
export function trustProxySetting(value: string): false | string[] | ((address: string, hop: number) => boolean) {
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  return value.split(',').map((entry) => entry.trim());
}

/**
 * Builds the fully configured application, not yet listening, from a validated environment. Used by
 * `main.ts` and the tests.
 */
export async function createApp(env: EnvironmentVariables): Promise<NestFastifyApplication> {
  const config = appConfig.build(env);
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimit,
    // A client that stops reading (a paused download) or sending is dropped, so a pile of them
    // cannot hold every file descriptor of the process.
    connectionTimeout: config.timeouts.connectionMs,
    requestTimeout: config.timeouts.requestMs,
    keepAliveTimeout: config.timeouts.keepAliveMs,
    trustProxy: trustProxySetting(config.trustProxy),
    genReqId: requestId,
    requestIdHeader: false,
    // The spec writes some paths with a trailing slash (`/v1/customers/`): both forms route the same.
    // A long path parameter reaches ParseObjectIdPipe (400) instead of Fastify's bare 414.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16_384 },
    // Nest's logger (pino) logs requests; Fastify's own logger would log them twice.
    logger: false,
    // A URL Fastify cannot decode (`/projects/%ff`) is refused before any route or hook runs: in the
    // service's error shape, not Fastify's.
    frameworkErrors: (error: { code?: string }, _request: FastifyRequest, reply: FastifyReply) => {
      const malformed = error.code === 'FST_ERR_BAD_URL';
      void reply
        .code(malformed ? 400 : 500)
        .header('X-Content-Type-Options', 'nosniff')
        .send(
          malformed
            ? {
                statusCode: 400,
                error: 'Bad Request',
                message: "The URL's path is not valid: a % must start an escape of UTF-8",
              }
            : { statusCode: 500, error: 'Internal Server Error', message: 'Internal server error' },
        );
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forEnvironment(env), adapter, {
    bufferLogs: true,
    // The JSON parser is registered below, with its own rules.
    bodyParser: false,
  });
  app.useLogger(new AppLogger(app.get(Logger)));
  const fastify = app.getHttpAdapter().getInstance();
  installMethodNotAllowed(fastify);
  // Parses the session cookie (request.cookies) and lets the sessions routes set and clear it.
  await app.register(fastifyCookie as never);

  // Helmet's headers on the pages (/docs, /dashboard), computed once; JSON answers get only what
  // matters for an API (see security-headers.ts).
  const pageHeaders = helmetHeaders(PAGE_HELMET_OPTIONS);
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    reply.header('X-Request-Id', request.id);
    reply.headers(PAGE_PATH.test(request.url) ? pageHeaders : API_SECURITY_HEADERS);
    done();
  });
  installRequestLogging(fastify, await app.resolve(PinoLogger));
  await app.get(RateLimiter).attach(fastify);
  settleIdempotentResponses(fastify, app.get(IdempotencyStore));

  // JSON only: anything else on a body is 415. Bodies are parsed by Fastify's own JSON parser
  // (secure-json-parse; a `__proto__` or `constructor.prototype` key is refused), with two rules of
  // the service around it: an empty JSON body counts as no body, so bodiless actions (confirm,
  // restore, ...) work whether or not a client sets the content type; a malformed body is a 400
  // that says so.
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    (request: FastifyRequest, payload: string | Buffer, done: (error: Error | null, body?: unknown) => void) => {
      const text = payload.toString();
      if (text.trim() === '') return done(null, undefined);
      parseJson(request, text, (error, body) => {
        if (error) return done(Object.assign(new Error('Malformed JSON in request body'), { statusCode: 400 }));
        if (nestingDepthExceeds(body, MAX_BODY_DEPTH))
          return done(
            new BadRequestException({
              message: `Request body nests too deeply: at most ${MAX_BODY_DEPTH} levels of objects and arrays`,
              code: 'body_too_deep',
            }),
          );
        done(null, body);
      });
    },
  );

  // tus uploads (src/assets): the bytes are read by the tus server from the request itself, never parsed.
  fastify.addContentTypeParser(
    'application/offset+octet-stream',
    (_request: FastifyRequest, _payload: unknown, done: (error: Error | null) => void) => done(null),
  );

  app.enableCors({
    origin: config.corsOrigins.includes('*') ? true : config.corsOrigins.length > 0 ? config.corsOrigins : false,
    exposedHeaders: ['X-Request-Id', 'X-Total-Count', 'Idempotent-Replayed', 'Retry-After'],
  });
  setupSwagger(app);
  // The platform dashboard's static files; helmet's page policy above already allows them (same-origin scripts and styles).
  await serveDashboard(app);
  return app;
}
