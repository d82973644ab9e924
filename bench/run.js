'use strict';
/**
 * Benchmark of the built service against a bare Fastify + mongodb baseline (bench/baseline/server.js).
 *
 *   npm run bench                       (builds, then runs this file)
 *   node bench/run.js                   (uses the existing dist/)
 *
 * Starts one throwaway database server (the service's own embedded-database provisioning), the
 * service (dist/main.js, NODE_ENV=production) and the baseline on it, each with its own database,
 * seeds both, checks that both answer every scenario with bodies of the same shape, then measures
 * each scenario in alternating rounds (service, baseline, service, baseline, ...; the side that
 * starts alternates from one scenario to the next) with autocannon from this process over loopback.
 * Prints a table, writes bench/results/latest.md and bench/results/latest.json. Everything it starts
 * is stopped, also on failure; the exit code is non-zero when anything failed.
 *
 * Environment (bench/README.md has the full list): BENCH_ROUNDS (4), BENCH_SECONDS (5),
 * BENCH_WARMUP (2), BENCH_CONNECTIONS (10), BENCH_ONLY (comma-separated substrings of scenario keys
 * or titles, "bounds" for the bounds runs), BENCH_NODE_ARGS (both servers), BENCH_SERVICE_NODE_ARGS,
 * BENCH_BASELINE_NODE_ARGS, BENCH_PROFILE (service|baseline|both: CPU profiles, summarised per
 * scenario), BENCH_HEAP_SNAPSHOT (1: a heap snapshot of the service under load per scenario),
 * BENCH_LOG_LEVEL, BENCH_BCRYPT_ROUNDS, BENCH_BOUNDS_SEED, BENCH_BOUNDS_CONNECTIONS, BENCH_DIST.
 */
