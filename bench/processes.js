'use strict';
/**
 * What the benchmark starts and stops: the throwaway database server, the servers under test, and
 * the cleanup that stops them all, also on failure or a signal.
 */
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { MongoClient } = require('mongodb');
const {
  ROOT,
  RESULTS_DIR,
  PROFILE_DIR,
  DIST,
  DIST_SNAPSHOT,
  COPY_DIST,
  COPY_DIST_SNAPSHOT,
  settings,
  log,
  sleep,
} = require('./settings');
const { childrenOf } = require('./monitor');

// ---------------------------------------------------------------- cleanup, also on signals

const cleanups = [];
let cleaning;
function cleanup() {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const step = cleanups.pop();
      try {
        await step();
      } catch (error) {
        process.stderr.write(`cleanup: ${error.message}\n`);
      }
    }
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping everything the benchmark started\n`);
    void cleanup().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------- processes

function freePort() {
  return new Promise((done, fail) => {
    const server = net.createServer();
    server.unref();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

function tail(file, lines = 30) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * How the service runs in production: the environment variables and the Node options `npm run
 * start:prod` puts between `exec env` and `dist/main.js` (the Dockerfile sets the same variables with
 * ENV and has the same options in its CMD), so the service is measured as it is deployed.
 * BENCH_NODE_ARGS and BENCH_SERVICE_NODE_ARGS come after the options (for V8 flags, the last wins).
 */
function productionLaunch() {
  const script =
    (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts ?? {})['start:prod'] ?? '';
  // `exec` makes node the process npm started (`env` execs it in turn), so a signal to npm's child reaches the service.
  const match = /^(?:exec\s+)?(?:env((?:\s+[A-Z_]+=\S+)+)\s+)?node((?:\s+--\S+)*)\s+dist\/main\.js$/.exec(
    script.trim(),
  );
  if (!match)
    throw new Error(
      `package.json's start:prod is not "[exec] [env VAR=value...] node [--options] dist/main.js": ${script}`,
    );
  const env = Object.fromEntries(
    (match[1] ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => pair.split('=')),
  );
  const args = match[2].split(/\s+/).filter(Boolean);
  const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const cmd = /^CMD\s+(\[.*\])\s*$/m.exec(dockerfile);
  const image = cmd ? JSON.parse(cmd[1]) : [];
  if (JSON.stringify(image) !== JSON.stringify(['node', ...args, 'dist/main.js'])) {
    throw new Error(
      `The Dockerfile's CMD (${cmd?.[1]}) and start:prod (${script}) run the service with different Node options`,
    );
  }
  const imageEnv = [...dockerfile.matchAll(/^ENV\s+(.+)$/gm)].flatMap((line) => line[1].split(/\s+/));
  const missing = Object.entries(env).filter(([name, value]) => !imageEnv.includes(`${name}=${value}`));
  if (missing.length > 0) {
    throw new Error(
      `start:prod sets ${missing.map(([n, v]) => `${n}=${v}`).join(' ')}, which the Dockerfile's ENV does not`,
    );
  }
  return { env, args };
}

