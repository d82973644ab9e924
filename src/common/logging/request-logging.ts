import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import { loggedUrl } from './logged-url';

/** What a request line shows of the request: never its headers (tokens, keys, cookies), nor a secret in its URL. */
function requestFields(request: FastifyRequest): { id: string; method: string; url: string } {
  return { id: request.id, method: request.method, url: loggedUrl(request.url) };
}

/**
 * One log line per request, the line pino-http wrote (`req` id, method and URL, `res.statusCode`,
 * `responseTime` in ms; `info`, `warn` from 400, `error` and "request errored" from 500), from two
 * Fastify hooks instead of nestjs-pino's middleware, which on Fastify runs through @fastify/middie
 * and builds pino-http's request and response wrappers on every request.
 *
 * While a request runs, Nest's logger (nestjs-pino) logs with its `req` fields, as before: the
 * request runs inside nestjs-pino's logging context (`PinoLogger.runInContext`).
 */
export function installRequestLogging(fastify: FastifyInstance, context: PinoLogger): void {
  const root = PinoLogger.root;
  if (!root || !root.isLevelEnabled('fatal')) return; // LOG_LEVEL=silent

  fastify.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    context.runInContext(done, { bindings: { req: requestFields(request) } });
  });

  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const statusCode = reply.statusCode;
    // The raw response, as pino-http gave it: the logger's `res` serializer reads its status code.
    const line = { req: requestFields(request), res: reply.raw, responseTime: Math.round(reply.elapsedTime) };
    if (statusCode >= 500) root.error(line, 'request errored');
    else if (statusCode >= 400) root.warn(line, 'request completed');
    else root.info(line, 'request completed');
    done();
  });
}