const { spawn, execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');
const { MongoClient, ObjectId } = require('mongodb');
const { analyseProfile, formatAnalysis } = require('./cpuprofile');
const { measureWebhookCost } = require('./webhooks');

const ROOT = path.resolve(__dirname, '..');
const RESULTS_DIR = path.join(__dirname, 'results');
const PROFILE_DIR = path.join(RESULTS_DIR, 'profiles');
const DIST = path.resolve(ROOT, process.env.BENCH_DIST || 'dist');
const SERVICE_ENTRY = path.join(DIST, 'main.js');
const EMBEDDED_DB = path.join(DIST, 'database', 'embedded-database.js');
// The service runs from a copy of dist/, so a rebuild during the run cannot pull it away.
const DIST_SNAPSHOT = path.join(RESULTS_DIR, 'dist-snapshot');
const BASELINE_ENTRY = path.join(__dirname, 'baseline', 'server.js');

const words = (name) => (process.env[name] || '').split(/\s+/).filter(Boolean);

const settings = {
  rounds: positiveInteger('BENCH_ROUNDS', 4),
  seconds: positiveNumber('BENCH_SECONDS', 5),
  warmup: positiveNumber('BENCH_WARMUP', 2),
  connections: positiveInteger('BENCH_CONNECTIONS', 10),
  logLevel: process.env.BENCH_LOG_LEVEL || 'info',
  bcryptRounds: positiveInteger('BENCH_BCRYPT_ROUNDS', 12),
  boundsSeed: positiveInteger('BENCH_BOUNDS_SEED', 10_000),
  boundsConnections: positiveInteger('BENCH_BOUNDS_CONNECTIONS', 2),
  // Extra Node options: for both servers, then for one side only (e.g. "--cpu-prof --cpu-prof-dir=bench/results/profiles").
  nodeArgs: words('BENCH_NODE_ARGS'),
  serviceNodeArgs: words('BENCH_SERVICE_NODE_ARGS'),
  baselineNodeArgs: words('BENCH_BASELINE_NODE_ARGS'),
  profile: profileSides(process.env.BENCH_PROFILE),
  heapSnapshot: ['1', 'true', 'yes'].includes((process.env.BENCH_HEAP_SNAPSHOT || '').toLowerCase()),
  only: (process.env.BENCH_ONLY || '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean),
  /** Members of the seeded account, the admin included; login rotates over them. */
  members: 10,
  customers: 25,
  shapeSamples: 3,
};

function positiveNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
}

function positiveInteger(name, fallback) {
  const value = positiveNumber(name, fallback);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number, got ${value}`);
  return value;
}

function profileSides(raw) {
  const value = (raw || '').trim().toLowerCase();
  if (!value || value === '0' || value === 'none') return [];
  if (value === 'both') return ['service', 'baseline'];
  if (value === 'service' || value === 'baseline' || value === '1') return [value === '1' ? 'service' : value];
  throw new Error(`BENCH_PROFILE must be service, baseline or both, got ${raw}`);
}

/** BENCH_ONLY: comma-separated, case-insensitive substrings of a scenario's key or title. */
const wanted = (key, title = key) =>
  settings.only.length === 0 || settings.only.some((part) => key.toLowerCase().includes(part) || title.toLowerCase().includes(part));
const log = (message) => process.stdout.write(`${message}\n`);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
/** The monotonic clock the V8 CPU profiler stamps its samples with, in microseconds. */
const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

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
 * The Node options the service runs with in production: those `npm run start:prod` puts between
 * `node` and `dist/main.js` (the Dockerfile's CMD has the same), so the service is measured as it is
 * deployed. BENCH_NODE_ARGS and BENCH_SERVICE_NODE_ARGS come after them (for V8 flags, the last wins).
 */
function productionNodeArgs() {
  const script = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts ?? {})['start:prod'] ?? '';
  const match = /^node((?:\s+--\S+)*)\s+dist\/main\.js$/.exec(script.trim());
  if (!match) throw new Error(`package.json's start:prod is not "node [--options] dist/main.js": ${script}`);
  const args = match[1].split(/\s+/).filter(Boolean);
  const cmd = /^CMD\s+(\[.*\])\s*$/m.exec(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
  const image = cmd ? JSON.parse(cmd[1]) : [];
  if (JSON.stringify(image) !== JSON.stringify(['node', ...args, 'dist/main.js'])) {
    throw new Error(`The Dockerfile's CMD (${cmd?.[1]}) and start:prod (${script}) run the service with different Node options`);
  }
  return args;
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
  throw new Error(`${name} did not answer GET /health with 200 within 120 s. Last lines of ${logFile}:\n${tail(logFile)}`);
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

// ---------------------------------------------------------------- CPU of a round

/** utime + stime, in clock ticks, from a /proc/.../stat line (fields 14 and 15, after the command's parentheses). */
function statTicks(file) {
  const text = fs.readFileSync(file, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Busy ticks of the whole machine (all cores, idle and iowait left out), from /proc/stat. */
function machineBusyTicks() {
  const [, ...values] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = values;
  return user + nice + system + irq + softirq + steal;
}

/**
 * CPU spent during one measurement, in clock ticks: the server process (every thread: the main one,
 * the garbage collector's helpers, libuv's pool), its main thread alone, and the whole machine
 * (database server and load generator included). Divided by the requests completed, they say where
 * a difference in throughput comes from when the main thread's own CPU does not.
 */
function watchCpu(pid) {
  const read = () => {
    try {
      return { process: statTicks(`/proc/${pid}/stat`), main: statTicks(`/proc/${pid}/task/${pid}/stat`), machine: machineBusyTicks() };
    } catch {
      return undefined;
    }
  };
  const before = read();
  return () => {
    const after = read();
    if (!before || !after) return undefined;
    return { process: after.process - before.process, main: after.main - before.main, machine: after.machine - before.machine };
  };
}

const TICKS_PER_SECOND = 100;

// ---------------------------------------------------------------- HTTP helpers

async function call(server, method, route, { body, token, headers: extra = {} } = {}) {
  const headers = { ...extra };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(server.base + route, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
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
  return `${response.status} ${response.text.slice(0, 300)}`;
}

async function expectStatus(server, what, status, promise) {
  const response = await promise;
  if (response.status !== status) throw new Error(`${server.name}: ${what} answered ${describe(response)} (expected ${status})`);
  return response;
}

// ---------------------------------------------------------------- seeding

const PASSWORD = 'bench password 123';
const COLLECTION_BODY = {
  name: 'Bench post',
  description: 'Created by the benchmark',
  numberOfClients: 3,
  numberOfUsers: 120,
  usage: 'benchmark',
  pricing: 19.99,
  endpoints: [1, 2, 3],
};

/**
 * What every scenario needs, made through the server's own HTTP API where it has the route: the
 * admin (signup, login), a client and a channel, 50 collections, customers, and the members, the
 * saved card and the API key in the way each side can (see `seedMembers`, `seedCard`, `seedApiKey`).
 */
async function seed(server, db) {
  const tag = crypto.randomBytes(4).toString('hex');
  const state = { tag, server, db };
  const admin = { email: `bench.admin.${tag}@example.com`, password: PASSWORD };
  const signup = await expectStatus(
    server,
    'signup',
    201,
    call(server, 'POST', '/api/v1/singup', {
      body: { firstName: 'Bench', lastName: 'Admin', role: 'admin', accountName: 'Bench account', ...admin },
    }),
  );
  state.accountId = signup.json.data.account.id;
  state.projectId = signup.json.data.account.defaultProjectId;
  const login = await expectStatus(server, 'login', 200, call(server, 'POST', '/api/v1/login', { body: admin }));
  state.token = login.json.accessToken;
  state.logins = [admin];
  const token = state.token;

  await seedMembers(state);

  const client = await expectStatus(
    server,
    'POST /clients',
    201,
    call(server, 'POST', '/clients', { token, body: { name: 'Bench client', email: `client.${tag}@example.com` } }),
  );
  const channel = await expectStatus(
    server,
    'POST /channels',
    200,
    call(server, 'POST', '/channels', {
      token,
      body: {
        clientId: client.json.id,
        name: 'Bench channel',
        username: `bench-${tag}`,
        avatarUrl: 'https://cdn.example.com/avatars/bench.png',
        role: 'creator',
      },
    }),
  );
  state.channelId = channel.json.id;

  for (let i = 0; i < 50; i += 1) {
    await expectStatus(
      server,
      'POST /collections',
      201,
      call(server, 'POST', '/collections', { token, body: { ...COLLECTION_BODY, name: `Bench seed ${i}`, numberOfClients: i, endpoints: [i, i + 1] } }),
    );
  }

  state.customerIds = [];
  for (let i = 0; i < settings.customers; i += 1) {
    const customer = await expectStatus(
      server,
      'POST /v1/customers',
      201,
      call(server, 'POST', '/v1/customers', {
        token,
        body: { email: `customer.${i}.${tag}@example.com`, firstName: 'Bench', lastName: `Customer ${i}`, country: 'US', phone: '+1 415 555 0100' },
      }),
    );
    state.customerIds.push(customer.json.data.id);
  }
  // The newest customer pays (it leads the list page) and reads as the API key's customer.
  state.customerId = state.customerIds[state.customerIds.length - 1];
  await seedCard(state);
  await seedApiKey(state);
  return state;
}

/**
 * Members of the admin's account. The service invites them and they sign up with the invitation;
 * the baseline has no invitation routes, so its members sign up (each then owns an account of
 * their own) and the harness adds their membership of the admin's account and makes it their
 * default, as joining by invitation does.
 */
async function seedMembers(state) {
  const { server, db, tag, token, accountId } = state;
  for (let i = 1; i < settings.members; i += 1) {
    const member = { email: `bench.member.${i}.${tag}@example.com`, password: PASSWORD };
    const person = { firstName: 'Bench', lastName: `Member ${i}`, ...member };
    if (server.name === 'service') {
      const invitation = await expectStatus(
        server,
        'POST /api/v1/accounts/:id/invitations',
        201,
        call(server, 'POST', `/api/v1/accounts/${accountId}/invitations`, { token, body: { email: member.email, role: 'developer' } }),
      );
      await expectStatus(server, 'signup by invitation', 201, call(server, 'POST', '/api/v1/singup', { body: { ...person, invitationToken: invitation.json.data.token } }));
    } else {
      const signup = await expectStatus(server, 'signup', 201, call(server, 'POST', '/api/v1/singup', { body: { ...person, role: 'developer' } }));
      const userId = new ObjectId(signup.json.data.user.id);
      // The account the signup made goes again, so both databases hold the same accounts, projects
      // and memberships (FerretDB scans small collections: their sizes should match).
      const own = new ObjectId(signup.json.data.account.id);
      await db.collection('accounts').deleteOne({ _id: own });
      await db.collection('platform_projects').deleteMany({ accountId: own });
      await db.collection('memberships').deleteMany({ accountId: own });
      const now = new Date();
      await db.collection('memberships').insertOne({ accountId: new ObjectId(accountId), userId, role: 'developer', owner: false, createdAt: now, updatedAt: now });
      await db.collection('users').updateOne({ _id: userId }, { $set: { defaultCompany: accountId } });
    }
    state.logins.push(member);
  }
}

/**
 * The paying customer's default card, so `confirm: true` charges it (status `succeeded`). The
 * service takes a test card through POST /v1/cards; the baseline has no card routes, so the harness
 * stores the same card document (Visa 4242, keyed fingerprint) and sets it as the default.
 */
async function seedCard(state) {
  const { server, db, token, customerId, projectId } = state;
  const expYear = new Date().getUTCFullYear() + 5;
  if (server.name === 'service') {
    await expectStatus(
      server,
      'POST /v1/cards',
      201,
      call(server, 'POST', '/v1/cards', { token, body: { customer: customerId, cardNumber: '4242424242424242', expMonth: '12', expYear: String(expYear), cvc: '123' } }),
    );
    return;
  }
  const now = new Date();
  const { insertedId } = await db.collection('cards').insertOne({
    customer: new ObjectId(customerId),
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    last4: '4242',
    expMonth: 12,
    expYear,
    fingerprint: crypto.createHmac('sha256', state.tag).update('4242424242424242').digest('hex'),
    failureCode: null,
    projectId: new ObjectId(projectId),
    createdAt: now,
    updatedAt: now,
  });
  await db.collection('customers').updateOne({ _id: new ObjectId(customerId) }, { $set: { defaultMethod: String(insertedId) } });
}

/**
 * An API key of the default project. The service issues it through its route; the baseline has no
 * key routes, so the harness stores a key of the same form as the service stores one (its SHA-256,
 * its first 12 characters), every API enabled in the project.
 */
async function seedApiKey(state) {
  const { server, db, token, projectId, accountId } = state;
  if (server.name === 'service') {
    const created = await expectStatus(
      server,
      'POST /api/v1/platform/projects/:id/keys',
      201,
      call(server, 'POST', `/api/v1/platform/projects/${projectId}/keys`, { token, body: { name: 'Bench key' } }),
    );
    state.apiKey = created.json.data.key;
    return;
  }
  const key = `sk_test_${crypto.randomBytes(32).toString('base64url')}`;
  const now = new Date();
  await db.collection('api_keys').insertOne({
    hash: crypto.createHash('sha256').update(key, 'utf8').digest('hex'),
    start: key.slice(0, 12),
    name: 'Bench key',
    accountId: new ObjectId(accountId),
    projectId: new ObjectId(projectId),
    scopes: null,
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    createdAt: now,
    updatedAt: now,
  });
  state.apiKey = key;
}

// ---------------------------------------------------------------- scenarios

/**
 * A scenario gives, per server, the request to send: method, path, bearer token, body (or
 * `bodies`, taken in turn), `freshIdempotencyKey` (a new Idempotency-Key on every request), the
 * expected status; `check` (what the body must say beyond its shape, the same on both sides) and
 * `reset` (run on each side's database before its warm-up and before each of its rounds).
 */
const SCENARIOS = [
  {
    key: 'channel',
    title: 'GET /channels/:id',
    request: (s) => ({ method: 'GET', path: `/channels/${s.channelId}`, token: s.token, expect: 200 }),
  },
  {
    key: 'collections',
    title: 'GET /collections (50 docs, default page)',
    request: (s) => ({ method: 'GET', path: '/collections', token: s.token, expect: 200 }),
    check: (response) =>
      Array.isArray(response.json) && response.json.length === 50 && response.headers.get('x-total-count') === '50'
        ? undefined
        : `expected 50 collections and X-Total-Count 50, got ${Array.isArray(response.json) ? response.json.length : typeof response.json} and ${response.headers.get('x-total-count')}`,
  },
  {
    key: 'create-collection',
    title: 'POST /collections',
    request: (s) => ({ method: 'POST', path: '/collections', token: s.token, body: COLLECTION_BODY, expect: 201 }),
  },
  {
    key: 'payment',
    title: 'POST /api/v1/payments',
    request: (s) => ({ method: 'POST', path: '/api/v1/payments', token: s.token, body: { amount: 12.34, currency: 'usd', customer: s.customerId }, expect: 201 }),
    check: (response) => (response.json?.status === 'requires_confirmation' ? undefined : `status ${response.json?.status}`),
  },
  {
    key: 'login',
    title: `POST /api/v1/login (bcrypt cost ${settings.bcryptRounds})`,
    // Rotates over the account's members: one email logging in from 10 connections at once would be
    // throttled (the limiter counts the attempts in flight: 5 per email).
    request: (s) => ({ method: 'POST', path: '/api/v1/login', bodies: s.logins, expect: 200 }),
  },
  {
    key: 'customer-key',
    title: 'GET /v1/customers/:id (API key)',
    request: (s) => ({ method: 'GET', path: `/v1/customers/${s.customerId}`, token: s.apiKey, expect: 200 }),
  },
  {
    key: 'customers',
    title: 'GET /v1/customers (page of 20)',
    request: (s) => ({ method: 'GET', path: '/v1/customers', token: s.token, expect: 200 }),
    check: (response) =>
      response.json?.data?.length === 20 && response.json.hasMore === true ? undefined : `expected 20 customers and hasMore, got ${response.text.slice(0, 80)}`,
  },
  {
    key: 'members',
    title: 'GET /api/v1/accounts/:id/members',
    request: (s) => ({ method: 'GET', path: `/api/v1/accounts/${s.accountId}/members`, token: s.token, expect: 200 }),
    check: (response) => (response.json?.data?.length === settings.members ? undefined : `expected ${settings.members} members, got ${response.json?.data?.length}`),
  },
  {
    key: 'payment-confirm',
    title: 'POST /api/v1/payments (confirm, Idempotency-Key)',
    request: (s) => ({
      method: 'POST',
      path: '/api/v1/payments',
      token: s.token,
      body: { amount: 12.34, currency: 'usd', customer: s.customerId, confirm: true },
      freshIdempotencyKey: true,
      expect: 201,
    }),
    // Every request leaves a payment and two key records, and on FerretDB (SQLite) some reads and
    // updates scan their collection: each round starts from none of them, on both sides, so rounds
    // compare like with like (bench/README.md, "Where the time goes").
    reset: async (db) => {
      await db.collection('idempotency_keys').deleteMany({});
      await db.collection('payment_keys').deleteMany({});
      await db.collection('payments').deleteMany({});
    },
    check: (response) => (response.json?.status === 'succeeded' ? undefined : `status ${response.json?.status} (expected succeeded: the default card is charged)`),
  },
];

let rotation = 0;

/** One concrete request of a scenario: the next body of a rotation, a fresh idempotency key. */
function instance(request) {
  const headers = {};
  if (request.freshIdempotencyKey) headers['idempotency-key'] = `bench-${crypto.randomUUID()}`;
  const body = request.bodies ? request.bodies[rotation++ % request.bodies.length] : request.body;
  return { body, headers };
}

async function send(server, request) {
  const { body, headers } = instance(request);
  return call(server, request.method, request.path, { body, token: request.token, headers });
}

function runAutocannon(server, request, duration, connections = settings.connections) {
  const headers = {};
  if (request.body !== undefined || request.bodies) headers['content-type'] = 'application/json';
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  // autocannon puts a fresh id in place of [<id>] in every request it sends.
  if (request.freshIdempotencyKey) headers['idempotency-key'] = 'bench-[<id>]';
  const options = {
    url: server.base + request.path,
    method: request.method,
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    connections,
    duration,
    timeout: 30,
    idReplacement: Boolean(request.freshIdempotencyKey),
  };
  if (request.bodies) {
    const bodies = request.bodies.map((body) => JSON.stringify(body));
    let next = 0;
    options.requests = [{ setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }) }];
  }
  return new Promise((done, fail) => {
    autocannon(options, (error, result) => (error ? fail(error) : done(result)));
  });
}

/** One measured round on one server. */
async function round(server, request, seconds, connections = settings.connections) {
  if (!server.alive) return { failed: `${server.name} is not running` };
  // Requests an earlier run left in flight still run on the server; one more request, answered
  // after them, lets that backlog drain before this run starts.
  await send(server, request);
  const stopWatch = watchMemory(server.child.pid);
  const stopCpu = watchCpu(server.child.pid);
  const startedAt = monotonicMicros();
  const result = await runAutocannon(server, request, seconds, connections);
  const endedAt = monotonicMicros();
  const memory = stopWatch();
  const cpu = stopCpu();
  if (!server.alive) return { failed: `${server.name} exited during the run. Log:\n${tail(server.logFile)}` };
  const codes = Object.entries(result.statusCodeStats ?? {})
    .map(([code, { count }]) => `${code}x${count}`)
    .join(' ');
  const bad = result.non2xx + result.errors + result.timeouts;
  const completed = result.requests.total;
  return {
    // Completed requests over the run's real duration: per-second averages read 0 when requests take over a second.
    rps: completed / (result.duration || seconds),
    total: completed,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytesPerResponse: completed > 0 ? result.throughput.total / completed : 0,
    peakKb: memory.peakKb,
    memorySource: memory.source,
    cpuMicrosPerRequest: cpu && completed > 0 ? perRequestMicros(cpu, completed) : undefined,
    window: { startedAt, endedAt },
    codes,
    failed:
      bad > 0
        ? `${bad} of ${completed + result.errors} requests failed (${codes}; errors ${result.errors}, timeouts ${result.timeouts})`
        : completed === 0 && !request.mayBeSlow
          ? `no request completed within the ${seconds} s run`
          : undefined,
    noneCompleted: completed === 0,
  };
}

function perRequestMicros(ticks, requests) {
  const micros = (value) => Math.round((value / TICKS_PER_SECOND) * 1e6 / requests);
  return { process: micros(ticks.process), main: micros(ticks.main), machine: micros(ticks.machine) };
}

/** Median time of requests sent one at a time, on an otherwise idle server. */
async function sequentialLatency(server, request, count = 5) {
  const times = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    const response = await send(server, request);
    times.push(performance.now() - started);
    if (response.status !== request.expect) return undefined;
  }
  return median(times);
}

// ---------------------------------------------------------------- response shape check

/**
 * The type of every field: 'string', 'number', 'boolean', 'null', objects field by field, arrays as
 * the set of their elements' shapes (every element, not only the first).
 */
function shapeOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const elements = new Map();
    for (const element of value) {
      const shape = shapeOf(element);
      elements.set(JSON.stringify(shape), shape);
    }
    return { '[]': [...elements.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, shape]) => shape) };
  }
  if (typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((key) => [key, shapeOf(value[key])]));
  return typeof value;
}

