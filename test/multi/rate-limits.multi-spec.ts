import { randomBytes } from 'node:crypto';
import { createFirstAdmin } from '../support/auth';
import { pollUntil } from '../support/deadline';
import { HttpClient } from '../support/http';
import { ServiceProcess, spawnBuiltService } from '../support/service-process';
import { TEST_CARD_FINGERPRINT_KEY, TEST_FIELD_ENCRYPTION_KEY, TEST_JWT_SECRET } from '../support/test-app';
import { dropTestDatabase, testDatabaseUri } from '../support/test-database';

jest.setTimeout(120_000);

const INSTANCES = 2;
const LIMIT = 4;

/** What README promises: the limit holds per instance, so behind N instances a caller gets up to N times it a second. */
describe(`rate limits on ${INSTANCES} instances`, () => {
  const mongodbUri = testDatabaseUri(`multi_limits_${randomBytes(6).toString('hex')}`);
  const services: ServiceProcess[] = [];
  let instances: HttpClient[];

  beforeAll(async () => {
    for (let i = 0; i < INSTANCES; i++) {
      services.push(
        await spawnBuiltService({
          NODE_ENV: 'test',
          MONGODB_URI: mongodbUri,
          JWT_SECRET: TEST_JWT_SECRET,
          CARD_FINGERPRINT_KEY: TEST_CARD_FINGERPRINT_KEY,
          FIELD_ENCRYPTION_KEY: TEST_FIELD_ENCRYPTION_KEY,
          LOG_LEVEL: 'silent',
          BCRYPT_ROUNDS: '4',
          RATE_LIMIT_PER_SECOND: String(LIMIT),
        }),
      );
    }
    instances = services.map((service) => new HttpClient(service.baseUrl));
    for (const [i, instance] of instances.entries()) {
      const up = await pollUntil(async () => (await instance.get('/health')).status === 200, 60_000);
      if (!up) throw new Error(`instance ${i} did not become healthy:\n${services[i].output()}`);
    }
  });

  afterAll(async () => {
    await Promise.all(
      services.map(async (service) => {
        service.child.kill('SIGTERM');
        await service.exited;
      }),
    );
    await dropTestDatabase(mongodbUri);
  });

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
