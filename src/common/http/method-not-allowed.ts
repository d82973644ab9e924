import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { STATUS_CODES } from 'node:http';

interface PathMethods {
  pattern: RegExp;
  methods: Set<string>;
}

function toPattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * Answers 405 with an `Allow` header when a path exists but not for the request's method (Fastify
 * alone says 404). It runs in `onRequest`, before any body is read, so an unsupported method never
 * reaches content-type or JSON checks. Must be installed before the routes are registered.
 */
export function installMethodNotAllowed(fastify: FastifyInstance): void {
  const byUrl = new Map<string, Set<string>>();
  let compiled: PathMethods[] | undefined;

  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (route.url.includes('*')) return;
    const methods = byUrl.get(route.url) ?? new Set<string>();
    for (const method of ([] as string[]).concat(route.method)) methods.add(method.toUpperCase());
    byUrl.set(route.url, methods);
    compiled = undefined;
  });

  // Callback style, not async: a matched route (nearly every request) passes with no promise made.
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const matched = request.routeOptions.url;
    const path = request.url.split('?')[0];
    let allowed: Set<string>;
    if (matched !== undefined) {
      // A path that is a route of its own (`/sessions/passkey`) also fits a parametrised one
      // (`/sessions/:id`) for the other methods: it names that route's resource, not an id.
      if (!matched.includes(':')) return done();
      allowed = byUrl.get(path) ?? byUrl.get(path.replace(/\/$/, '')) ?? new Set<string>();
    } else {
      compiled ??= [...byUrl].map(([url, methods]) => ({ pattern: toPattern(url), methods }));
      allowed = new Set<string>();
      for (const route of compiled)
        if (route.pattern.test(path)) route.methods.forEach((method) => allowed.add(method));
    }
    if (allowed.size === 0 || allowed.has(request.method)) return done();
    const allow = [...allowed].sort().join(', ');
    // Answered here: `done` is not called, so the request goes no further.
    reply
      .code(405)
      .header('Allow', allow)
      .send({
        statusCode: 405,
        error: STATUS_CODES[405],
        message: `Method ${request.method} is not allowed on ${path}; allowed: ${allow}`,
      });
  });
}
