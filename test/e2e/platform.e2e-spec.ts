import { expectError } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';

describe('platform (health, docs, errors, headers)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('GET /health is public and reports the database up', async () => {
    const res = await t.http.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' } } });
  });

  it('echoes a safe X-Request-Id and generates one otherwise', async () => {
    const given = await t.http.get('/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const generated = await t.http.get('/health', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sets helmet headers on the pages, and no content sniffing on every answer', async () => {
    const api = await t.http.get('/health');
    expect(api.headers.get('x-content-type-options')).toBe('nosniff');
    // A JSON answer is no document a browser renders: no content security policy to carry.
    expect(api.headers.get('content-security-policy')).toBeNull();
    expect((await t.http.get('/no/such/route')).headers.get('x-content-type-options')).toBe('nosniff');

    for (const page of ['/docs', '/docs/', '/dashboard']) {
      const res = await t.http.get(page);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      // The dashboard's asset thumbnails: bytes read with the API's credentials, shown from blob: URLs.
      expect(res.headers.get('content-security-policy')).toContain("img-src 'self' data: blob:");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(res.headers.get('strict-transport-security')).toMatch(/^max-age=/);
    }
  });

  it('unknown route is 404 with the error body', async () => {
    expectError(await t.http.get('/no/such/route'), 404, 'Cannot GET /no/such/route');
  });

  it('malformed JSON is 400', async () => {
    expectError(
      await t.http.post('/api/v1/login', undefined, { raw: '{"email": ' }),
      400,
      'Malformed JSON in request body',
    );
  });

  it('a prototype-poisoning body is refused with 400', async () => {
    const res = await t.http.post('/api/v1/login', undefined, { raw: '{"__proto__": {"role": "admin"}}' });
    expectError(res, 400);
  });

  it('another content type is 415', async () => {
    const res = await t.http.post('/api/v1/login', undefined, {
      raw: 'email=a',
      headers: { 'content-type': 'text/plain' },
    });
    expectError(res, 415, /application\/json/);
  });

  it('a body over the limit is 413', async () => {
    const big = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1_100_000) });
    expectError(await t.http.post('/api/v1/login', undefined, { raw: big }), 413, 'Request body is too large');
  });

  it('answers 405 with Allow for a known path and an unsupported method, before reading any body', async () => {
    const res = await t.http.request('PUT', '/api/v1/login', undefined, {
      raw: 'not json',
      headers: { 'content-type': 'text/plain' },
    });
    expectError(res, 405, /Method PUT is not allowed on \/api\/v1\/login/);
    expect(res.headers.get('allow')).toBe('POST');
    const remove = await t.http.request('DELETE', '/health', undefined);
    expect(remove.status).toBe(405);
    expect(remove.headers.get('allow')).toContain('GET');
    // A route of its own that also fits a parametrised one (`DELETE /api/v1/sessions/:id`) names that route, not an id.
    const passkey = await t.http.request('DELETE', '/api/v1/sessions/passkey', undefined);
    expectError(passkey, 405, /Method DELETE is not allowed on \/api\/v1\/sessions\/passkey/);
    expect(passkey.headers.get('allow')).toBe('POST');
  });

  it('refuses a JSON body that is not an object', async () => {
    expectError(await t.http.post('/api/v1/login', [1, 2]), 400, 'Request body must be a JSON object');
    expectError(
      await t.http.post('/api/v1/login', undefined, { raw: 'null' }),
      400,
      'Request body must be a JSON object',
    );
  });

  it('validates a missing body as an empty object, naming the required fields', async () => {
    const res = await t.http.post('/api/v1/login');
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'password']);
  });

  it('serves the Swagger UI and the OpenAPI document', async () => {
    const ui = await t.http.get('/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger-ui');
    const doc = await t.http.get('/docs-json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
  });
});

describe('CORS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ CORS_ORIGINS: 'https://dashboard.example.com' });
  });
  afterAll(() => t.close());

  it('allows the configured origin only', async () => {
    const allowed = await t.http.get('/health', { headers: { origin: 'https://dashboard.example.com' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://dashboard.example.com');
    const other = await t.http.get('/health', { headers: { origin: 'https://evil.example.com' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
