import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { MongoClient } from 'mongodb';
import { createFirstAdmin, uniqueEmail, type TestUser } from '../support/auth';
import { pollUntil } from '../support/deadline';
import { HttpClient } from '../support/http';
import { spawnBuiltService, type ServiceProcess } from '../support/service-process';
import { TEST_CARD_FINGERPRINT_KEY, TEST_FIELD_ENCRYPTION_KEY, TEST_JWT_SECRET } from '../support/test-app';
import { testDatabaseUri } from '../support/test-database';

const run = promisify(execFile);
const REBUILT = 'Search index rebuilt from the records';

/**
 * The index of a service process, rebuilt from the records (not the events) when its file is gone,
 * when its cursor is older than the events kept, and by `npm run search:reindex`.
 */
describe('search: rebuilding the index', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'search-rebuild-'));
  const instance = 'rebuild';
  const indexFile = join(dataDir, 'search', `${instance}.sqlite`);
  const databaseName = `search_rebuild_${randomBytes(4).toString('hex')}`;
  const env = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    JWT_SECRET: TEST_JWT_SECRET,
    CARD_FINGERPRINT_KEY: TEST_CARD_FINGERPRINT_KEY,
    FIELD_ENCRYPTION_KEY: TEST_FIELD_ENCRYPTION_KEY,
    MONGODB_URI: testDatabaseUri(databaseName),
    DATA_DIR: dataDir,
    SEARCH_INSTANCE: instance,
    BCRYPT_ROUNDS: '4',
  };
  let service: ServiceProcess | undefined;
  let http: HttpClient;
  let owner: TestUser;
  let mongo: MongoClient;

  async function start(): Promise<ServiceProcess> {
    const started = await spawnBuiltService(env);
    const up = await pollUntil(() => fetch(`${started.baseUrl}/health`).then((res) => res.ok), 60_000, 200);
    if (!up) throw new Error(`the service did not start:\n${started.output()}`);
    http = new HttpClient(started.baseUrl);
    return started;
  }

  async function stop(): Promise<void> {
    service?.child.kill('SIGTERM');
    await service?.exited;
    service = undefined;
  }

  /** Whether a search for the word finds the project, polled for a few seconds. */
  const found = (title: string, id: string) =>
    pollUntil(
      async () => {
        const res = await http.get(`/projects/search?q=${title}`, { token: owner.token });
        return res.status === 200 && (res.body.data as Array<{ _id: string }>).some((item) => item._id === id);
      },
      10_000,
      100,
    );

  /** Whether the running process logged the line (logs are written asynchronously). */
  const logged = (line: string) =>
    pollUntil(() => Promise.resolve(service?.output().includes(line) ?? false), 10_000, 100);

  beforeAll(async () => {
    mongo = await MongoClient.connect(testDatabaseUri(databaseName));
    service = await start();
  });
  afterAll(async () => {
    await stop();
    await mongo
      .db()
      .dropDatabase()
      .catch(() => undefined);
    await mongo.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('rebuilds from the records after its file is deleted, its cursor is too old, or on command', async () => {
    owner = await createFirstAdmin(http);
    const client = (
      await http.post('/clients', { name: 'Studio owner', email: uniqueEmail('client') }, { token: owner.token })
    ).body.id;
    const channelBody = {
      clientId: client,
      name: 'Studio',
      username: `studio_${randomBytes(5).toString('hex')}`,
      avatarUrl: 'https://cdn.example.com/a.png',
      role: 'creator',
    };
    const channel = (await http.post('/channels', channelBody, { token: owner.token })).body.id;
    const title = `rebuildprobe${randomBytes(3).toString('hex').replace(/\d/g, 'x')}`;
    const created = await http.post(
      `/channels/${channel}/projects`,
      { primaryTitle: `Kept ${title}`, projectTypeId: 'show' },
      { token: owner.token },
    );
    expect(created.status).toBe(201);
    const id = created.body._id as string;
    expect(await found(title, id)).toBe(true);

    // Stopped, the file deleted and the events gone: only the records can bring the project back.
    await stop();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${indexFile}${suffix}`, { force: true });
    await mongo.db().collection('events').deleteMany({});
    service = await start();
    expect(await found(title, id)).toBe(true);
    expect(await logged(REBUILT)).toBe(true);

    // A cursor older than the events' retention (30 days) means events were missed: rebuilt again.
    await stop();
    const db = new DatabaseSync(indexFile);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'cursor'").run(
      `evt_${Math.floor(Date.now() / 1000 - 31 * 86400).toString(16)}${'0'.repeat(16)}`,
    );
    db.prepare("DELETE FROM docs WHERE kind = 'project'").run();
    db.prepare('DELETE FROM docs_text').run();
    db.close();
    service = await start();
    expect(await found(title, id)).toBe(true);
    expect(await logged(REBUILT)).toBe(true);

    // The operator's command rebuilds every instance's file, here while the service is stopped.
    await stop();
    rmSync(indexFile, { force: true });
    const { stdout } = await run(process.execPath, [join(__dirname, '..', '..', 'dist', 'search', 'reindex.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        ...(process.env.SMTP_URL ? { SMTP_URL: process.env.SMTP_URL } : {}),
        ...env,
        LOG_LEVEL: 'silent',
      },
    });
    expect(stdout).toMatch(/rebuild\.sqlite: \d+ records/);
    expect(existsSync(indexFile)).toBe(true);
    const rebuilt = new DatabaseSync(indexFile);
    const row = rebuilt.prepare("SELECT count(*) AS n FROM docs WHERE kind = 'project' AND id = ?").get(id) as {
      n: number;
    };
    rebuilt.close();
    expect(row.n).toBe(1);
  });
});
