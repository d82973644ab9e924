'use strict';
/**
 * Benchmark of the built service against a bare Fastify + mongodb baseline (bench/baseline/server.js).
 *
 *   npm run bench                       (builds, then runs this file)
 *   node bench/run.js                   (uses the existing dist/)
 *
 * Starts one throwaway database server (the service's own embedded-database provisioning), the
 * service (dist/main.js, NODE_ENV=production) and the baseline on it, each with its own database,
 * seeds both through their HTTP APIs, then runs autocannon from this process over loopback.
 * Prints a table and writes it to bench/results/latest.md. Everything it starts is stopped, also on
 * failure; the exit code is non-zero when anything failed.
 *
 * Tuning (environment): BENCH_DURATION (s, 10), BENCH_WARMUP (s, 2), BENCH_CONNECTIONS (10),
 * BENCH_LOG_LEVEL (service LOG_LEVEL, info), BENCH_BCRYPT_ROUNDS (both servers, 12: the service
 * default), BENCH_BOUNDS_SEED (10000), BENCH_ONLY (comma-separated scenario keys, e.g. "channel,login"
 * or "bounds"), BENCH_NODE_ARGS (extra Node options for both servers), FERRETDB_BIN / MONGOMS_SYSTEM_BINARY as for the service.
 */
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');
const { MongoClient } = require('mongodb');

const ROOT = path.resolve(__dirname, '..');
const RESULTS_DIR = path.join(__dirname, 'results');
const DIST = path.join(ROOT, 'dist');
const SERVICE_ENTRY = path.join(DIST, 'main.js');
const EMBEDDED_DB = path.join(DIST, 'database', 'embedded-database.js');
// The service runs from a copy of dist/, so a rebuild during the run cannot pull it away.
const DIST_SNAPSHOT = path.join(RESULTS_DIR, 'dist-snapshot');
const BASELINE_ENTRY = path.join(__dirname, 'baseline', 'server.js');

const settings = {
  duration: positiveNumber('BENCH_DURATION', 10),
  warmup: positiveNumber('BENCH_WARMUP', 2),
  connections: positiveNumber('BENCH_CONNECTIONS', 10),
  logLevel: process.env.BENCH_LOG_LEVEL || 'info',
  bcryptRounds: positiveNumber('BENCH_BCRYPT_ROUNDS', 12),
  boundsSeed: positiveNumber('BENCH_BOUNDS_SEED', 10_000),
  boundsConnections: positiveNumber('BENCH_BOUNDS_CONNECTIONS', 2),
  // Extra Node options for both servers, e.g. "--cpu-prof --cpu-prof-dir=/tmp/profiles".
  nodeArgs: (process.env.BENCH_NODE_ARGS || '').split(/\s+/).filter(Boolean),
  only: (process.env.BENCH_ONLY || '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean),
};

function positiveNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
}

const wanted = (key) => settings.only.length === 0 || settings.only.includes(key);
const log = (message) => process.stdout.write(`${message}\n`);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

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

/** Spawns a server, logs to bench/results/<name>.log, waits for GET /health to answer 200. */
async function startServer(name, entry, env) {
  const port = await freePort();
  const logFile = path.join(RESULTS_DIR, `${name}.log`);
  const fd = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, [...settings.nodeArgs, entry], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  const exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const server = { name, child, port, base: `http://127.0.0.1:${port}`, logFile, exited, alive: true };
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
  throw new Error(`${name} did not answer GET /health with 200 within 120 s. Last lines of ${logFile}:\n${tail(logFile)}`);
}

async function stopServer(server) {
  if (!server.alive) return;
  server.child.kill('SIGTERM');
  const stopped = await Promise.race([server.exited.then(() => true), sleep(10_000).then(() => false)]);
  if (!stopped) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
}

// ---------------------------------------------------------------- memory of a server process

