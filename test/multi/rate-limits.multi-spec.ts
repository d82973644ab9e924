import { createFirstAdmin } from '../support/auth';
import type { HttpClient } from '../support/http';
import { startInstances, type Instances } from '../support/instances';

jest.setTimeout(120_000);

const INSTANCES = 2;
const LIMIT = 4;

/** What README promises: the limit holds per instance, so behind N instances a caller gets up to N times it a second. */
describe(`rate limits on ${INSTANCES} instances`, () => {
  let running: Instances;
  let instances: HttpClient[];

  beforeAll(async () => {
    running = await startInstances(INSTANCES, 'multi_limits', { RATE_LIMIT_PER_SECOND: String(LIMIT) });
    instances = running.clients;
  });

  afterAll(() => running.stop());

  it('counts on each instance apart: a caller gets the limit from each, and no more from any', async () => {
    const owner = await createFirstAdmin(instances[0]);
    const call = (instance: HttpClient) => instance.get('/v1/customers', { token: owner.token });
    // The start of a fresh window on both, from the reset the first answers give.
    const resets = await Promise.all(instances.map(call));
    const wait = Math.max(...resets.map((res) => Number(/t=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1] ?? 1)));
    await new Promise((done) => setTimeout(done, wait * 1000 + 50));

    const answers = await Promise.all(instances.map((instance) => Promise.all(Array.from({ length: LIMIT + 2 }, () => call(instance)))));
    for (const perInstance of answers) {
      expect(perInstance.filter((res) => res.status === 200)).toHaveLength(LIMIT);
      expect(perInstance.filter((res) => res.status === 429)).toHaveLength(2);
    }
  });
});
