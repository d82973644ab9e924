import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { createFirstAdmin, createUser, TestUser } from '../support/auth';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { expectError } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';

const LIMIT = 5;

describe('rate limits of the data API (RATE_LIMIT_PER_SECOND)', () => {
  let t: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_PER_SECOND: String(LIMIT) });
    admin = await createFirstAdmin(t.http);
  });
  afterAll(() => t.close());

  /** Waits for the start of a fresh one-second window, so a burst falls inside one window. */
  async function freshWindow(token: string): Promise<void> {
    const probe = await t.http.get('/v1/customers', { token });
    const reset = Number(/t=(\d+)/.exec(probe.headers.get('ratelimit') ?? '')?.[1] ?? 1);
    await new Promise((done) => setTimeout(done, reset * 1000 + 50));
  }

  const burst = (token: string, count: number, headers: Record<string, string> = {}) =>
    Promise.all(Array.from({ length: count }, () => t.http.get('/v1/customers', { token, headers })));

  it('answers every data request with the RateLimit-Policy and RateLimit headers', async () => {
    await freshWindow(admin.token);
    const res = await t.http.get('/v1/customers', { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe(`"data-api";q=${LIMIT};w=1`);
    expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"data-api";r=${LIMIT - 1};t=1$`));
  });

  it('refuses the requests over the limit with 429, Retry-After and the standard body, then lets the caller in again', async () => {
    await freshWindow(admin.token);
    const answers = await burst(admin.token, LIMIT + 3);
    const refused = answers.filter((res) => res.status === 429);
    expect(answers.filter((res) => res.status === 200)).toHaveLength(LIMIT);
    expect(refused).toHaveLength(3);
    expectError(
      refused[0],
      429,
      `Rate limit exceeded: at most ${LIMIT} requests a second for you in this platform project; retry after 1 second`,
    );
    expect(refused[0].headers.get('retry-after')).toBe('1');
    expect(refused[0].headers.get('ratelimit')).toBe('"data-api";r=0;t=1');
    await new Promise((done) => setTimeout(done, 1100));
    expect((await t.http.get('/v1/customers', { token: admin.token })).status).toBe(200);
  });

  it('counts each user per platform project, and each API key, apart', async () => {
    const colleague = await createUser(t.http, 'admin', admin.token);
    const second = await t.http.post('/api/v1/platform/projects', { name: 'Second' }, { token: admin.token });
    const key = (
      await t.http.post(`/api/v1/platform/projects/${admin.projectId}/keys`, { name: 'limits' }, { token: admin.token })
    ).body.data.key;
    await freshWindow(admin.token);
    expect((await burst(admin.token, LIMIT + 2)).filter((res) => res.status === 429).length).toBeGreaterThan(0);
    // The same moment, other callers or another project: their own allowance.
    expect((await t.http.get('/v1/customers', { token: colleague.token })).status).toBe(200);
    expect(
      (await t.http.get('/v1/customers', { token: admin.token, headers: { 'x-project-id': second.body.data.id } }))
        .status,
    ).toBe(200);
    expect((await t.http.get('/v1/customers', { token: key })).status).toBe(200);
    const keyed = await burst(key, LIMIT + 2);
    const refusedKey = keyed.find((res) => res.status === 429);
    expectError(refusedKey!, 429, /^Rate limit exceeded: at most 5 requests a second for this API key/);
  });

  it('leaves the platform routes (accounts, login) to their own throttling', async () => {
    await freshWindow(admin.token);
    const answers = await Promise.all(
      Array.from({ length: LIMIT + 3 }, () => t.http.get('/api/v1/me', { token: admin.token })),
    );
    expect(answers.every((res) => res.status === 200)).toBe(true);
    expect(answers[0].headers.get('ratelimit')).toBeNull();
  });
});

describe('rate limits counted in Redis (REDIS_URL), and per instance while Redis is away', () => {
  let redis: RedisServer;
  let t: TestApp;
  let admin: TestUser;
  let warnings: jest.SpiedFunction<Logger['warn']>;

  beforeAll(async () => {
    redis = await startRedisServer();
    t = await createTestApp({ RATE_LIMIT_PER_SECOND: String(LIMIT), REDIS_URL: redis.url });
    admin = await createFirstAdmin(t.http);
  });
  beforeEach(() => {
    warnings = jest.spyOn(Logger.prototype, 'warn');
  });
  afterEach(() => warnings.mockRestore());
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  const redisWarnings = () =>
    warnings.mock.calls.filter(([message]) => /Redis cannot be reached/.test(String(message)));
  const counters = async () => {
    const client = new Redis(redis.url);
    try {
      return await client.keys('platform:rate-limit:*');
    } finally {
      client.disconnect();
    }
  };
  /** A burst inside one fresh window: how many were let through, refused, and anything else. */
  async function burstInFreshWindow(count: number): Promise<{ ok: number; refused: number; other: number[] }> {
    const probe = await t.http.get('/v1/customers', { token: admin.token });
    const reset = Number(/t=(\d+)/.exec(probe.headers.get('ratelimit') ?? '')?.[1] ?? 1);
    await new Promise((done) => setTimeout(done, reset * 1000 + 50));
    const answers = await Promise.all(
      Array.from({ length: count }, () => t.http.get('/v1/customers', { token: admin.token })),
    );
    const statuses = answers.map((res) => res.status);
    return {
      ok: statuses.filter((s) => s === 200).length,
      refused: statuses.filter((s) => s === 429).length,
      other: statuses.filter((s) => s !== 200 && s !== 429),
    };
  }

  it('counts each caller in Redis, where every instance counts', async () => {
    expect(await burstInFreshWindow(LIMIT + 2)).toEqual({ ok: LIMIT, refused: 2, other: [] });
    // The library puts its limiter's route (none here) between the prefix and the caller's key.
    const keys = await counters();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`^platform:rate-limit:.*user:${admin.id}:${admin.projectId}$`));
  });

  it('while Redis is away, counts on this instance, never fails a request, warns once; then counts in Redis again', async () => {
    await redis.stop();
    const away = [await burstInFreshWindow(LIMIT + 2), await burstInFreshWindow(LIMIT + 2)];
    expect(away).toEqual([
      { ok: LIMIT, refused: 2, other: [] },
      { ok: LIMIT, refused: 2, other: [] },
    ]);
    expect(redisWarnings()).toHaveLength(1);

    await redis.restart();
    // ioredis reconnects by itself within its retry delay (at most 2 s).
    await new Promise((done) => setTimeout(done, 2_500));
    expect(await burstInFreshWindow(LIMIT + 2)).toEqual({ ok: LIMIT, refused: 2, other: [] });
    expect(await counters()).toHaveLength(1);
    expect(redisWarnings()).toHaveLength(1);
  });
});
