import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createFirstAdmin, uniqueEmail, type TestUser } from '../support/auth';
import { pollUntil } from '../support/deadline';
import { HttpClient, type HttpResponse } from '../support/http';
import { startInstances, type Instances } from '../support/instances';
import { spawnBuiltService, type ServiceProcess } from '../support/service-process';
import { TEST_CARD_FINGERPRINT_KEY, TEST_FIELD_ENCRYPTION_KEY, TEST_JWT_SECRET } from '../support/test-app';

jest.setTimeout(180_000);

const INSTANCES = 3;
const PROJECTS = 30;
/** How long a write may take to show in every instance's results; the figure measured is printed. */
const LAG_BOUND_MS = 10_000;

/**
 * Each instance keeps its own index file and follows every instance's writes through the events
 * list: a write through one shows in the searches of all, deletes and later changes too, and an
 * instance killed and started again on its file catches up on what it missed.
 */
describe('search across instances', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'search-multi-'));
  let instances: Instances;
  let owner: TestUser;
  let channel: string;

  const titles = (res: HttpResponse): string[] =>
    (res.body.data as Array<{ primaryTitle: string }>).map((item) => item.primaryTitle).sort();
  const ids = (res: HttpResponse): string[] => (res.body.data as Array<{ _id: string }>).map((item) => item._id).sort();

  /** Polls the search on one instance until `expected` holds of its answer. */
  async function until(client: HttpClient, query: string, expected: (res: HttpResponse) => boolean): Promise<void> {
    let last: HttpResponse | undefined;
    const seen = await pollUntil(
      async () => {
        last = await client.get(`/projects/search?${query}`, { token: owner.token });
        return last.status === 200 && expected(last);
      },
      LAG_BOUND_MS,
      100,
    );
    if (!seen) throw new Error(`${client.baseUrl} never answered ${query} as expected: ${last?.status} ${last?.text}`);
  }

  beforeAll(async () => {
    instances = await startInstances(INSTANCES, 'search', { DATA_DIR: dataDir });
    owner = await createFirstAdmin(instances.clients[0]);
    const client = (
      await instances.clients[0].post(
        '/clients',
        { name: 'Studio owner', email: uniqueEmail('client') },
        { token: owner.token },
      )
    ).body.id;
    const body = {
      clientId: client,
      name: 'Studio',
      username: `studio_${randomBytes(5).toString('hex')}`,
      avatarUrl: 'https://cdn.example.com/a.png',
      role: 'creator',
    };
    channel = (await instances.clients[0].post('/channels', body, { token: owner.token })).body.id;
  });
  afterAll(async () => {
    await instances?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps one index file per instance', () => {
    expect(readdirSync(join(dataDir, 'search')).filter((name) => name.endsWith('.sqlite'))).toHaveLength(INSTANCES);
  });

  it("shows a write through any instance in every instance's results, and a delete and a later change too", async () => {
    const tag = `multi${randomBytes(4).toString('hex').replace(/\d/g, 'q')}`;
    const started = Date.now();
    // One at a time: concurrent creates in one channel answer 409 (its project list is written in turn).
    const made: string[] = [];
    for (let i = 0; i < PROJECTS; i++) {
      const res = await instances.http.post(
        `/channels/${channel}/projects`,
        { primaryTitle: `Item ${i} ${tag}`, projectTypeId: 'show' },
        { token: owner.token },
      );
      if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
      made.push(res.body._id as string);
    }
    const writtenAt = Date.now();
    await Promise.all(
      instances.clients.map((client) =>
        until(client, `q=${tag}&limit=100`, (res) => res.body.total_count === PROJECTS),
      ),
    );
    console.log(
      `search lag across ${INSTANCES} instances: every instance found the ${PROJECTS} projects written round-robin ${Date.now() - writtenAt} ms after the last was written (${writtenAt - started} ms to write them)`,
    );

    // Deleted through one instance, changed twice through two others: every index ends as the records are.
    const deleted = made.slice(0, 10);
    for (const [i, id] of deleted.entries()) {
      const res = await instances.clients[i % INSTANCES].delete(`/projects/${id}`, { token: owner.token });
      expect(res.status).toBe(200);
    }
    const changed = made[10];
    expect(
      (
        await instances.clients[1].put(
          `/projects/${changed}`,
          { primaryTitle: `First change ${tag}` },
          { token: owner.token },
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await instances.clients[2].put(
          `/projects/${changed}`,
          { primaryTitle: `Second change ${tag}` },
          { token: owner.token },
        )
      ).status,
    ).toBe(200);
    const kept = made.slice(10).sort();
    // Results show the records' current fields; which words match is the index's: only the second change's.
    const settled = async (client: HttpClient) => {
      await until(
        client,
        `q=${tag}&limit=100`,
        (res) => res.body.total_count === kept.length && JSON.stringify(ids(res)) === JSON.stringify(kept),
      );
      await until(client, `q=second ${tag}`, (res) => JSON.stringify(ids(res)) === JSON.stringify([changed]));
      await until(client, `q=first ${tag}`, (res) => res.body.total_count === 0);
    };
    for (const client of instances.clients) await settled(client);
    // Events read again later (every instance reads the list from its cursor) change nothing.
    await sleep(3000);
    for (const client of instances.clients) {
      expect((await client.get(`/projects/search?q=first ${tag}`, { token: owner.token })).body.total_count).toBe(0);
      expect(titles(await client.get(`/projects/search?q=second ${tag}`, { token: owner.token }))).toEqual([
        `Second change ${tag}`,
      ]);
    }
  });

  it('an instance killed and started again on its index file catches up on the writes it missed', async () => {
    const tag = `missed${randomBytes(4).toString('hex').replace(/\d/g, 'q')}`;
    const victim = instances.services[2];
    const port = new URL(victim.baseUrl).port;
    victim.child.kill('SIGKILL');
    await victim.exited;
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await instances.clients[i % 2].post(
        `/channels/${channel}/projects`,
        { primaryTitle: `Missed ${i} ${tag}`, projectTypeId: 'show' },
        { token: owner.token },
      );
      made.push(res.body._id);
    }
    // The same file as before the kill: its name is the host's and the old port's.
    const again: ServiceProcess = await spawnBuiltService({
      NODE_ENV: 'test',
      MONGODB_URI: instances.mongodbUri,
      JWT_SECRET: TEST_JWT_SECRET,
      CARD_FINGERPRINT_KEY: TEST_CARD_FINGERPRINT_KEY,
      FIELD_ENCRYPTION_KEY: TEST_FIELD_ENCRYPTION_KEY,
      LOG_LEVEL: 'silent',
      BCRYPT_ROUNDS: '4',
      DATA_DIR: dataDir,
      SEARCH_INSTANCE: `${hostname().replace(/[^A-Za-z0-9._-]/g, '_')}-${port}`,
    });
    instances.services[2] = again;
    const client = new HttpClient(again.baseUrl);
    expect(await pollUntil(async () => (await client.get('/health')).status === 200, 60_000)).toBe(true);
    await until(client, `q=${tag}`, (res) => JSON.stringify(ids(res)) === JSON.stringify([...made].sort()));
    expect(readdirSync(join(dataDir, 'search')).filter((name) => name.endsWith('.sqlite'))).toHaveLength(INSTANCES);
  });
});