/** Every difference between two shapes, by path; null against a string is a difference. */
function shapeDifferences(service, baseline, at = '') {
  const here = at || '(body)';
  if (typeof service === 'string' || typeof baseline === 'string') {
    return JSON.stringify(service) === JSON.stringify(baseline) ? [] : [`${here}: service ${describeShape(service)}, baseline ${describeShape(baseline)}`];
  }
  const serviceArray = '[]' in service;
  const baselineArray = '[]' in baseline;
  if (serviceArray !== baselineArray) return [`${here}: service ${describeShape(service)}, baseline ${describeShape(baseline)}`];
  if (serviceArray) {
    const [a, b] = [service['[]'], baseline['[]']];
    if (a.length === 1 && b.length === 1) return shapeDifferences(a[0], b[0], `${at}[]`);
    if (JSON.stringify(a) === JSON.stringify(b)) return [];
    if (a.length === 0 || b.length === 0) return [`${here}: service has ${a.length ? 'elements' : 'no elements'}, baseline ${b.length ? 'elements' : 'no elements'}`];
    return [`${here}[]: element shapes differ: service ${JSON.stringify(a)}, baseline ${JSON.stringify(b)}`];
  }
  const out = [];
  for (const key of new Set([...Object.keys(service), ...Object.keys(baseline)])) {
    const where = at ? `${at}.${key}` : key;
    if (!(key in service)) out.push(`${where}: only in the baseline`);
    else if (!(key in baseline)) out.push(`${where}: only in the service`);
    else out.push(...shapeDifferences(service[key], baseline[key], where));
  }
  return out;
}

