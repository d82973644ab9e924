import { createFirstAdmin } from '../support/auth';
import type { HttpClient } from '../support/http';
import { startInstances, type Instances } from '../support/instances';
import { startRedisServer, type RedisServer } from '../support/redis-server';

jest.setTimeout(180_000);

const LIMIT = 4;

/** Waits for the start of a fresh window on every instance, from the reset their answers give. */
async function freshWindow(
  instances: HttpClient[],
  call: (instance: HttpClient) => Promise<{ headers: Headers }>,
): Promise<void> {
  const resets = await Promise.all(instances.map(call));
  const wait = Math.max(...resets.map((res) => Number(/t=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1] ?? 1)));
  await new Promise((done) => setTimeout(done, wait * 1000 + 50));
}

/** What docs/operations.md promises without REDIS_URL: the limit holds per instance, so behind N instances a caller gets up to N times it a second. */
describe('rate limits on 2 instances without REDIS_URL', () => {
  let running: Instances;
  let instances: HttpClient[];

  beforeAll(async () => {
    running = await startInstances(2, 'multi_limits', { RATE_LIMIT_PER_SECOND: String(LIMIT) });
    instances = running.clients;
  });

  afterAll(() => running?.stop());

  it('counts on each instance apart: a caller gets the limit from each, and no more from any', async () => {
    const owner = await createFirstAdmin(instances[0]);
    const call = (instance: HttpClient) => instance.get('/v1/customers', { token: owner.token });
    await freshWindow(instances, call);

    const answers = await Promise.all(
      instances.map((instance) => Promise.all(Array.from({ length: LIMIT + 2 }, () => call(instance)))),
    );
    for (const perInstance of answers) {
      expect(perInstance.filter((res) => res.status === 200)).toHaveLength(LIMIT);
      expect(perInstance.filter((res) => res.status === 429)).toHaveLength(2);
    }
  });
});

/** With REDIS_URL, every instance counts in one Redis: the caller gets the limit once, whichever instances it reaches. */
describe('rate limits on 3 instances sharing one Redis (REDIS_URL)', () => {
  let redis: RedisServer;
  let running: Instances;
  let instances: HttpClient[];

  beforeAll(async () => {
    redis = await startRedisServer();
    running = await startInstances(3, 'multi_shared_limits', {
      RATE_LIMIT_PER_SECOND: String(LIMIT),
      REDIS_URL: redis.url,
    });
    instances = running.clients;
  });

  afterAll(async () => {
    await running?.stop();
    await redis?.stop();
  });

  it('holds one caller to one limit across the three instances', async () => {
    const owner = await createFirstAdmin(instances[0]);
    const call = (instance: HttpClient) => instance.get('/v1/customers', { token: owner.token });
    await freshWindow(instances, call);

    // Three requests to each instance at once: nine against a limit of four.
    const answers = (
      await Promise.all(instances.map((instance) => Promise.all(Array.from({ length: 3 }, () => call(instance)))))
    ).flat();
    expect(answers.filter((res) => res.status === 200)).toHaveLength(LIMIT);
    expect(answers.filter((res) => res.status === 429)).toHaveLength(3 * 3 - LIMIT);
  });
});
