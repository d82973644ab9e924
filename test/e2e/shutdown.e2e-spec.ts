import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { freePort } from '../../src/database/embedded-database';
import { createFirstAdmin, TestUser } from '../support/auth';
import { pollUntil, withDeadline } from '../support/deadline';
import { HttpClient } from '../support/http';
import {
  ferretdbBinary,
  isRunning,
  readClaimFile,
  RunningService,
  track,
  untilHealthy,
} from '../support/embedded-service';
import { ServiceProcess, spawnBuiltService, trackedPost } from '../support/service-process';
import { TEST_CARD_FINGERPRINT_KEY, TEST_FIELD_ENCRYPTION_KEY, TEST_JWT_SECRET } from '../support/test-app';
import { dropTestDatabase, testDatabaseUri } from '../support/test-database';

// jest reads testTimeout from the top-level configuration only, not from a project's.
jest.setTimeout(120_000);

/**
 * The built service as it runs in production: SIGTERM while logins (bcrypt at full cost, so each
 * takes a while) are in flight. Every one of them must be answered before the process exits 0.
 */
describe('graceful shutdown on SIGTERM', () => {
  const mongodbUri = testDatabaseUri(`shutdown_${randomBytes(6).toString('hex')}`);
  let service: ServiceProcess | undefined;

  afterAll(async () => {
    if (service && service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
    await dropTestDatabase(mongodbUri);
  });

  /** The built service in production mode on this suite's database, once it reports healthy. */
  async function startHealthy(env: Record<string, string>): Promise<{ running: ServiceProcess; http: HttpClient }> {
    service = await spawnBuiltService({
      NODE_ENV: 'production',
      MONGODB_URI: mongodbUri,
      JWT_SECRET: TEST_JWT_SECRET,
      CARD_FINGERPRINT_KEY: TEST_CARD_FINGERPRINT_KEY,
      FIELD_ENCRYPTION_KEY: TEST_FIELD_ENCRYPTION_KEY,
      ...env,
    });
    const running = service;
    const http = new HttpClient(running.baseUrl);
    const up = await pollUntil(async () => (await http.get('/health')).status === 200, 30_000);
    if (!up) throw new Error(`the service did not report healthy within 30 s:\n${running.output()}`);
    return { running, http };
  }

  it('drains in-flight requests, then exits with code 0', async () => {
    // Twenty logins of one user from one address at once: more than the default attempt limit.
    const { running, http } = await startHealthy({
      LOG_LEVEL: 'silent',
      BCRYPT_ROUNDS: '12',
      LOGIN_MAX_FAILURES: '1000',
    });
    const user: TestUser = await createFirstAdmin(http);

    const logins = Array.from({ length: 20 }, () =>
      trackedPost(`${running.baseUrl}/api/v1/login`, { email: user.email, password: user.password }),
    );
    await withDeadline(Promise.all(logins.map((login) => login.sent)), 15_000, 'sending the logins');
    // The first answer means the server is well into the batch: it has read every request (a few
    // milliseconds of work) while the password hashes queue up behind each other (hundreds).
    await withDeadline(Promise.race(logins.map((login) => login.response)), 30_000, 'the first login');

    const inFlight = logins.filter((login) => !login.done).length;
    running.child.kill('SIGTERM');
    // Otherwise the test would prove nothing about draining.
    if (inFlight === 0) throw new Error('every login finished before SIGTERM was sent: nothing was in flight');

    const outcomes = await withDeadline(
      Promise.allSettled(logins.map((login) => login.response)),
      60_000,
      'the in-flight logins',
    );
    const answers = outcomes.map((outcome) =>
      outcome.status === 'fulfilled' ? outcome.value.status : `failed: ${(outcome.reason as Error).message}`,
    );
    expect(answers).toEqual(logins.map(() => 200));
    for (const outcome of outcomes) {
      if (outcome.status !== 'fulfilled') continue;
      expect(JSON.parse(outcome.value.body)).toMatchObject({
        message: 'Login successful',
        accessToken: expect.any(String),
      });
    }

    const exit = await withDeadline(running.exited, 30_000, 'process exit after SIGTERM');
    expect({ ...exit, output: exit.code === 0 ? '' : running.output() }).toEqual({ code: 0, signal: null, output: '' });

    // Nothing listens any more.
    await expect(http.get('/health')).rejects.toThrow();
  });

  it('exits with code 1 once SHUTDOWN_TIMEOUT_MS has passed when a request never finishes', async () => {
    const { running } = await startHealthy({ LOG_LEVEL: 'warn', SHUTDOWN_TIMEOUT_MS: '2000' });

    // A request whose body never arrives stays in flight until Node's own request timeout (minutes).
    const { port } = new URL(running.baseUrl);
    const stalled = connect(Number(port), '127.0.0.1');
    stalled.on('error', () => undefined);
    await new Promise<void>((done) => stalled.once('connect', () => done()));
    stalled.write(
      'POST /api/v1/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"em',
    );
    await new Promise((done) => setTimeout(done, 200));

    const signalled = Date.now();
    running.child.kill('SIGTERM');
    try {
      const exit = await withDeadline(running.exited, 20_000, 'process exit after SIGTERM');
      expect(exit).toEqual({ code: 1, signal: null });
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(2000);
      expect(running.output()).toContain('Shutdown did not finish within 2000 ms: stopping now');
    } finally {
      stalled.destroy();
    }
  });
});

/**
 * `npm start` as a newcomer runs it, on the embedded database: SIGTERM to the pid npm has (what a
 * process manager or `kill` sends), or Ctrl-C (SIGINT to the terminal's whole process group), stops
 * the service, FerretDB and PostgreSQL. The build is `prestart`'s; `--ignore-scripts` leaves it out
 * (npm test has built already) and runs `start` itself.
 */
describe('npm start and its signal', () => {
  const folders: string[] = [];
  const started: RunningService[] = [];

  afterAll(() => {
    for (const npm of started)
      if (npm.child.exitCode === null && npm.child.signalCode === null) npm.child.kill('SIGKILL');
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  async function npmStart(): Promise<{ npm: RunningService; pids: number[] }> {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-npm-start-'));
    folders.push(dataDir);
    const port = await freePort();
    const child = spawn('npm', ['start', '--ignore-scripts'], {
      cwd: join(__dirname, '..', '..'),
      env: {
        // The node running the tests first, as `npm start` finds `node` on PATH.
        PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
        HOME: process.env.HOME ?? tmpdir(),
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
        FERRETDB_BIN: ferretdbBinary(),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, as a terminal gives a command: Ctrl-C signals that whole group.
      detached: true,
    });
    const npm = track(child, port);
    started.push(npm);
    await untilHealthy(npm);

    const claim = readClaimFile(dataDir);
    // The service is npm's own child: no shell in between to swallow the signal.
    const stat = readFileSync(`/proc/${claim.pid}/stat`, 'utf8');
    expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])).toBe(child.pid);
    expect(claim.servers.map((server) => server.command.split('/').pop()).sort()).toEqual(['ferretdb', 'postgres']);
    return { npm, pids: [claim.pid, ...claim.servers.map((server) => server.pid)] };
  }

  async function expectAllGone(npm: RunningService, pids: number[]): Promise<void> {
    await withDeadline(npm.exited, 30_000, 'npm exiting after the signal');
    const stopped = await pollUntil(async () => pids.every((pid) => !isRunning(pid)), 20_000);
    expect({ stopped, running: pids.filter(isRunning) }).toEqual({ stopped: true, running: [] });
    await expect(npm.http.get('/health')).rejects.toThrow();
  }

  it('SIGTERM to the npm pid stops node, FerretDB and PostgreSQL, and frees the port', async () => {
    const { npm, pids } = await npmStart();
    npm.child.kill('SIGTERM');
    await expectAllGone(npm, pids);
  });

  it('Ctrl-C (SIGINT to the process group) stops node, FerretDB and PostgreSQL, and frees the port', async () => {
    const { npm, pids } = await npmStart();
    process.kill(-npm.child.pid!, 'SIGINT');
    await expectAllGone(npm, pids);
  });
});