function describeShape(shape) {
  if (typeof shape === 'string') return shape;
  return '[]' in shape ? 'an array' : 'an object';
}

/**
 * Sends `settings.shapeSamples` requests of the scenario to each side: every one must answer the
 * expected status and pass the scenario's check, and the i-th bodies of the two sides must have
 * the same shape. Returns the problems (none: the scenario may be measured) and the sample sizes.
 */
async function compareShapes(scenario, servers, seeds) {
  const problems = [];
  const samples = {};
  for (const server of servers) {
    const request = scenario.request(seeds[server.name]);
    samples[server.name] = [];
    for (let i = 0; i < settings.shapeSamples; i += 1) {
      const response = await send(server, request);
      if (response.status !== request.expect) {
        problems.push(`${server.name} answered ${describe(response)} (expected ${request.expect})`);
        break;
      }
      const wrong = scenario.check?.(response);
      if (wrong) {
        problems.push(`${server.name}: ${wrong}`);
        break;
      }
      samples[server.name].push(response);
    }
  }
  if (problems.length > 0) return { problems };
  const differences = new Set();
  for (let i = 0; i < settings.shapeSamples; i += 1) {
    for (const difference of shapeDifferences(shapeOf(samples.service[i].json), shapeOf(samples.baseline[i].json))) differences.add(difference);
  }
  if (differences.size > 0) problems.push(`response bodies differ in shape: ${[...differences].join('; ')}`);
  return { problems, bodyBytes: { service: Buffer.byteLength(samples.service[0].text), baseline: Buffer.byteLength(samples.baseline[0].text) } };
}

