import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { STATUS_CODES } from 'node:http';

/**
 * Where `npm run build` puts the finance dashboard (Vite, from `dashboard/`): `dashboard/dist`, found
 * alike from `src/` (tests) and from `dist/`. Not under `dist/`, which `nest build` empties.
 */
export const DASHBOARD_DIR = resolve(__dirname, '..', 'dashboard', 'dist');

/**
 * Serves the dashboard at `/dashboard` and its files under `/dashboard/`. They are
 * plain files, outside the API: no token is needed to load them, and the page then calls the API
 * with the user's. Hashed assets are cached for good; `index.html` is revalidated on every load.
 * When the dashboard has not been built, `/dashboard` says so instead.
 */
export async function serveDashboard(app: NestFastifyApplication, dir = DASHBOARD_DIR): Promise<void> {
  if (!existsSync(join(dir, 'index.html'))) {
    const notBuilt = (_request: unknown, reply: FastifyReply) =>
      reply.code(404).send({ statusCode: 404, error: STATUS_CODES[404], message: 'The dashboard is not built: run npm run build' });
    const fastify = app.getHttpAdapter().getInstance();
    fastify.get('/dashboard', notBuilt);
    fastify.get('/dashboard/*', notBuilt);
    return;
  }
  // The router ignores trailing slashes, so `/dashboard/` is `/dashboard` (never reaching the plugin's
  // `/dashboard/*`): the page is this route's. Its asset URLs are absolute (`/dashboard/assets/...`).
  app
    .getHttpAdapter()
    .getInstance()
    .get('/dashboard', async (_request, reply) => reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(await readFile(join(dir, 'index.html'))));
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/dashboard/',
    index: false,
    // The Swagger UI registers this plugin too: neither decorates the reply.
    decorateReply: false,
    cacheControl: false,
    setHeaders: (reply, path) => {
      reply.header('Cache-Control', path.startsWith(join(dir, 'assets')) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
}