function procStatusKb(pid, field) {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

/**
 * Peak RSS over one measurement: VmHWM is reset to the current RSS first (clear_refs "5"), so the
 * value read afterwards is the peak of this run, not of the process's life. VmRSS is also sampled
 * every 100 ms, in case the reset is not permitted.
 */
function watchMemory(pid) {
  let hwmReset = true;
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    hwmReset = false;
  }
  let sampled = procStatusKb(pid, 'VmRSS');
  const timer = setInterval(() => {
    try {
      sampled = Math.max(sampled, procStatusKb(pid, 'VmRSS'));
    } catch {
      // process gone; the caller notices
    }
  }, 100);
  return () => {
    clearInterval(timer);
    let hwm = 0;
    try {
      hwm = procStatusKb(pid, 'VmHWM');
    } catch {
      // process gone
    }
    return { peakKb: hwmReset ? Math.max(hwm, sampled) : sampled, source: hwmReset ? 'VmHWM' : 'VmRSS samples' };
  };
}

// ---------------------------------------------------------------- HTTP helpers

async function call(server, method, route, { body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(server.base + route, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

function describe(response) {
  return `${response.status} ${response.text.slice(0, 200)}`;
}

// ---------------------------------------------------------------- seeding

const COLLECTION_BODY = {
  name: 'Bench post',
  description: 'Created by the benchmark',
  numberOfClients: 3,
  numberOfUsers: 120,
  usage: 'benchmark',
  pricing: 19.99,
  endpoints: [1, 2, 3],
};

/** Creates what the scenarios need through the server's own API. Missing endpoints are recorded, not fatal. */
async function seed(server) {
  const tag = crypto.randomBytes(4).toString('hex');
  const credentials = { email: `bench.${tag}@example.com`, password: 'bench password 123' };
  const state = { credentials, problems: {} };

  const signup = await call(server, 'POST', '/api/v1/singup', {
    body: { firstName: 'Bench', lastName: 'Mark', role: 'admin', ...credentials },
  });
  if (signup.status !== 201) throw new Error(`${server.name}: signup failed: ${describe(signup)}`);
  const login = await call(server, 'POST', '/api/v1/login', { body: credentials });
  if (login.status !== 200 || !login.json?.accessToken) throw new Error(`${server.name}: login failed: ${describe(login)}`);
  state.token = login.json.accessToken;
  const token = state.token;

  const client = await call(server, 'POST', '/clients', { token, body: { name: 'Bench client', email: `client.${tag}@example.com` } });
  if (client.status !== 201 || !client.json?.id) {
    state.problems.channel = `POST /clients answered ${describe(client)}`;
  } else {
    const channel = await call(server, 'POST', '/channels', {
      token,
      body: {
        clientId: client.json.id,
        name: 'Bench channel',
        username: `bench-${tag}`,
        avatarUrl: 'https://cdn.example.com/avatars/bench.png',
        role: 'creator',
      },
    });
    if (channel.status !== 200 || !channel.json?.id) state.problems.channel = `POST /channels answered ${describe(channel)}`;
    else state.channelId = channel.json.id;
  }

  for (let i = 0; i < 50; i += 1) {
    const created = await call(server, 'POST', '/collections', {
      token,
      body: { ...COLLECTION_BODY, name: `Bench seed ${i}`, numberOfClients: i, endpoints: [i, i + 1] },
    });
    if (created.status !== 201) {
      state.problems.collections = `POST /collections answered ${describe(created)}`;
      break;
    }
  }

  const customer = await call(server, 'POST', '/v1/customers', { token, body: { email: `customer.${tag}@example.com` } });
  if (customer.status !== 201 || !customer.json?.data?.id) state.problems.payment = `POST /v1/customers answered ${describe(customer)}`;
  else state.customerId = customer.json.data.id;
  return state;
}

// ---------------------------------------------------------------- scenarios

const SCENARIOS = [
  {
    key: 'channel',
    title: 'GET /channels/:id',
    needs: 'channel',
    request: (s) => ({ method: 'GET', path: `/channels/${s.channelId}`, token: s.token, expect: 200 }),
  },
  {
    key: 'collections',
    title: 'GET /collections (50 docs, default page)',
    needs: 'collections',
    request: (s) => ({ method: 'GET', path: '/collections', token: s.token, expect: 200 }),
  },
  {
    key: 'create-collection',
    title: 'POST /collections',
    request: (s) => ({ method: 'POST', path: '/collections', token: s.token, body: COLLECTION_BODY, expect: 201 }),
  },
  {
    key: 'payment',
    title: 'POST /api/v1/payments',
    needs: 'payment',
    request: (s) => ({
      method: 'POST',
      path: '/api/v1/payments',
      token: s.token,
      body: { amount: 12.34, currency: 'usd', customer: s.customerId },
      expect: 201,
    }),
  },
  {
    key: 'login',
    title: 'POST /api/v1/login (bcrypt cost 12)',
    request: (s) => ({ method: 'POST', path: '/api/v1/login', body: s.credentials, expect: 200 }),
  },
];

function runAutocannon(server, request, duration, connections = settings.connections) {
  const headers = {};
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  return new Promise((done, fail) => {
    autocannon(
      {
        url: server.base + request.path,
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        connections,
        duration,
        timeout: 30,
      },
      (error, result) => (error ? fail(error) : done(result)),
    );
  });
}

/** One scenario on one server: a probe request, a warm-up, then the measured run. */
async function measure(server, request, connections = settings.connections) {
  if (!server.alive) return { failed: `${server.name} is not running` };
  const probe = await call(server, request.method, request.path, { body: request.body, token: request.token });
  if (probe.status !== request.expect) {
    return { failed: `${request.method} ${request.path} answered ${describe(probe)} (expected ${request.expect})` };
  }
  await runAutocannon(server, request, settings.warmup, connections);
  // Requests the warm-up left in flight still run on the server; one more request, answered after
  // them, lets that backlog drain before the measured run starts.
  await call(server, request.method, request.path, { body: request.body, token: request.token });
  const stopWatch = watchMemory(server.child.pid);
  const result = await runAutocannon(server, request, settings.duration, connections);
  const memory = stopWatch();
  if (!server.alive) return { failed: `${server.name} exited during the run. Log:\n${tail(server.logFile)}` };
  const codes = Object.entries(result.statusCodeStats ?? {})
    .map(([code, { count }]) => `${code}x${count}`)
    .join(' ');
  const bad = result.non2xx + result.errors + result.timeouts;
  const completed = result.requests.total;
  return {
    // Completed requests over the run's real duration: per-second averages read 0 when requests take over a second.
    rps: completed / (result.duration || settings.duration),
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytesPerResponse: result.requests.total > 0 ? result.throughput.total / result.requests.total : 0,
    peakKb: memory.peakKb,
    memorySource: memory.source,
    codes,
    failed:
      bad > 0
        ? `${bad} of ${completed + result.errors} requests failed (${codes}; errors ${result.errors}, timeouts ${result.timeouts})`
        : completed === 0 && !request.mayBeSlow
          ? `no request completed within the ${settings.duration} s run`
          : undefined,
    noneCompleted: completed === 0,
    probe,
  };
}

/** Median time of requests sent one at a time, on an otherwise idle server. */
async function sequentialLatency(server, request, count = 5) {
  const times = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    const response = await call(server, request.method, request.path, { body: request.body, token: request.token });
    times.push(performance.now() - started);
    if (response.status !== request.expect) return undefined;
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

// ---------------------------------------------------------------- response shape check

function shape(value) {
  if (Array.isArray(value)) return value.length > 0 ? [shape(value[0])] : [];
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, shape(value[key])]));
  }
  return value === null ? 'null' : typeof value;
}

