import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDashboard } from '../../src/dashboard';

@Module({})
class NoRoutesModule {}

/**
 * How the service serves a built dashboard: its files, index.html for the dashboard's own routes (a
 * deep link or a reload), and 404 for a missing file and for any path outside the dashboard. A small
 * built dashboard of its own, so the test does not depend on `npm run build`.
 */
describe('serving the dashboard', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-'));
  let app: NestFastifyApplication;
  let base: string;

  beforeAll(async () => {
    mkdirSync(join(dir, 'assets'));
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><title>Platform dashboard</title><script type="module" src="/dashboard/assets/app-1a2b.js"></script>',
    );
    writeFileSync(join(dir, 'assets', 'app-1a2b.js'), 'console.log("dashboard")');
    app = await NestFactory.create<NestFastifyApplication>(
      NoRoutesModule,
      new FastifyAdapter({ routerOptions: { ignoreTrailingSlash: true } }),
      { logger: false },
    );
    await serveDashboard(app, dir);
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
  });

  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function get(path: string) {
    const res = await fetch(`${base}${path}`);
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      cache: res.headers.get('cache-control'),
      text: await res.text(),
    };
  }

  it('answers index.html at /dashboard and for every client route, revalidated on each load', async () => {
    const routes = [
      '/dashboard',
      '/dashboard/',
      '/dashboard/overview',
      '/dashboard/customers/65f1c0ffee0000000000abcd',
      '/dashboard/signup?invitation=inv_x',
      '/dashboard/content/channels/65f1c0ffee0000000000abcd',
      '/dashboard/content/projects/65f1c0ffee0000000000abcd',
      // A share link's page (its token and key follow `#`, which no request carries).
      '/dashboard/shared/65f1c0ffee0000000000abcd',
      '/dashboard/no/such/page',
    ];
    for (const path of routes) {
      const res = await get(path);
      expect({ path, status: res.status, type: res.type }).toEqual({
        path,
        status: 200,
        type: 'text/html; charset=utf-8',
      });
      expect(res.text).toContain('<title>Platform dashboard</title>');
      expect(res.cache).toBe('no-cache');
    }
  });

  it('serves the hashed assets, cached for good', async () => {
    const res = await get('/dashboard/assets/app-1a2b.js');
    expect(res.status).toBe(200);
    expect(res.text).toBe('console.log("dashboard")');
    expect(res.cache).toBe('public, max-age=31536000, immutable');
  });

  it('answers 404 JSON, not the page, for a missing file and for paths outside the dashboard', async () => {
    for (const path of [
      '/dashboard/assets/app-0000.js',
      '/dashboard/assets/missing',
      '/dashboard/favicon.ico',
      '/api/v1/no-such-route',
      '/v1/no-such-route',
    ]) {
      const res = await get(path);
      expect({ path, status: res.status, type: res.type }).toEqual({
        path,
        status: 404,
        type: expect.stringContaining('application/json'),
      });
      expect(JSON.parse(res.text)).toMatchObject({ statusCode: 404 });
    }
  });
});
