import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { STATUS_CODES } from 'node:http';

/**
 * Where `npm run build` puts the platform dashboard (Vite, from `dashboard/`): `dashboard/dist`, found
 * alike from `src/` (tests) and from `dist/`. Not under `dist/`, which `nest build` empties.
 */
export const DASHBOARD_DIR = resolve(__dirname, '..', 'dashboard', 'dist');

/**
 * Serves the dashboard at `/dashboard` and its files under `/dashboard/`. They are
 * plain files, outside the API: no credential is needed to load them, and the page then calls the
 * API with the user's session cookie. Hashed assets are cached for good; `index.html` is revalidated on every load.
 * The dashboard's own routes are real paths (`/dashboard/customers/<id>`): any other path under
 * `/dashboard/` that names no file is answered with `index.html`, so a deep link or a reload opens
 * that page; a path that looks like a file (`.js`, anything under `assets/`) and is missing stays a
 * 404 like any unknown route. When the dashboard has not been built, `/dashboard` says so instead.
 */
export async function serveDashboard(app: NestFastifyApplication, dir = DASHBOARD_DIR): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  if (!existsSync(join(dir, 'index.html'))) {
    const notBuilt = (_request: unknown, reply: FastifyReply) =>
      reply
        .code(404)
        .send({ statusCode: 404, error: STATUS_CODES[404], message: 'The dashboard is not built: run npm run build' });
    fastify.get('/dashboard', notBuilt);
    fastify.get('/dashboard/*', notBuilt);
    return;
  }
  const page = async (_request: unknown, reply: FastifyReply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('Cache-Control', 'no-cache')
      .send(await readFile(join(dir, 'index.html')));
  // The router ignores trailing slashes, so `/dashboard/` is `/dashboard`: the page is this route's.
  // Its asset URLs are absolute (`/dashboard/assets/...`).
  fastify.get('/dashboard', page);
  // Every file has a route of its own (below), which the router prefers to this one.
  fastify.get('/dashboard/*', async (request, reply) => {
    const path = (request.params as { '*': string })['*'];
    if (path.startsWith('assets/') || /\.[a-z0-9]+$/i.test(path)) return reply.callNotFound();
    return page(request, reply);
  });
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/dashboard/',
    index: false,
    // One route per file found at start-up instead of a catch-all, so the dashboard's routes above can
    // have the rest; a rebuilt dashboard is served from the next start.
    wildcard: false,
    // The Swagger UI registers this plugin too: neither decorates the reply.
    decorateReply: false,
    cacheControl: false,
    setHeaders: (reply, path) => {
      reply.header(
        'Cache-Control',
        path.startsWith(join(dir, 'assets')) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
}
