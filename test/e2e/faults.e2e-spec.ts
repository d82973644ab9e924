import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDatabase, startFerretdbServer } from '../../src/database/embedded-database';
import { createFirstAdmin, TestUser } from '../support/auth';
import { pollUntil, withDeadline } from '../support/deadline';
import { HttpResponse } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

// jest reads testTimeout from the top-level configuration only, not from a project's.
jest.setTimeout(90_000);

/**
 * A database outage while the service keeps running: this file owns a FerretDB of its own on a fixed
 * port, stops it under the running app, and starts it again on the same port and data.
 */
describe('database outage and recovery', () => {
  let stateDir: string;
  let database: EmbeddedDatabase & { port: number };
  let t: TestApp;
  let user: TestUser;

  // A request during the outage must be answered, not left hanging; generous against a loaded machine.
  const ANSWER_WITHIN_MS = 15_000;

  const startDatabase = (port?: number) =>
    startFerretdbServer({ stateDir, port, ferretdbBin: process.env.FERRETDB_BIN, log: () => undefined });

  const expectUnavailable = (response: HttpResponse) => {
    expect({ status: response.status, body: response.body }).toEqual({
      status: 503,
      body: { statusCode: 503, error: 'Service Unavailable', message: expect.any(String) },
    });
    expect(response.text).not.toMatch(/Mongo|Mongoose|ECONNREFUSED|127\.0\.0\.1|buffering|\bat .+\.(js|ts):\d+/);
  };

  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'platform-faults-db-'));
    database = await startDatabase();
    t = await createTestApp({ MONGODB_URI: `${database.uri}faults${database.clientOptions}` });
    user = await createFirstAdmin(t.http);
  });

  afterAll(async () => {
    await t?.close();
    await database?.stop();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  it('serves normally while the database is up', async () => {
    const me = await t.http.get('/api/v1/me', { token: user.token });
    expect(me.status).toBe(200);
    expect(me.body.data.user.email).toBe(user.email);
    expect((await t.http.get('/health')).status).toBe(200);
  });

  it('answers 503 with the error body while the database is down, and keeps serving', async () => {
    await database.stop();

    const me = await withDeadline(t.http.get('/api/v1/me', { token: user.token }), ANSWER_WITHIN_MS, 'GET /api/v1/me');
    expectUnavailable(me);
    expect(me.headers.get('retry-after')).toBe('5');

    const login = await withDeadline(
      t.http.post('/api/v1/login', { email: user.email, password: user.password }),
      ANSWER_WITHIN_MS,
      'POST /api/v1/login',
    );
    expectUnavailable(login);

    const health = await withDeadline(t.http.get('/health'), ANSWER_WITHIN_MS, 'GET /health');
    expectUnavailable(health);
    expect(health.body.message).toBe('Database unavailable, try again shortly');

    // Several at once, as real traffic arrives: each one answered, none a 500.
    const burst = await withDeadline(
      Promise.all(Array.from({ length: 5 }, () => t.http.get('/api/v1/me', { token: user.token }))),
      ANSWER_WITHIN_MS,
      'a burst of GET /api/v1/me',
    );
    burst.forEach(expectUnavailable);

    // The process is still up: routes that need no database answer as usual.
    expect((await t.http.get('/docs-json')).status).toBe(200);
    const unauthenticated = await t.http.get('/api/v1/me');
    expect(unauthenticated.status).toBe(401);
  });

  it('serves again once the database is back on the same address', async () => {
    database = await startDatabase(database.port);

    const recovered = await pollUntil(async () => {
      const [health, me] = await Promise.all([t.http.get('/health'), t.http.get('/api/v1/me', { token: user.token })]);
      return health.status === 200 && me.status === 200;
    }, 20_000);
    expect(recovered).toBe(true);

    // The data written before the outage is still there, and writes work again.
    const me = await t.http.get('/api/v1/me', { token: user.token });
    expect(me.body.data.user.email).toBe(user.email);
    const login = await t.http.post('/api/v1/login', { email: user.email, password: user.password });
    expect(login.status).toBe(200);
  });
});