// ---------------------------------------------------------------- statistics

function median(values) {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Medians over the rounds of each side, and the ratio of the paired rounds (service ÷ baseline). */
function summarise(rounds) {
  const side = (name) => {
    const list = rounds.map((r) => r[name]).filter((r) => r && !r.failed);
    return {
      rps: median(list.map((r) => r.rps)),
      p50: median(list.map((r) => r.p50)),
      p99: median(list.map((r) => r.p99)),
      peakKb: Math.max(0, ...list.map((r) => r.peakKb)),
      bytesPerResponse: median(list.map((r) => r.bytesPerResponse)),
      cpu: ['process', 'main', 'machine'].reduce((out, key) => {
        out[key] = median(list.map((r) => r.cpuMicrosPerRequest?.[key]));
        return out;
      }, {}),
    };
  };
  const ratios = rounds
    .filter((r) => r.service && r.baseline && !r.service.failed && !r.baseline.failed && r.baseline.rps > 0)
    .map((r) => r.service.rps / r.baseline.rps);
  return {
    service: side('service'),
    baseline: side('baseline'),
    ratio: median(ratios),
    ratioMin: ratios.length ? Math.min(...ratios) : undefined,
    ratioMax: ratios.length ? Math.max(...ratios) : undefined,
    ratios,
  };
}

// ---------------------------------------------------------------- bounds

function bulkCollections(count, projectId) {
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
      projectId,
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
  rps: (value) => (value === undefined ? '-' : value.toFixed(value < 100 ? 1 : 0)),
  ratio: (value) => (value === undefined ? '-' : value.toFixed(2)),
  spread: (s) => (s.ratioMin === undefined ? '-' : `${s.ratioMin.toFixed(2)}–${s.ratioMax.toFixed(2)}`),
  lat: (s) => (s.p50 === undefined ? '-' : `${fmtMs(s.p50)} / ${fmtMs(s.p99)}`),
  mb: (kb) => (kb ? `${(kb / 1024).toFixed(0)} MB` : '-'),
  ms: (value) => (value === undefined ? '-' : value.toFixed(1)),
  roundRps: (r) => (r && !r.failed ? r.rps.toFixed(r.rps < 100 ? 1 : 0) : '-'),
  roundLat: (r, seconds) => (r?.noneCompleted && !r.failed ? `none in ${seconds} s` : r && !r.failed ? `${fmtMs(r.p50)} / ${fmtMs(r.p99)}` : '-'),
};
function fmtMs(value) {
  return value < 10 ? String(Math.round(value * 10) / 10) : String(Math.round(value));
}

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

function gitDescription() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return `${commit}${dirty ? ' (src/ with uncommitted changes)' : ''}`;
  } catch {
    return 'unknown';
  }
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

// ---------------------------------------------------------------- main

