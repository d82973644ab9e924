import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export type EmbeddedEngine = 'mongod' | 'ferretdb';

export interface EmbeddedDatabase {
  engine: EmbeddedEngine;
  /** Connection string without a database name; callers append their own. */
  uri: string;
  stop(): Promise<void>;
}

export interface EmbeddedDatabaseOptions {
  /** Folder that keeps the data. Each engine gets a sub-folder. */
  dataDir: string;
  ferretdbBin?: string;
  log?: (message: string) => void;
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
const HOW_TO_PROVIDE =
  'Set MONGODB_URI to a MongoDB server (for example mongodb://127.0.0.1:27017/platform), ' +
  'or set MONGOMS_SYSTEM_BINARY to a local mongod, or FERRETDB_BIN to a FerretDB binary, ' +
  'or install Go so FerretDB can be built (scripts/install-ferretdb.sh).';

/**
 * Provisions a MongoDB-compatible server for a machine that has none: a real `mongod` through
 * mongodb-memory-server when one can be had, else FerretDB on SQLite, built once with Go if needed.
 */
export async function startEmbeddedDatabase(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const failures: string[] = [];

  try {
    return await startMongod(join(options.dataDir, 'mongod'));
  } catch (error) {
    failures.push(`mongod: ${firstLine(error)}`);
    log(`Embedded database: no mongod available (${firstLine(error)}); trying FerretDB.`);
  }

  try {
    const binary = await findOrBuildFerretdb(options.ferretdbBin, log);
    return await startFerretdb(binary, join(options.dataDir, 'ferretdb'));
  } catch (error) {
    failures.push(`FerretDB: ${firstLine(error)}`);
  }

  throw new Error(`No database available. ${HOW_TO_PROVIDE}\n  - ${failures.join('\n  - ')}`);
}

/**
 * Starts FerretDB alone (no mongod attempt) on `stateDir`. Stopping it and starting it again with the
 * same `stateDir` and `port` brings the same data back at the same address, which is how a database
 * outage and its recovery can be reproduced.
 */
export async function startFerretdbServer(options: FerretdbServerOptions): Promise<EmbeddedDatabase & { port: number }> {
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
    stop: async () => {
      await server.stop({ doCleanup: false });
    },
  };
}

async function findOrBuildFerretdb(configured: string | undefined, log: (message: string) => void): Promise<string> {
  if (configured) {
    if (!existsSync(configured)) throw new Error(`FERRETDB_BIN points at ${configured}, which does not exist`);
    return configured;
  }
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, 'ferretdb'))
    .find((candidate) => existsSync(candidate));
  if (onPath) return onPath;

  let goBin: string;
  try {
    const { stdout } = await execFileAsync('go', ['env', 'GOPATH']);
    goBin = join(stdout.trim().split(delimiter)[0], 'bin', 'ferretdb');
  } catch {
    throw new Error('no ferretdb on PATH and no Go toolchain to build one');
  }
  if (existsSync(goBin)) return goBin;

  log(`Embedded database: building FerretDB ${FERRETDB_VERSION} with Go, once (about two minutes)...`);
  const script = resolve(__dirname, '..', '..', 'scripts', 'install-ferretdb.sh');
  await new Promise<void>((done, fail) => {
    const build = spawn('bash', [script, goBin], { stdio: ['ignore', 'inherit', 'inherit'] });
    build.on('error', fail);
    build.on('exit', (code) => (code === 0 ? done() : fail(new Error(`FerretDB build failed with exit code ${code}`))));
  });
  return goBin;
}

async function startFerretdb(binary: string, stateDir: string, fixedPort?: number): Promise<EmbeddedDatabase> {
  mkdirSync(stateDir, { recursive: true });
  const port = fixedPort ?? (await freePort());
  const logFd = openSync(join(stateDir, 'ferretdb.log'), 'a');
  const child = spawn(
    binary,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${stateDir}/`,
      `--state-dir=${stateDir}`,
      `--listen-addr=127.0.0.1:${port}`,
      '--debug-addr=-',
      '--telemetry=disable',
      '--log-level=error',
    ],
    { stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  try {
    await waitForPort(port, child, 20_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    engine: 'ferretdb',
    uri: `mongodb://127.0.0.1:${port}/`,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      await stopChild(child);
    },
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
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

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`ferretdb exited with code ${child.exitCode} (see its log)`);
    if (await canConnect(port)) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`ferretdb did not accept connections on port ${port} within ${timeoutMs} ms`);
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
