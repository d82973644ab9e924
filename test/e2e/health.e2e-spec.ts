import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDatabase, startFerretdbServer } from '../../src/database/embedded-database';
import { Readiness } from '../../src/health/readiness.service';
import { JobRunner } from '../../src/jobs/job-runner';
import { pollUntil, withDeadline } from '../support/deadline';
import { createTestApp, TestApp } from '../support/test-app';

// jest reads testTimeout from the top-level configuration only, not from a project's.
jest.setTimeout(90_000);

type Operation = { operationId?: string; security?: Record<string, string[]>[]; responses: Record<string, unknown> };

describe('health for orchestrators (liveness, readiness)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('GET /health/live answers 200 without a token and is not cached', async () => {
    const res = await t.http.get('/health/live');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers.get('cache-control')).toBe('no-cache, no-store, must-revalidate');
  });

  it('GET /health/ready answers 200 once the database answers and every index is built', async () => {
    const res = await t.http.get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ok',
      info: { database: { status: 'up' }, indexes: { status: 'up', models: Object.keys(t.db.models).length } },
      error: {},
    });
    expect(res.body.info.indexes.models).toBeGreaterThan(0);
    expect(res.headers.get('cache-control')).toBe('no-cache, no-store, must-revalidate');
  });

  it('GET /health keeps its answer', async () => {
    const res = await t.http.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' } } });
  });

  it("GET /health lists this instance's periodic jobs: name, interval, last run, last error", async () => {
    const failing = t.app.get(JobRunner).register({
      name: 'test.failing',
      everyMs: 200,
      firstAfterMs: 0,
      run: () => Promise.reject(new Error('the store is unreachable')),
    });
    try {
      type Job = {
        name: string;
        everyMs: number;
        leased: boolean;
        lastStartedAt: string | null;
        lastEndedAt: string | null;
        lastError: { at: string } | null;
        failures: number;
      };
      const jobs = async () => ((await t.http.get('/health')).body as { jobs: Job[] }).jobs;
      expect(
        await pollUntil(
          async () => (await jobs()).some((job) => job.name === 'webhooks.poll' && job.lastEndedAt !== null),
          15_000,
        ),
      ).toBe(true);
      const listed = await jobs();
      expect(listed.map((job) => job.name)).toEqual(
        expect.arrayContaining([
          'events.sweep',
          'webhooks.poll',
          'webhooks.payload-retention',
          'mail.send-due',
          'audit.sweep',
          'audit.retention',
          'payments.refund-sweep',
          'auth.attempts-sweep',
          'assets.processing',
          'assets.upload-expiry',
        ]),
      );
      expect(listed.find((job) => job.name === 'events.sweep')).toMatchObject({ everyMs: 15_000, leased: true });
      const poll = listed.find((job) => job.name === 'webhooks.poll')!;
      expect(poll).toMatchObject({ everyMs: 1_000, leased: false, lastError: null, failures: 0 });
      expect(new Date(poll.lastEndedAt!).getTime()).toBeGreaterThanOrEqual(new Date(poll.lastStartedAt!).getTime());

      expect(
        await pollUntil(
          async () => ((await jobs()).find((job) => job.name === 'test.failing')?.failures ?? 0) >= 2,
          15_000,
        ),
      ).toBe(true);
      const failed = (await jobs()).find((job) => job.name === 'test.failing')!;
      expect(failed).toMatchObject({ everyMs: 200, lastError: { at: expect.any(String) } });
      // The cause is logged, not answered to whoever asks /health.
      expect(JSON.stringify((await t.http.get('/health')).body)).not.toContain('unreachable');
      expect(Number.isNaN(Date.parse(failed.lastError!.at))).toBe(false);
    } finally {
      await failing.stop();
    }
  });

  it('documents the three routes as public, readiness with its 503', async () => {
    const document = (await t.http.get('/docs-json')).body as { paths: Record<string, { get: Operation }> };
    for (const path of ['/health', '/health/live', '/health/ready']) {
      const operation = document.paths[path]?.get;
      expect({ path, security: operation?.security }).toEqual({ path, security: [{}] });
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '500']));
    }
    expect(document.paths['/health/live'].get.operationId).toBe('checkLiveness');
    expect(document.paths['/health/ready'].get.operationId).toBe('checkReadiness');
    expect(Object.keys(document.paths['/health/ready'].get.responses)).toContain('503');
  });

  it('GET /health/ready answers 503 with the error body once shutdown begins, while /health/live stays 200', async () => {
    t.app.get(Readiness).beforeApplicationShutdown();
    const res = await t.http.get('/health/ready');
    expect({ status: res.status, body: res.body }).toEqual({
      status: 503,
      body: { statusCode: 503, error: 'Service Unavailable', message: 'Not ready: shutting down' },
    });
    expect((await t.http.get('/health/live')).status).toBe(200);
  });
});

/** This part owns a FerretDB of its own, stops it under the running app and starts it again. */
describe('readiness through a database outage', () => {
  let stateDir: string;
  let database: EmbeddedDatabase & { port: number };
  let t: TestApp;

  const ANSWER_WITHIN_MS = 15_000;
  const startDatabase = (port?: number) =>
    startFerretdbServer({ stateDir, port, ferretdbBin: process.env.FERRETDB_BIN, log: () => undefined });

  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'platform-health-db-'));
    database = await startDatabase();
    t = await createTestApp({ MONGODB_URI: `${database.uri}health${database.clientOptions}` });
  });

  afterAll(async () => {
    await t?.close();
    await database?.stop();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  it('is ready while the database is up', async () => {
    expect((await t.http.get('/health/ready')).status).toBe(200);
  });

  it('answers 503 with the error body while the database is down; liveness stays 200', async () => {
    await database.stop();

    const ready = await withDeadline(t.http.get('/health/ready'), ANSWER_WITHIN_MS, 'GET /health/ready');
    expect({ status: ready.status, body: ready.body }).toEqual({
      status: 503,
      body: { statusCode: 503, error: 'Service Unavailable', message: 'Not ready: database unavailable' },
    });
    expect(ready.text).not.toMatch(/Mongo|ECONNREFUSED|127\.0\.0\.1|\bat .+\.(js|ts):\d+/);

    const live = await withDeadline(t.http.get('/health/live'), ANSWER_WITHIN_MS, 'GET /health/live');
    expect({ status: live.status, body: live.body }).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('is ready again once the database is back on the same address', async () => {
    database = await startDatabase(database.port);
    const recovered = await pollUntil(async () => (await t.http.get('/health/ready')).status === 200, 20_000);
    expect(recovered).toBe(true);
  });
});