async function main() {
  for (const file of [SERVICE_ENTRY, EMBEDDED_DB]) {
    if (!fs.existsSync(file)) throw new Error(`${path.relative(ROOT, file)} is missing: build first (npm run bench builds)`);
  }
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const info = machine();
  const loadBefore = os.loadavg().map((n) => n.toFixed(2)).join(' ');
  const scenarios = SCENARIOS.filter((scenario) => wanted(scenario.key, scenario.title));
  const boundsWanted = wanted('bounds');
  const webhooksWanted = wanted('webhooks');
  if (scenarios.length === 0 && !boundsWanted && !webhooksWanted) throw new Error(`BENCH_ONLY=${process.env.BENCH_ONLY} matches no scenario`);

  log('Benchmark: service (dist/main.js) vs bare Fastify + mongodb baseline, both multi-tenant');
  log(`Machine: ${info.cores} cores, ${info.cpu}, ${info.memory} RAM, Node ${info.node}, ${info.platform}`);
  log(`Load average before: ${loadBefore}`);
  log(
    `Rounds: ${settings.rounds} x ${settings.seconds} s per side and scenario, alternating sides, after a ${settings.warmup} s warm-up per side; ` +
      `${settings.connections} connections; service NODE_ENV=production LOG_LEVEL=${settings.logLevel}; bcrypt cost ${settings.bcryptRounds} on both`,
  );
  log('Load generator, service, baseline and database all share this machine (autocannon runs in this process).');

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-bench-'));
  // Run as root, the embedded PostgreSQL runs as an unprivileged user, who must be able to reach its folder.
  fs.chmodSync(tmp, 0o755);
  cleanups.push(() => fs.rmSync(tmp, { recursive: true, force: true }));

  fs.rmSync(DIST_SNAPSHOT, { recursive: true, force: true });
  cleanups.push(() => fs.rmSync(DIST_SNAPSHOT, { recursive: true, force: true }));
  fs.cpSync(DIST, DIST_SNAPSHOT, { recursive: true });
  const { startEmbeddedDatabase } = require(path.join(DIST_SNAPSHOT, 'database', 'embedded-database.js'));
  const database = await startEmbeddedDatabase({
    dataDir: path.join(tmp, 'db'),
    ferretdbBin: process.env.FERRETDB_BIN,
    backend: process.env.EMBEDDED_DATABASE_BACKEND,
    log: (message) => log(message),
  });
  cleanups.push(() => database.stop());
  log(`Database: embedded ${database.engine} at ${database.uri} (databases bench_service, bench_baseline)`);

  const mongo = new MongoClient(database.uri, { serverSelectionTimeoutMS: 5_000 });
  await mongo.connect();
  cleanups.push(() => mongo.close());

  const profileDir = PROFILE_DIR;
  const argsFor = (side) => {
    const args = [
      ...(side === 'service' ? productionNodeArgs() : []),
      ...settings.nodeArgs,
      ...(side === 'service' ? settings.serviceNodeArgs : settings.baselineNodeArgs),
    ];
    if (settings.profile.includes(side)) args.push('--cpu-prof', `--cpu-prof-dir=${path.relative(ROOT, profileDir)}`);
    if (side === 'service' && settings.heapSnapshot) args.push('--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${path.relative(ROOT, profileDir)}`);
    return args;
  };
  if (settings.profile.length > 0 || settings.heapSnapshot) fs.mkdirSync(profileDir, { recursive: true });

  const secret = crypto.randomBytes(32).toString('hex');
  // The seed signs up every member from this one address: above the per-address signup limit (10 an hour).
  const shared = {
    JWT_SECRET: secret,
    // Required outside development: the card fingerprint key (from which both derive the Idempotency-Key
    // fingerprint key) and the service's field encryption key (`<id>:<base64 of 32 bytes>`).
    CARD_FINGERPRINT_KEY: crypto.randomBytes(32).toString('hex'),
    FIELD_ENCRYPTION_KEY: `bench:${crypto.randomBytes(32).toString('base64')}`,
    BCRYPT_ROUNDS: String(settings.bcryptRounds),
    SIGNUP_MAX_PER_CLIENT: '1000',
    // The service counts every data request against its rate limit, set out of the load's reach: the
    // check's cost is measured, not its refusals.
    RATE_LIMIT_PER_SECOND: '1000000',
  };
  const service = await startServer(
    'service',
    path.join(DIST_SNAPSHOT, 'main.js'),
    // The webhook cost's receiver listens on loopback.
    { ...shared, NODE_ENV: 'production', LOG_LEVEL: settings.logLevel, MONGODB_URI: `${database.uri}bench_service`, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
    argsFor('service'),
  );
  const baseline = await startServer('baseline', BASELINE_ENTRY, { ...shared, NODE_ENV: 'production', MONGODB_URI: `${database.uri}bench_baseline` }, argsFor('baseline'));
  const servers = [service, baseline];
  const byName = { service, baseline };
  const dbs = { service: mongo.db('bench_service'), baseline: mongo.db('bench_baseline') };
  log(`Started service on :${service.port} (pid ${service.child.pid}) and baseline on :${baseline.port} (pid ${baseline.child.pid})`);
  for (const server of servers) if (server.nodeArgs.length > 0) log(`  ${server.name} Node options: ${server.nodeArgs.join(' ')}`);

  const seeds = {};
  for (const server of servers) seeds[server.name] = await seed(server, dbs[server.name]);
  log(
    `Seeded both: an account with ${settings.members} members (the admin included), a client and a channel, 50 collections, ` +
      `${settings.customers} customers, a saved card as the paying customer's default, an API key of the default project.`,
  );

  const results = [];
  for (const [index, scenario] of scenarios.entries()) {
    const row = { key: scenario.key, title: scenario.title, rounds: [], failed: [] };
    results.push(row);
    log(`  ${scenario.title}`);
    const shapes = await compareShapes(scenario, servers, seeds);
    row.bodyBytes = shapes.bodyBytes;
    if (shapes.problems.length > 0) {
      row.failed.push(...shapes.problems);
      log(`    FAILED, not measured: ${shapes.problems.join(' | ')}`);
      continue;
    }
    // A B A B ..., the side that starts alternating from one scenario to the next.
    const order = index % 2 === 0 ? [service, baseline] : [baseline, service];
    row.order = order.map((server) => server.name);
    for (const server of order) {
      await scenario.reset?.(dbs[server.name]);
      await runAutocannon(server, scenario.request(seeds[server.name]), settings.warmup);
    }
    for (let r = 0; r < settings.rounds; r += 1) {
      const pair = {};
      for (const server of order) {
        await scenario.reset?.(dbs[server.name]);
        pair[server.name] = await round(server, scenario.request(seeds[server.name]), settings.seconds);
        if (pair[server.name].failed) row.failed.push(`${server.name}, round ${r + 1}: ${pair[server.name].failed}`);
      }
      row.rounds.push(pair);
      const ratio = pair.service.rps && pair.baseline.rps ? (pair.service.rps / pair.baseline.rps).toFixed(2) : '-';
      log(`    round ${r + 1}: service ${fmt.roundRps(pair.service)} req/s, baseline ${fmt.roundRps(pair.baseline)} req/s, ratio ${ratio}`);
    }
    row.summary = summarise(row.rounds);
    if (settings.heapSnapshot && service.alive) {
      // Unmeasured: the snapshot stops the process for a while. Taken half-way through a load run.
      const load = runAutocannon(service, scenario.request(seeds.service), settings.seconds);
      await sleep((settings.seconds * 1000) / 2);
      service.child.kill('SIGUSR2');
      await load;
      log(`    heap snapshot of the service requested under load (written to ${path.relative(ROOT, profileDir)}/)`);
    }
  }

  // Bounds: the same list with limit=500 over 50 documents, then over 50 + BENCH_BOUNDS_SEED.
  const bounds = [];
  if (boundsWanted) {
    // Few connections: over a large collection one request can take seconds on FerretDB.
    const request = (state) => ({ method: 'GET', path: '/collections?limit=500', token: state.token, expect: 200, mayBeSlow: true });
    const small = { label: 'GET /collections?limit=500, 50 documents' };
    const large = { label: `GET /collections?limit=500, ${50 + settings.boundsSeed} documents` };
    for (const server of servers) {
      const collections = dbs[server.name].collection('collections');
      // Documents left by the POST /collections scenario go, so the small case has its 50 seeded ones.
      await collections.deleteMany({ name: COLLECTION_BODY.name });
      const probe = await send(server, request(seeds[server.name]));
      small[`${server.name}Probe`] = probe;
      log(`  bounds, ${await collections.countDocuments({})} documents, on ${server.name}...`);
      small[server.name] = await round(server, request(seeds[server.name]), settings.seconds * 2, settings.boundsConnections);
      small[`${server.name}Alone`] = await sequentialLatency(server, request(seeds[server.name]));
    }
    log(`  bulk-inserting ${settings.boundsSeed} collections into each database...`);
    for (const server of servers) {
      await insertInBatches(dbs[server.name].collection('collections'), bulkCollections(settings.boundsSeed, new ObjectId(seeds[server.name].projectId)));
    }
    for (const server of servers) {
      log(`  bounds, ${await dbs[server.name].collection('collections').countDocuments({})} documents, on ${server.name}...`);
      large[`${server.name}Alone`] = await sequentialLatency(server, request(seeds[server.name]));
      large[`${server.name}Probe`] = await send(server, request(seeds[server.name]));
      large[server.name] = await round(server, request(seeds[server.name]), settings.seconds * 2, settings.boundsConnections);
    }
    for (const row of [small, large]) {
      row.returned = Array.isArray(row.serviceProbe?.json) ? row.serviceProbe.json.length : '-';
      row.total = row.serviceProbe?.headers.get('x-total-count') ?? '-';
      row.bodyKiB = row.serviceProbe ? Buffer.byteLength(row.serviceProbe.text) / 1024 : undefined;
    }
    bounds.push(small, large);
  }

  let webhookCost;
  const webhookFailures = [];
  if (webhooksWanted) {
    log('  Webhook cost: POST /api/v1/payments in a project with one enabled endpoint, against one with none (the service alone)');
    try {
      webhookCost = await measureWebhookCost(service, seeds.service, { call, expectStatus, round, runAutocannon, settings, log, median, password: PASSWORD });
      log(`    median ratio ${webhookCost.ratio.toFixed(2)} (goal: at least 0.90); the receiver got ${webhookCost.delivered} deliveries`);
    } catch (error) {
      webhookFailures.push(`webhook cost: ${error.message}`);
      log(`    FAILED: ${error.message}`);
    }
  }

  const loadAfter = os.loadavg().map((n) => n.toFixed(2)).join(' ');

  // Profiles are written when the servers exit.
  const profiles = [];
  if (settings.profile.length > 0) {
    for (const side of settings.profile) {
      const server = byName[side];
      await stopServer(server);
      for (const file of profilesOf(server, profileDir)) profiles.push({ side, file });
    }
  }

  // ---- report
  const measured = results.filter((row) => row.summary);
  const main = table(
    [
      'Scenario',
      'service req/s',
      'baseline req/s',
      'service/baseline',
      'spread',
      'service p50/p99 ms',
      'baseline p50/p99 ms',
      'service peak RSS',
      'baseline peak RSS',
    ],
    results.map((row) =>
      row.summary
        ? [
            row.title,
            fmt.rps(row.summary.service.rps),
            fmt.rps(row.summary.baseline.rps),
            fmt.ratio(row.summary.ratio),
            fmt.spread(row.summary),
            fmt.lat(row.summary.service),
            fmt.lat(row.summary.baseline),
            fmt.mb(row.summary.service.peakKb),
            fmt.mb(row.summary.baseline.peakKb),
          ]
        : [row.title, 'FAILED', '-', '-', '-', '-', '-', '-', '-'],
    ),
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
    ],
    bounds.map((row) => [
      row.label,
      `${row.returned} / ${row.total}`,
      row.bodyKiB === undefined ? '-' : `${row.bodyKiB.toFixed(1)} KiB`,
      fmt.ms(row.serviceAlone),
      fmt.roundRps(row.service),
      fmt.roundLat(row.service, settings.seconds * 2),
      fmt.ms(row.baselineAlone),
      fmt.roundRps(row.baseline),
      fmt.roundLat(row.baseline, settings.seconds * 2),
    ]),
  );
  const failures = [];
  for (const row of results) for (const failure of row.failed) failures.push(`${row.title}: ${failure}`);
  failures.push(...webhookFailures);
  for (const row of bounds) {
    if (row.service?.failed) failures.push(`${row.label} on service: ${row.service.failed}`);
    if (row.baseline?.failed) failures.push(`${row.label} on baseline: ${row.baseline.failed}`);
  }
  const sizes = measured
    .filter((row) => row.summary.service.bytesPerResponse && row.summary.baseline.bytesPerResponse)
    .map((row) => `${row.title} ${row.summary.service.bytesPerResponse.toFixed(0)} vs ${row.summary.baseline.bytesPerResponse.toFixed(0)}`);
  const memorySource = measured.flatMap((row) => row.rounds.map((r) => r.service?.memorySource)).find(Boolean) ?? 'VmHWM';
  const notes = [
    `req/s: completed requests over each ${settings.seconds} s round; the table shows the median round of each side, the median of the ` +
      `per-round ratios (service ÷ baseline, rounds paired in order) and their min–max. ${settings.rounds} rounds per side, alternating, ` +
      `after a ${settings.warmup} s warm-up per side; ${settings.connections} connections.`,
    'p50/p99: autocannon latencies in ms, median over the rounds. Peak RSS: the highest of the rounds, from /proc/<pid>/status ' +
      `(${memorySource}, reset before each round).`,
    `Response shapes: ${settings.shapeSamples} responses per side and scenario compared field by field (types, null included) before measuring.`,
    'Client (autocannon, in the orchestrating Node process), service, baseline and database share the same cores.',
    `Load average before ${loadBefore}, after ${loadAfter}.`,
  ];
  if (bounds.length > 0) {
    notes.push(
      `Bounds: "alone" is the median of 5 requests sent one at a time; req/s and p50/p99 come from one ${settings.seconds * 2} s run with ${settings.boundsConnections} connections.`,
    );
  }
  if (webhookCost) {
    notes.push(
      `Webhook cost: POST /api/v1/payments with one enabled endpoint (a local receiver answering 204) over the same without endpoints, ` +
        `median of ${settings.rounds} alternating rounds: ${webhookCost.ratio.toFixed(2)} (${webhookCost.delivered} deliveries received during the rounds).`,
    );
  }
  if (sizes.length > 0) notes.push(`Bytes per response, headers included, service vs baseline: ${sizes.join('; ')}.`);
  const cpu = measured
    .filter((row) => row.summary.service.cpu?.process && row.summary.baseline.cpu?.process)
    .map((row) => {
      const [a, b] = [row.summary.service.cpu, row.summary.baseline.cpu];
      return `${row.title} ${a.main}/${a.process}/${a.machine} vs ${b.main}/${b.process}/${b.machine}`;
    });
  if (cpu.length > 0) {
    notes.push(
      'CPU µs per request, median over the rounds, service vs baseline, as main thread / whole server process / whole machine ' +
        `(database and load generator included; /proc clock ticks of 10 ms): ${cpu.join('; ')}.`,
    );
  }

  log('');
  log(main.text);
  if (bounds.length > 0) {
    log('');
    log(boundsTable.text);
  }
  log('');
  for (const note of notes) log(note);

  // CPU profiles: self time by package/file and pipeline stage, per scenario (the rounds of that side only).
  const profileSummaries = [];
  for (const { side, file } of profiles) {
    const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const row of measured) {
      const windows = row.rounds.map((r) => r[side]?.window).filter(Boolean);
      const requests = row.rounds.reduce((sum, r) => sum + (r[side]?.total ?? 0), 0);
      const analysis = analyseProfile(profile, { windows, requests });
      const text = formatAnalysis(analysis, { title: `${side}: ${row.title} (${path.relative(ROOT, file)})` });
      const out = path.join(RESULTS_DIR, `profile-${side}-${row.key}.txt`);
      fs.writeFileSync(out, `${text}\n`);
      profileSummaries.push({ side, scenario: row.key, file: path.relative(ROOT, file), summary: path.relative(ROOT, out), analysis });
      log('');
      log(text);
    }
  }

  if (failures.length > 0) {
    log('');
    log('FAILED:');
    for (const failure of failures) log(`  - ${failure}`);
  } else {
    log('Response shapes: the service and the baseline answered every measured scenario with bodies of the same shape.');
  }

  const commit = gitDescription();
  const markdown = [
    '# Benchmark results',
    '',
    `Generated ${new Date().toISOString()} by \`npm run bench\` at ${commit}.`,
    '',
    `Machine: ${info.cores} cores, ${info.cpu}, ${info.memory} RAM, Node ${info.node}, ${info.platform}.`,
    `Database: embedded ${database.engine}. Service: NODE_ENV=production, LOG_LEVEL=${settings.logLevel}. bcrypt cost ${settings.bcryptRounds} on both servers.`,
    '',
    main.markdown,
    '',
    ...(bounds.length > 0 ? [boundsTable.markdown, ''] : []),
    ...notes.map((note) => `- ${note}`),
    ...(failures.length > 0 ? ['', '**Failed:**', ...failures.map((failure) => `- ${failure.replace(/\n/g, ' ')}`)] : []),
    '',
  ].join('\n');
  fs.writeFileSync(path.join(RESULTS_DIR, 'latest.md'), markdown);

  const json = {
    generatedAt: new Date().toISOString(),
    commit,
    machine: info,
    database: database.engine,
    loadAverage: { before: loadBefore, after: loadAfter },
    settings: {
      rounds: settings.rounds,
      seconds: settings.seconds,
      warmup: settings.warmup,
      connections: settings.connections,
      logLevel: settings.logLevel,
      bcryptRounds: settings.bcryptRounds,
      only: settings.only,
      serviceNodeArgs: service.nodeArgs,
      baselineNodeArgs: baseline.nodeArgs,
    },
    pids: { service: service.child.pid, baseline: baseline.child.pid },
    scenarios: results.map((row) => ({
      key: row.key,
      title: row.title,
      order: row.order,
      bodyBytes: row.bodyBytes,
      failed: row.failed,
      summary: row.summary,
      // Windows are on the monotonic clock of V8's CPU profiler (µs): bench/cpuprofile.js cuts profiles with them.
      rounds: row.rounds.map((pair) =>
        Object.fromEntries(
          Object.entries(pair).map(([side, r]) => [
            side,
            { rps: r.rps, total: r.total, p50: r.p50, p99: r.p99, peakKb: r.peakKb, bytesPerResponse: r.bytesPerResponse, cpuMicrosPerRequest: r.cpuMicrosPerRequest, codes: r.codes, failed: r.failed, window: r.window },
          ]),
        ),
      ),
    })),
    bounds: bounds.map((row) => ({
      label: row.label,
      returned: row.returned,
      total: row.total,
      serviceAlone: row.serviceAlone,
      baselineAlone: row.baselineAlone,
      service: row.service && { rps: row.service.rps, p50: row.service.p50, p99: row.service.p99, failed: row.service.failed },
      baseline: row.baseline && { rps: row.baseline.rps, p50: row.baseline.p50, p99: row.baseline.p99, failed: row.baseline.failed },
    })),
    webhookCost: webhookCost && {
      ratio: webhookCost.ratio,
      delivered: webhookCost.delivered,
      rounds: webhookCost.rounds.map((pair) => ({ without: pair.without.rps, with: pair.with.rps })),
    },
    profiles: profileSummaries.map(({ side, scenario, file, summary, analysis }) => ({ side, scenario, file, summary, perRequestMicros: analysis.perRequestMicros, busyShare: analysis.busyShare })),
    failures,
  };
  fs.writeFileSync(path.join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(json, null, 2)}\n`);
  log(`\nWritten to ${path.relative(ROOT, path.join(RESULTS_DIR, 'latest.md'))} and latest.json`);
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