function shapeDifferences(a, b, where = '') {
  const sa = shape(a);
  const sb = shape(b);
  const out = [];
  const walk = (x, y, at) => {
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) {
      if (x !== y && x !== 'null' && y !== 'null') out.push(`${at || '(root)'}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
      return;
    }
    const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
    for (const key of keys) {
      if (!(key in x)) out.push(`${at}${at ? '.' : ''}${key}: only in baseline`);
      else if (!(key in y)) out.push(`${at}${at ? '.' : ''}${key}: only in service`);
      else walk(x[key], y[key], `${at}${at ? '.' : ''}${key}`);
    }
  };
  walk(sa, sb, where);
  return out;
}

// ---------------------------------------------------------------- bounds

function bulkCollections(count) {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const at = new Date(now - (count - i) * 1000);
    return {
      name: `Bench bulk ${i}`,
      description: 'Bulk-inserted by the benchmark to measure list bounds',
      numberOfClients: i % 50,
      numberOfUsers: i % 1000,
      usage: 'benchmark',
      pricing: (i % 100) + 0.99,
      endpoints: [i % 7, i % 11, i % 13],
      deletedAt: null,
      createdAt: at,
      updatedAt: at,
    };
  });
}

async function insertInBatches(collection, documents, size = 1000) {
  for (let i = 0; i < documents.length; i += size) {
    await collection.insertMany(documents.slice(i, i + size), { ordered: false });
  }
}

// ---------------------------------------------------------------- output

const fmt = {
  rps: (r) => (r && !r.failed ? r.rps.toFixed(r.rps < 100 ? 1 : 0) : '-'),
  latOrNone: (r) => (r?.noneCompleted && !r.failed ? `none in ${settings.duration} s` : fmt.lat(r)),
  ms: (value) => (value === undefined ? '-' : value.toFixed(1)),
  lat: (r) => (r && !r.failed ? `${r.p50} / ${r.p99}` : '-'),
  mb: (r) => (r && r.peakKb ? `${(r.peakKb / 1024).toFixed(0)} MB` : '-'),
  ratio: (a, b) => (a && b && !a.failed && !b.failed && b.rps > 0 ? `${(a.rps / b.rps).toFixed(2)}` : '-'),
  bytes: (r) => (r?.probe ? `${(Buffer.byteLength(r.probe.text) / 1024).toFixed(1)} KiB` : '-'),
};

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) => cells.map((cell, i) => String(cell).padEnd(widths[i])).join('  ');
  const text = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
  const markdown = [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
  return { text, markdown };
}

function machine() {
  const cpus = os.cpus();
  return {
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    cpu: cpus[0]?.model ?? 'unknown',
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

// ---------------------------------------------------------------- main

async function main() {
  for (const file of [SERVICE_ENTRY, EMBEDDED_DB]) {
    if (!fs.existsSync(file)) throw new Error(`${path.relative(ROOT, file)} is missing: build first (npm run bench builds)`);
  }
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const info = machine();
  const loadBefore = os.loadavg().map((n) => n.toFixed(2)).join(' ');

  log('Benchmark: service (dist/main.js) vs bare Fastify + mongodb baseline');
  log(`Machine: ${info.cores} cores, ${info.cpu}, ${info.memory} RAM, Node ${info.node}, ${info.platform}`);
  log(`Load average before: ${loadBefore}`);
  log(
    `Runs: ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s measured per scenario and server; ` +
      `service NODE_ENV=production LOG_LEVEL=${settings.logLevel} (logs to bench/results/service.log); bcrypt cost ${settings.bcryptRounds} on both`,
  );
  log('Load generator, service, baseline and database all share this machine (autocannon runs in this process).');

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-bench-'));
  cleanups.push(() => fs.rmSync(tmp, { recursive: true, force: true }));

  fs.rmSync(DIST_SNAPSHOT, { recursive: true, force: true });
  cleanups.push(() => fs.rmSync(DIST_SNAPSHOT, { recursive: true, force: true }));
  fs.cpSync(DIST, DIST_SNAPSHOT, { recursive: true });
  const { startEmbeddedDatabase } = require(EMBEDDED_DB);
  const database = await startEmbeddedDatabase({
    dataDir: path.join(tmp, 'db'),
    ferretdbBin: process.env.FERRETDB_BIN,
    log: (message) => log(message),
  });
  cleanups.push(() => database.stop());
  log(`Database: embedded ${database.engine} at ${database.uri} (databases bench_service, bench_baseline)`);

  const mongo = new MongoClient(database.uri, { serverSelectionTimeoutMS: 5_000 });
  await mongo.connect();
  cleanups.push(() => mongo.close());

  const secret = crypto.randomBytes(32).toString('hex');
  const shared = { JWT_SECRET: secret, BCRYPT_ROUNDS: String(settings.bcryptRounds) };
  const service = await startServer('service', path.join(DIST_SNAPSHOT, 'main.js'), {
    ...shared,
    NODE_ENV: 'production',
    LOG_LEVEL: settings.logLevel,
    MONGODB_URI: `${database.uri}bench_service`,
  });
  const baseline = await startServer('baseline', BASELINE_ENTRY, {
    ...shared,
    NODE_ENV: 'production',
    MONGODB_URI: `${database.uri}bench_baseline`,
  });
  const servers = [service, baseline];
  const dbs = { service: mongo.db('bench_service'), baseline: mongo.db('bench_baseline') };
  log(`Started service on :${service.port} (pid ${service.child.pid}) and baseline on :${baseline.port} (pid ${baseline.child.pid})`);

  const seeds = {};
  for (const server of servers) seeds[server.name] = await seed(server);
  log('Seeded both: an admin user, a client and a channel, 50 collections, a customer.');

  const results = [];
  const shapeNotes = [];
  for (const scenario of SCENARIOS) {
    if (!wanted(scenario.key)) continue;
    const row = { scenario, service: undefined, baseline: undefined };
    for (const server of servers) {
      const state = seeds[server.name];
      const problem = scenario.needs && state.problems[scenario.needs];
      if (problem) {
        row[server.name] = { failed: `not measured: seeding failed, ${problem}` };
        continue;
      }
      log(`  ${scenario.title} on ${server.name}...`);
      row[server.name] = await measure(server, scenario.request(state));
    }
    const [a, b] = [row.service, row.baseline];
    if (a?.probe?.json !== undefined && b?.probe?.json !== undefined) {
      const differences = shapeDifferences(a.probe.json, b.probe.json);
      if (differences.length > 0) shapeNotes.push(`${scenario.title}: ${differences.join('; ')}`);
    }
    results.push(row);
  }

  // Bounds: the same list with limit=500 over 50 documents, then over 50 + BENCH_BOUNDS_SEED.
  const bounds = [];
  if (wanted('bounds')) {
    // Few connections: over a large collection one request can take seconds on FerretDB.
    const request = (state) => ({ method: 'GET', path: '/collections?limit=500', token: state.token, expect: 200, mayBeSlow: true });
    const small = { label: 'GET /collections?limit=500, 50 documents' };
    const large = { label: `GET /collections?limit=500, ${50 + settings.boundsSeed} documents` };
    for (const server of servers) {
      const collections = dbs[server.name].collection('collections');
      // Documents left by the POST /collections scenario go, so the small case has its 50 seeded ones.
      await collections.deleteMany({ name: COLLECTION_BODY.name });
      log(`  bounds, ${await collections.countDocuments({})} documents, on ${server.name}...`);
      small[server.name] = await measure(server, request(seeds[server.name]), settings.boundsConnections);
      small[`${server.name}Alone`] = await sequentialLatency(server, request(seeds[server.name]));
    }
    log(`  bulk-inserting ${settings.boundsSeed} collections into each database...`);
    const documents = bulkCollections(settings.boundsSeed);
    for (const server of servers) {
      await insertInBatches(dbs[server.name].collection('collections'), documents.map((d) => ({ ...d })));
    }
    for (const server of servers) {
      log(`  bounds, ${await dbs[server.name].collection('collections').countDocuments({})} documents, on ${server.name}...`);
      large[`${server.name}Alone`] = await sequentialLatency(server, request(seeds[server.name]));
      large[server.name] = await measure(server, request(seeds[server.name]), settings.boundsConnections);
    }
    for (const row of [small, large]) {
      const total = row.service?.probe?.headers.get('x-total-count');
      row.returned = Array.isArray(row.service?.probe?.json) ? row.service.probe.json.length : '-';
      row.total = total ?? '-';
    }
    bounds.push(small, large);
  }

  const loadAfter = os.loadavg().map((n) => n.toFixed(2)).join(' ');

  // ---- report
  const main = table(
    ['Scenario', 'service req/s', 'baseline req/s', 'service/baseline', 'service p50/p99 ms', 'baseline p50/p99 ms', 'service peak RSS', 'baseline peak RSS'],
    results.map(({ scenario, service: s, baseline: b }) => [
      scenario.title,
      fmt.rps(s),
      fmt.rps(b),
      fmt.ratio(s, b),
      fmt.lat(s),
      fmt.lat(b),
      fmt.mb(s),
      fmt.mb(b),
    ]),
  );
  const boundsTable = table(
    [
      'Bounds (measured, not asserted)',
      'returned / X-Total-Count',
      'JSON body',
      'service alone ms',
      'service req/s',
      'service p50/p99 ms',
      'baseline alone ms',
      'baseline req/s',
      'baseline p50/p99 ms',
      'service peak RSS',
      'baseline peak RSS',
    ],
    bounds.map((row) => [
      row.label,
      `${row.returned} / ${row.total}`,
      fmt.bytes(row.service),
      fmt.ms(row.serviceAlone),
      fmt.rps(row.service),
      fmt.latOrNone(row.service),
      fmt.ms(row.baselineAlone),
      fmt.rps(row.baseline),
      fmt.latOrNone(row.baseline),
      fmt.mb(row.service),
      fmt.mb(row.baseline),
    ]),
  );
  const failures = [];
  for (const { scenario, service: s, baseline: b } of results) {
    if (s?.failed) failures.push(`${scenario.title} on service: ${s.failed}`);
    if (b?.failed) failures.push(`${scenario.title} on baseline: ${b.failed}`);
  }
  for (const row of bounds) {
    if (row.service?.failed) failures.push(`${row.label} on service: ${row.service.failed}`);
    if (row.baseline?.failed) failures.push(`${row.label} on baseline: ${row.baseline.failed}`);
  }
  const sizes = results
    .filter(({ service: s, baseline: b }) => s?.bytesPerResponse && b?.bytesPerResponse)
    .map(({ scenario, service: s, baseline: b }) => `${scenario.title} ${s.bytesPerResponse.toFixed(0)} vs ${b.bytesPerResponse.toFixed(0)}`);
  const memorySource = results.concat(bounds).map((r) => r.service?.memorySource).find(Boolean) ?? 'VmHWM';
  const notes = [
    `Peak RSS: per measured run, from /proc/<pid>/status (${memorySource}, reset before each run).`,
    `Bounds: "alone" is the median of 5 requests sent one at a time; req/s and p50/p99 come from a run with ${settings.boundsConnections} connections.`,
    `Latency from autocannon, in ms. ${settings.connections} connections, ${settings.duration} s after a ${settings.warmup} s warm-up.`,
    'Client (autocannon, in the orchestrating Node process), service, baseline and database share the same cores.',
    `Load average before ${loadBefore}, after ${loadAfter}.`,
  ];
  if (sizes.length > 0) notes.push(`Bytes per response, headers included, service vs baseline: ${sizes.join('; ')}.`);

  log('');
  log(main.text);
  if (bounds.length > 0) {
    log('');
    log(boundsTable.text);
  }
  log('');
  for (const note of notes) log(note);
  if (shapeNotes.length > 0) {
    log('Response shape differences between service and baseline:');
    for (const note of shapeNotes) log(`  - ${note}`);
  } else {
    log('Response shapes: service and baseline bodies have the same fields in every measured scenario.');
  }
  if (failures.length > 0) {
    log('');
    log('FAILED:');
    for (const failure of failures) log(`  - ${failure}`);
  }

  const markdown = [
    '# Benchmark results',
    '',
    `Generated ${new Date().toISOString()} by \`npm run bench\`.`,
    '',
    `Machine: ${info.cores} cores, ${info.cpu}, ${info.memory} RAM, Node ${info.node}, ${info.platform}.`,
    `Database: embedded ${database.engine}. Service: NODE_ENV=production, LOG_LEVEL=${settings.logLevel}. bcrypt cost ${settings.bcryptRounds} on both servers.`,
    '',
    main.markdown,
    '',
    ...(bounds.length > 0 ? [boundsTable.markdown, ''] : []),
    ...notes.map((note) => `- ${note}`),
    ...(shapeNotes.length > 0 ? ['', 'Response shape differences:', ...shapeNotes.map((note) => `- ${note}`)] : []),
    ...(failures.length > 0 ? ['', '**Failed:**', ...failures.map((failure) => `- ${failure.replace(/\n/g, ' ')}`)] : []),
    '',
  ].join('\n');
  fs.writeFileSync(path.join(RESULTS_DIR, 'latest.md'), markdown);
  log(`\nWritten to ${path.relative(ROOT, path.join(RESULTS_DIR, 'latest.md'))}`);
  return failures.length === 0;
}

main()
  .then(async (ok) => {
    await cleanup();
    process.exit(ok ? 0 : 1);
  })
  .catch(async (error) => {
    process.stderr.write(`\nBenchmark failed: ${error.stack ?? error}\n`);
    await cleanup();
    process.exit(1);
  });