/** Spawns a server, logs to bench/results/<name>.log, waits for GET /health to answer 200. */
async function startServer(name, entry, env, nodeArgs) {
  const port = await freePort();
  const logFile = path.join(RESULTS_DIR, `${name}.log`);
  const fd = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  const exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const server = { name, child, port, base: `http://127.0.0.1:${port}`, logFile, exited, alive: true, nodeArgs };
  exited.then(() => (server.alive = false));
  cleanups.push(() => stopServer(server));

  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (!server.alive) throw new Error(`${name} exited during start-up. Last lines of ${logFile}:\n${tail(logFile)}`);
    try {
      const response = await fetch(`${server.base}/health`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return server;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(
    `${name} did not answer GET /health with 200 within 120 s. Last lines of ${logFile}:\n${tail(logFile)}`,
  );
}

async function stopServer(server) {
  if (!server.alive) return;
  server.child.kill('SIGTERM');
  // A CPU profile is written at exit: give it time.
  const stopped = await Promise.race([server.exited.then(() => true), sleep(30_000).then(() => false)]);
  if (!stopped) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
}

/**
 * The database server, from the service's own embedded-database provisioning run from a copy of
 * dist/ (the service runs from the same copy, so a rebuild during the run cannot pull it away), and
 * a driver connection to it. `pids` are the processes the provisioning started (FerretDB and the
 * PostgreSQL postmaster, or mongod): the roots of the trees whose memory the report sums.
 */
async function startDatabase() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-bench-'));
  // Run as root, the embedded PostgreSQL runs as an unprivileged user, who must be able to reach its folder.
  fs.chmodSync(tmp, 0o755);
  cleanups.push(() => fs.rmSync(tmp, { recursive: true, force: true }));

  fs.rmSync(DIST_SNAPSHOT, { recursive: true, force: true });
  cleanups.push(() => fs.rmSync(DIST_SNAPSHOT, { recursive: true, force: true }));
  fs.cpSync(DIST, DIST_SNAPSHOT, { recursive: true });
  if (COPY_DIST) {
    fs.rmSync(COPY_DIST_SNAPSHOT, { recursive: true, force: true });
    cleanups.push(() => fs.rmSync(COPY_DIST_SNAPSHOT, { recursive: true, force: true }));
    fs.cpSync(COPY_DIST, COPY_DIST_SNAPSHOT, { recursive: true });
  }
  const { startEmbeddedDatabase } = require(path.join(DIST_SNAPSHOT, 'database', 'embedded-database.js'));
  const before = new Set(childrenOf(process.pid));
  const database = await startEmbeddedDatabase({
    dataDir: path.join(tmp, 'db'),
    ferretdbBin: process.env.FERRETDB_BIN,
    backend: process.env.EMBEDDED_DATABASE_BACKEND,
    log: (message) => log(message),
  });
  cleanups.push(() => database.stop());
  const pids = childrenOf(process.pid).filter((pid) => !before.has(pid));

  const mongo = new MongoClient(database.uri, { serverSelectionTimeoutMS: 5_000 });
  await mongo.connect();
  cleanups.push(() => mongo.close());
  return { database, mongo, pids };
}

/**
 * Waits until PostgreSQL has analysed every table of `schemas` that holds rows (at most `timeoutMs`),
 * as it does within seconds of a table's first rows (the embedded server's autovacuum settings), so
 * both sides are measured on the plans a running deployment has, not on a just-seeded table planned
 * as if it held 10 pages. Nothing to wait for on mongod or FerretDB on SQLite.
 */
async function settleStatistics(database, schemas, timeoutMs = 60_000) {
  if (!database.postgresUrl) return { waitedMs: 0, unanalysed: [] };
  const { postgresClient } = require(path.join(DIST_SNAPSHOT, 'database', 'patches', 'ferretdb-gin-indexes.js'));
  const client = postgresClient(database.postgresUrl);
  await client.connect();
  const started = Date.now();
  try {
    for (;;) {
      const { rows } = await client.query(
        `SELECT schemaname || '.' || relname AS name FROM pg_stat_user_tables
          WHERE schemaname = ANY($1) AND n_live_tup > 0 AND last_analyze IS NULL AND last_autoanalyze IS NULL`,
        [schemas],
      );
      if (rows.length === 0 || Date.now() - started > timeoutMs)
        return { waitedMs: Date.now() - started, unanalysed: rows.map((row) => row.name) };
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  } finally {
    await client.end();
  }
}

/**
 * Drops a database of the run. On FerretDB on PostgreSQL the drop is a `DROP SCHEMA`, which waits for
 * every query on the schema's tables; a cursor a stopped server left open holds one (its backend
 * waiting to send rows nobody reads, `ClientWrite`) until FerretDB gives the cursor up, minutes
 * later. So when the drop has not finished in `patienceMs`, such backends are ended and the drop
 * goes on. Errors are the caller's to ignore.
 */
async function dropDatabase(database, mongo, name, patienceMs = 10_000) {
  const dropped = mongo.db(name).dropDatabase();
  if (!database.postgresUrl) return dropped;
  let timer;
  const waited = new Promise((resolve) => {
    timer = setTimeout(() => resolve('waiting'), patienceMs);
  });
  try {
    if ((await Promise.race([dropped, waited])) !== 'waiting') return dropped;
  } finally {
    clearTimeout(timer);
  }
  const { postgresClient } = require(path.join(DIST_SNAPSHOT, 'database', 'patches', 'ferretdb-gin-indexes.js'));
  const client = postgresClient(database.postgresUrl);
  await client.connect();
  try {
    await client.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE state = 'active' AND wait_event = 'ClientWrite' AND pid <> pg_backend_pid()`,
    );
  } finally {
    await client.end();
  }
  return dropped;
}

/**
 * Creates in the baseline's database, empty, every collection the service's holds and the baseline's
 * does not (events, webhooks, audit, leases...), with the indexes the service declares on them.
 * FerretDB 1.24 answers each `find` after copying the metadata of every collection of the database,
 * indexes included (`ListCollections`, to learn whether the one collection is capped), so a read
 * costs its server more the more collections its database holds, whichever collection it reads. The
 * baseline implements a handful of routes of the same product: over the product's collections, its
 * reads cost the database what the service's do. Run after both are seeded, before the GIN indexes.
 * The number created; none with `BENCH_BASELINE_OWN_COLLECTIONS=1`.
 */
async function mirrorServiceCollections(serviceDb, baselineDb) {
  if (process.env.BENCH_BASELINE_OWN_COLLECTIONS) return 0;
  const present = new Set((await baselineDb.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  let created = 0;
  for (const { name, type } of await serviceDb.listCollections({}, { nameOnly: true }).toArray()) {
    // The server's own collections (and views, which hold no data) are not the product's.
    if (present.has(name) || name.startsWith('system.') || (type && type !== 'collection')) continue;
    await baselineDb.createCollection(name);
    const indexes = (await serviceDb.collection(name).indexes()).filter((index) => index.name !== '_id_');
    if (indexes.length > 0) {
      await baselineDb.collection(name).createIndexes(
        indexes.map(({ key, name: indexName, unique, sparse }) => ({
          key,
          name: indexName,
          ...(unique ? { unique } : {}),
          ...(sparse ? { sparse } : {}),
        })),
      );
    }
    created += 1;
  }
  return created;
}

/**
 * Gives the baseline's database the GIN indexes the service adds to its own at start
 * (`src/database/patches/ferretdb-gin-indexes.ts`): on FerretDB's PostgreSQL backend they are what
 * makes an index both sides declare answer FerretDB's equality filters, so without them the baseline
 * would be measured on a database configured unlike the service's. Run once its collections and
 * declared indexes exist. The number added; nothing on mongod, on SQLite, or with `BENCH_NO_GIN`.
 */
async function addBaselineGinIndexes(database, db) {
  if (!database.postgresUrl || process.env.BENCH_NO_GIN) return 0;
  const { addGinIndexes } = require(path.join(DIST_SNAPSHOT, 'database', 'patches', 'ferretdb-gin-indexes.js'));
  return (await addGinIndexes({ db }, database.postgresUrl)).length;
}

/**
 * Node options of one side: production's, then the BENCH_*_NODE_ARGS, and with `diagnostics` the
 * profiler's and the heap snapshot's. Both sides take production's, so their CPU is compared under
 * the same heap limits: on Node's defaults the baseline's young generation is sized by the machine's
 * memory, and collects far less often than an instance held to the service's memory bound can
 * (BENCH_BASELINE_NODE_DEFAULTS=1 runs it so). `copy`, the service in the baseline's place (an A/A
 * run), takes production's and BENCH_BASELINE_NODE_ARGS: an option tried on one copy alone.
 */
function argsFor(side, diagnostics = true) {
  const copy = side === 'copy';
  if (copy) side = 'baseline';
  const args = [
    ...(side === 'service' || copy || !settings.baselineOnNodeDefaults ? productionLaunch().args : []),
    ...settings.nodeArgs,
    ...(side === 'service' ? settings.serviceNodeArgs : settings.baselineNodeArgs),
  ];
  if (!diagnostics) return args;
  if (settings.profile.includes(side)) args.push('--cpu-prof', `--cpu-prof-dir=${path.relative(ROOT, PROFILE_DIR)}`);
  if (side === 'service' && settings.heapSnapshot)
    args.push('--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${path.relative(ROOT, PROFILE_DIR)}`);
  return args;
}

/** Production's environment variables for a baseline (bare or the upload's), unless on Node's defaults. */
function baselineLaunchEnv() {
  return settings.baselineOnNodeDefaults ? {} : productionLaunch().env;
}

/** The environment both servers share: fresh secrets, bcrypt's cost, limits out of the load's reach. */
function sharedEnv() {
  const secret = crypto.randomBytes(32).toString('hex');
  // The seed signs up every member from this one address: above the per-address signup limit (10 an hour).
  return {
    JWT_SECRET: secret,
    // Required outside development: the card fingerprint key (from which both derive the Idempotency-Key
    // fingerprint key) and the service's field encryption key (`<id>:<base64 of 32 bytes>`).
    CARD_FINGERPRINT_KEY: crypto.randomBytes(32).toString('hex'),
    FIELD_ENCRYPTION_KEY: `bench:${crypto.randomBytes(32).toString('base64')}`,
    BCRYPT_ROUNDS: String(settings.bcryptRounds),
    SIGNUP_MAX_PER_CLIENT: '1000',
    // Both sides count every data request against the rate limit, set out of the load's reach: the
    // check's cost is measured, not its refusals.
    RATE_LIMIT_PER_SECOND: '1000000',
    // The viewers of one publishable key share a limit of their own (the baseline has one limit only):
    // out of reach too, so the viewer scenario measures answers, not 429s.
    VIEWER_RATE_LIMIT_PER_SECOND: '1000000',
  };
}

let serviceDataRoot;

/**
 * The `DATA_DIR` of the service named `name` in this run: a folder of its own under one temporary
 * folder removed at the end, the same at every start of that name, so a service started again finds
 * its files (its search index) as an instance restarted on its host does. Never the repository's
 * `.data`, which `npm start` uses.
 */
function serviceDataDir(name) {
  if (!serviceDataRoot) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-bench-data-'));
    cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
    serviceDataRoot = root;
  }
  return path.join(serviceDataRoot, name);
}

/**
 * The service (from the copy of dist/) on its own database of the benchmark's database server; on
 * FerretDB's PostgreSQL backend told where that PostgreSQL is, as the service tells itself when it
 * starts its own embedded database, so that it adds FerretDB's GIN indexes. Its search index is the
 * file of its name (`SEARCH_INSTANCE`) in its data folder, kept across its restarts: by default the
 * file is named by the port too, which a restart here changes, and a service that finds no file
 * rebuilds its index from every record while its rounds are measured. `BENCH_SERVICE_ENV` goes over
 * production's environment, except on the copy of an A/A run (`asCopy`), which keeps production's
 * and runs from `BENCH_COPY_DIST`'s build when that is set.
 */
async function startService(name, shared, database, databaseName, nodeArgs, { asCopy = false } = {}) {
  const server = await startServer(
    name,
    path.join(asCopy && COPY_DIST ? COPY_DIST_SNAPSHOT : DIST_SNAPSHOT, 'main.js'),
    // The webhook cost's receiver listens on loopback.
    {
      ...productionLaunch().env,
      DATA_DIR: serviceDataDir(name),
      SEARCH_INSTANCE: name,
      ...shared,
      ...(asCopy ? {} : settings.serviceEnv),
      NODE_ENV: 'production',
      // Production requires it; nothing need listen there (a failed mail is logged, the request goes on).
      SMTP_URL: process.env.SMTP_URL ?? 'smtp://127.0.0.1:1025',
      LOG_LEVEL: settings.logLevel,
      MONGODB_URI: `${database.uri}${databaseName}${database.clientOptions ?? ''}`,
      ...(database.postgresUrl && !process.env.BENCH_NO_GIN ? { EMBEDDED_POSTGRES_URL: database.postgresUrl } : {}),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    },
    nodeArgs,
  );
  // The seed goes through the service's own routes (invitations, cards, keys) where it has them.
  server.isService = true;
  return server;
}

/** The CPU profiles a server wrote (--cpu-prof names them CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile). */
function profilesOf(server, dir) {
  try {
    return fs
      .readdirSync(dir)
      .filter((name) => name.endsWith('.cpuprofile') && name.split('.')[3] === String(server.child.pid))
      .map((name) => path.join(dir, name));
  } catch {
    return [];
  }
}

module.exports = {
  cleanups,
  dropDatabase,
  cleanup,
  startServer,
  stopServer,
  startDatabase,
  settleStatistics,
  mirrorServiceCollections,
  addBaselineGinIndexes,
  argsFor,
  baselineLaunchEnv,
  sharedEnv,
  startService,
  profilesOf,
  tail,
};
