import { randomBytes } from 'node:crypto';
import { spawnBuiltService, ServiceProcess } from '../support/service-process';
import { TEST_CARD_FINGERPRINT_KEY, TEST_FIELD_ENCRYPTION_KEY, TEST_JWT_SECRET } from '../support/test-app';
import { testDatabaseUri } from '../support/test-database';

/** The built service at LOG_LEVEL=info writes one structured line per request, with its id. */
describe('request logs', () => {
  let service: ServiceProcess;

  beforeAll(async () => {
    service = await spawnBuiltService({
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      JWT_SECRET: TEST_JWT_SECRET,
      CARD_FINGERPRINT_KEY: TEST_CARD_FINGERPRINT_KEY,
      FIELD_ENCRYPTION_KEY: TEST_FIELD_ENCRYPTION_KEY,
      MONGODB_URI: testDatabaseUri(`logs_${randomBytes(4).toString('hex')}`),
    });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const up = await fetch(`${service.baseUrl}/health`).then(
        (res) => res.ok,
        () => false,
      );
      if (up) return;
      await new Promise((done) => setTimeout(done, 200));
    }
    throw new Error(`the service did not start:\n${service.output()}`);
  });

  afterAll(async () => {
    service.child.kill('SIGTERM');
    await service.exited;
  });

  function requestLines(): { req?: { id?: string; url?: string; headers?: unknown }; res?: { statusCode?: number } }[] {
    return service
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.req);
  }

  it('logs method, url, status and the request id, and never the token', async () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2VjcmV0LXNpZ25hdHVyZQ';
    const res = await fetch(`${service.baseUrl}/api/v1/me`, {
      headers: { 'x-request-id': 'log-test-1', authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-request-id')).toBe('log-test-1');

    const deadline = Date.now() + 5_000;
    while (!requestLines().some((line) => line.req?.id === 'log-test-1') && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 50));
    }
    const line = requestLines().find((entry) => entry.req?.id === 'log-test-1');
    expect(line).toMatchObject({
      req: { id: 'log-test-1', method: 'GET', url: '/api/v1/me' },
      res: { statusCode: 401 },
    });
    expect(service.output()).not.toContain(token);
  });

  it('writes a signed content URL with its grant redacted: the URL reads the bytes until it expires', async () => {
    const grant = `${'6650c0ffee0000000000e001.6650c0ffee0000000000a001.6650c0ffee0000000000b001'}.4102444800.${'A'.repeat(43)}`;
    const res = await fetch(`${service.baseUrl}/asset-content/${grant}`, {
      headers: { 'x-request-id': 'log-test-signed' },
    });
    expect(res.status).toBe(404);
    const deadline = Date.now() + 5_000;
    while (!requestLines().some((line) => line.req?.id === 'log-test-signed') && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 50));
    }
    expect(requestLines().find((entry) => entry.req?.id === 'log-test-signed')).toMatchObject({
      req: { url: '/asset-content/[redacted]' },
      res: { statusCode: 404 },
    });
    expect(service.output()).not.toContain('A'.repeat(43));
  });

  it('starts in one format, JSON lines, without a line per module, controller or route', () => {
    const lines = service
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '');
    const notJson = lines.filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    const contexts = lines.map((line) => (JSON.parse(line) as { context?: string }).context);
    expect(contexts).toContain('Bootstrap');
    expect(
      contexts.filter((context) => ['InstanceLoader', 'RoutesResolver', 'RouterExplorer'].includes(context ?? '')),
    ).toEqual([]);
  });
});
