import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { relocationBase } from '../../src/database/postgres-home';
import { createFirstAdmin, login, TestUser } from '../support/auth';
import { pollUntil } from '../support/deadline';
import {
  cloneBuiltService,
  ferretdbBinary,
  isRunning,
  processUid,
  readClaimFile,
  RunAs,
  RunningService,
  startService,
  stopAndWait,
  untilHealthy,
} from '../support/embedded-service';

// jest reads testTimeout from the top-level configuration only, not from a project's.
jest.setTimeout(240_000);

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

/** Every process the claim names (the service and its database servers) has stopped. */
async function expectAllStopped(pids: number[]): Promise<void> {
  const stopped = await pollUntil(async () => pids.every((pid) => !isRunning(pid)), 20_000);
  expect({ stopped, running: pids.filter(isRunning) }).toEqual({ stopped: true, running: [] });
}

/**
 * The embedded default as a newcomer meets it: a built project under a folder only its owner may
 * enter (a `mktemp -d`, like a home directory), started with no MONGODB_URI.
 */
describe('the embedded default (FerretDB on PostgreSQL) under a 0700 folder', () => {
  const services: RunningService[] = [];
  const folders: string[] = [];

  afterAll(async () => {
    for (const service of services) {
      if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
    }
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  async function started(
    clone: Parameters<typeof startService>[0],
    env: Record<string, string> = {},
    user?: RunAs,
  ): Promise<RunningService> {
    const service = await startService(clone, env, user);
    services.push(service);
    return service;
  }

  // Only root can be root: CI runs the tests as root, where PostgreSQL (which refuses root) runs as
  // `nobody`. Run as an ordinary user, the file tests that user's case below.
  if (isRoot)
    describe('as root', () => {
      let home: string;
      let clone: ReturnType<typeof cloneBuiltService>;
      let dataDir: string;
      let first: RunningService;
      let owner: TestUser;

      beforeAll(() => {
        home = mkdtempSync(join(tmpdir(), 'platform-root-home-'));
        folders.push(home);
        chmodSync(home, 0o700);
        clone = cloneBuiltService(home);
        dataDir = join(clone.app, '.data');
      });

      afterAll(() => {
        // The data folder kept outside the 0700 folder goes with this test's clone.
        try {
          const link = join(dataDir, 'postgres');
          if (lstatSync(link).isSymbolicLink()) rmSync(realpathSync(link), { recursive: true, force: true });
        } catch {
          // Never made.
        }
      });

      it('serves /health with FerretDB on PostgreSQL, PostgreSQL running as nobody from a folder outside the 0700 one', async () => {
        first = await started(clone);
        await untilHealthy(first);
        expect(first.output()).toContain('using an embedded ferretdb on postgresql');
        expect(first.output()).not.toMatch(/sqlite/i);
        // The start-up log says where the dashboard is (its lines are written asynchronously).
        const dashboard = `the dashboard is at ${first.http.baseUrl}/dashboard`;
        expect(await pollUntil(async () => first.output().includes(dashboard), 5_000)).toBe(true);

        const link = join(dataDir, 'postgres');
        expect(lstatSync(link).isSymbolicLink()).toBe(true);
        expect(realpathSync(link).startsWith(`${relocationBase()}/`)).toBe(true);
        expect(existsSync(join(link, 'PG_VERSION'))).toBe(true);

        const claim = readClaimFile(dataDir);
        expect(claim.pid).toBe(first.child.pid);
        const postgres = claim.servers.find((server) => server.command.endsWith('/bin/postgres'));
        expect(postgres).toBeDefined();
        expect(processUid(postgres!.pid)).toBe(NOBODY);
        // The project's own binaries sit under the 0700 folder, where nobody cannot run them.
        expect(postgres!.command.startsWith(home)).toBe(false);

        owner = await createFirstAdmin(first.http);
      });

      it('a second process on the same DATA_DIR uses the running database: the same data, and the first keeps it after the second stops', async () => {
        const second = await started(clone);
        await untilHealthy(second);
        expect(second.output()).toContain(`process ${first.child.pid} already runs FerretDB on PostgreSQL`);
        expect((await login(second.http, owner.email, owner.password)).status).toBe(200);
        // The claim is still the first process's, with the same servers.
        expect(readClaimFile(dataDir).pid).toBe(first.child.pid);

        expect(await stopAndWait(second)).toEqual({ code: 0, signal: null });
        expect((await first.http.get('/health')).status).toBe(200);
        expect((await login(first.http, owner.email, owner.password)).status).toBe(200);
      });

      it('a second process that asks for another backend on the same DATA_DIR fails at once, saying why and what to do', async () => {
        const other = await started(clone, { EMBEDDED_DATABASE_BACKEND: 'sqlite' });
        expect(await other.exited).toEqual({ code: 1, signal: null });
        expect(other.output()).toContain(
          `Process ${first.child.pid} already runs the embedded database of ${dataDir} (FerretDB on PostgreSQL)`,
        );
        expect(other.output()).toContain(
          `Stop process ${first.child.pid} first, or give this process another DATA_DIR`,
        );
        expect((await first.http.get('/health')).status).toBe(200);
      });

      it('SIGTERM stops the service and its database servers, and a new start finds the same data', async () => {
        const claim = readClaimFile(dataDir);
        expect(await stopAndWait(first)).toEqual({ code: 0, signal: null });
        await expectAllStopped(claim.servers.map((server) => server.pid));
        expect(existsSync(join(dataDir, 'embedded-database.json'))).toBe(false);

        const again = await started(clone);
        await untilHealthy(again);
        expect((await login(again.http, owner.email, owner.password)).status).toBe(200);
        first = again;
      });

      it('after a service killed outright, the next start stops the database servers it left and serves the same data', async () => {
        const left = readClaimFile(dataDir).servers;
        expect(await stopAndWait(first, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
        // Orphans: the database still runs without its service.
        expect(left.every((server) => isRunning(server.pid))).toBe(true);

        const next = await started(clone);
        await untilHealthy(next);
        expect(next.output()).toContain('ended without stopping its database servers');
        expect(left.filter((server) => isRunning(server.pid))).toEqual([]);
        expect((await login(next.http, owner.email, owner.password)).status).toBe(200);

        const claim = readClaimFile(dataDir);
        expect(await stopAndWait(next)).toEqual({ code: 0, signal: null });
        await expectAllStopped(claim.servers.map((server) => server.pid));
      });
    });

  it('two processes started at once on a new DATA_DIR: one starts the database, the other waits for it and uses it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-race-'));
    folders.push(dataDir);
    const built = { app: join(__dirname, '..', '..'), node: process.execPath, ferretdb: ferretdbBinary() };
    const [a, b] = await Promise.all([started(built, { DATA_DIR: dataDir }), started(built, { DATA_DIR: dataDir })]);
    await Promise.all([untilHealthy(a), untilHealthy(b)]);

    const claim = readClaimFile(dataDir);
    const [owner, sharer] = claim.pid === a.child.pid ? [a, b] : [b, a];
    expect(claim.pid).toBe(owner.child.pid);
    expect(sharer.output()).toContain(`process ${owner.child.pid} already runs FerretDB on PostgreSQL`);
    expect(owner.output()).not.toContain('already runs');
    // One PostgreSQL and one FerretDB for the folder.
    expect(claim.servers).toHaveLength(2);
    const user = await createFirstAdmin(owner.http);
    expect((await login(sharer.http, user.email, user.password)).status).toBe(200);

    expect(await stopAndWait(sharer)).toEqual({ code: 0, signal: null });
    expect(await stopAndWait(owner)).toEqual({ code: 0, signal: null });
    await expectAllStopped(claim.servers.map((server) => server.pid));
  });

  describe('as an ordinary user', () => {
    // As root, a user made for this test (CI runs as root); otherwise the user running the tests.
    const name = 'platform-e2e';
    let user: RunAs | undefined;
    let madeUser = false;

    beforeAll(() => {
      if (!isRoot) return;
      try {
        execFileSync('id', ['-u', name], { stdio: 'ignore' });
      } catch {
        execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name]);
        madeUser = true;
      }
      user = {
        uid: Number(execFileSync('id', ['-u', name], { encoding: 'utf8' })),
        gid: Number(execFileSync('id', ['-g', name], { encoding: 'utf8' })),
      };
    });

    afterAll(async () => {
      // The user's processes are gone before the user is.
      for (const service of services) await stopAndWait(service, 'SIGKILL');
      if (madeUser) execFileSync('userdel', [name]);
    });

    it('serves /health with FerretDB on PostgreSQL, which runs as that user with its data in DATA_DIR', async () => {
      const home = mkdtempSync(join(tmpdir(), 'platform-user-home-'));
      folders.push(home);
      if (user) chownSync(home, user.uid, user.gid);
      chmodSync(home, 0o700);
      const clone = cloneBuiltService(home, user);
      const dataDir = join(clone.app, '.data');

      const service = await started(clone, {}, user);
      await untilHealthy(service);
      expect(service.output()).toContain('using an embedded ferretdb on postgresql');
      expect(lstatSync(join(dataDir, 'postgres')).isDirectory()).toBe(true);
      const claim = readClaimFile(dataDir);
      const postgres = claim.servers.find((server) => server.command.endsWith('/bin/postgres'));
      expect(processUid(postgres!.pid)).toBe(user?.uid ?? process.getuid?.());
      expect(postgres!.command.startsWith(clone.app)).toBe(true);
      await createFirstAdmin(service.http);

      expect(await stopAndWait(service)).toEqual({ code: 0, signal: null });
      await expectAllStopped(claim.servers.map((server) => server.pid));
    });
  });
});
