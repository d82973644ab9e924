'use strict';
/**
 * Neighbours: does one tenant's list slow down as another tenant grows, and how does a tenant's
 * own list grow with it? On the service alone, started for this section on a database of its own of
 * the same database server, and stopped after it. It runs twice, as B's records are made:
 *
 * - bulk (database bench_neighbours): at level N, B holds N collections and N/2 customers,
 *   bulk-inserted through the driver as copies of A's stored documents (every field the service
 *   stores, projectId included, with B's project, new ids and times); levels 0, 1,000, 10,000,
 *   100,000, up to BENCH_NEIGHBOURS_MAX;
 * - through the API (database bench_neighbours_api): the same levels up to BENCH_NEIGHBOURS_API_MAX
 *   (10,000), every record of B made by POST /collections and POST /v1/customers, in parallel batches
 *   as a client would, so they hold what the service writes on a create (its outbox, its events).
 *
 * Tenant A holds 3 collections and 3 customers, made through the API. At each level:
 * - A's GET /collections and GET /v1/customers, against A's time with no neighbour;
 * - then B's customers are topped up to N and B's own first pages are timed at N documents.
 * Each time is the median of BENCH_NEIGHBOURS_REQUESTS requests sent one at a time, after 3 unmeasured
 * (fewer for slow lists, see `timeList`).
 */
const { ObjectId } = require('mongodb');
const { settings, log } = require('./settings');
const { call, expectStatus, median } = require('./runner');
const { dropDatabase, startService, stopServer } = require('./processes');
const { PASSWORD, COLLECTION_BODY } = require('./seed');
const { fmt, table } = require('./format');

const DATABASES = { bulk: 'bench_neighbours', api: 'bench_neighbours_api' };
/** Requests in flight at once while B's records are made through the API. */
const API_CONCURRENCY = 8;
const WARMUP_REQUESTS = 3;
/**
 * A tenant's own list over many documents can take seconds a request on FerretDB: warm-up stops after
 * a request that took over a second, and a median stops growing once 3 requests are in and together
 * took over 30 s.
 */
const SLOW_REQUEST_MS = 1_000;
const MIN_REQUESTS = 3;
const BUDGET_MS = 30_000;
const LIST_TIMEOUT_MS = 180_000;
const BATCH = 1000;
/**
 * The bound: with B at 10,000 collections and 5,000 customers, A's lists stay within 1.5x of their
 * time alone; for bulk-made records also within 15 ms (the earlier bound), for records made through
 * the API strictly 1.5x.
 */
const TARGETS = { bulk: { level: 10_000, ratio: 1.5, slackMs: 15 }, api: { level: 10_000, ratio: 1.5, slackMs: 0 } };

function levels(max) {
  const out = [0, ...[1_000, 10_000, 100_000].filter((n) => n < max)];
  return [...out, max];
}

/** `count` POSTs of `route` with bodies `make(i)` for i in [from, to), API_CONCURRENCY at a time; each must answer 201. */
async function throughApi(service, token, route, from, to, make) {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const i = next;
      next += 1;
      const response = await call(service, 'POST', route, { token, body: make(i) });
      if (response.status !== 201)
        throw new Error(`POST ${route} for B answered ${response.status} ${response.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: API_CONCURRENCY }, worker));
}

async function tenant(service, name) {
  const admin = { email: `bench.${name}.${Date.now()}@example.com`, password: PASSWORD };
  const signup = await expectStatus(
    service,
    `signup (${name})`,
    201,
    call(service, 'POST', '/api/v1/signup', {
      body: { firstName: 'Bench', lastName: name, role: 'admin', accountName: `Bench ${name}`, ...admin },
    }),
  );
  const login = await expectStatus(
    service,
    `login (${name})`,
    200,
    call(service, 'POST', '/api/v1/login', { body: admin }),
  );
  return { name, token: login.json.accessToken, projectId: new ObjectId(signup.json.data.account.defaultProjectId) };
}

/** Bulk copies of a stored document in another project: new ids (newest last), times a second apart. */
async function insertCopies(collection, template, projectId, from, to, vary) {
  for (let start = from; start < to; start += BATCH) {
    const now = Date.now();
    const documents = [];
    for (let i = start; i < Math.min(to, start + BATCH); i += 1) {
      const at = new Date(now - (to - i) * 1000);
      documents.push({ ...template, ...vary(i), _id: new ObjectId(), projectId, createdAt: at, updatedAt: at });
    }
    await collection.insertMany(documents, { ordered: false });
  }
}

/** Median time of one list request sent alone, and how many it is over; every answer is checked. */
async function timeList(service, token, route, check) {
  const once = async () => {
    const started = performance.now();
    // A tenant's own first page over 100,000 records can take over 30 s on a loaded machine.
    const response = await call(service, 'GET', route, { token, timeoutMs: LIST_TIMEOUT_MS });
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`${route} answered ${response.status} ${response.text.slice(0, 200)}`);
    const wrong = check(response);
    if (wrong) throw new Error(`${route}: ${wrong}`);
    return { elapsed, response };
  };
  for (let i = 0; i < WARMUP_REQUESTS; i += 1) if ((await once()).elapsed > SLOW_REQUEST_MS) break;
  const times = [];
  let last;
  while (times.length < settings.neighboursRequests) {
    const { elapsed, response } = await once();
    times.push(elapsed);
    last = response;
    if (times.length >= MIN_REQUESTS && times.reduce((sum, ms) => sum + ms, 0) > BUDGET_MS) break;
  }
  return { ms: median(times), count: times.length, response: last };
}

const collectionsOf = (expected) => (response) =>
  Array.isArray(response.json) &&
  response.json.length === Math.min(expected, 100) &&
  response.headers.get('x-total-count') === String(expected)
    ? undefined
    : `expected ${Math.min(expected, 100)} collections and X-Total-Count ${expected}, got ${Array.isArray(response.json) ? response.json.length : typeof response.json} and ${response.headers.get('x-total-count')}`;

const customersOf = (expected) => (response) =>
  response.json?.data?.length === Math.min(expected, 20) && response.json.hasMore === expected > 20
    ? undefined
    : `expected ${Math.min(expected, 20)} customers and hasMore ${expected > 20}, got ${response.text.slice(0, 80)}`;

/** Runs the section; returns { via, neighbours: [...rows], own: [...rows], failed } for `neighboursReport`. */
async function measureNeighbours(database, mongo, shared, nodeArgs, via = 'bulk') {
  const DATABASE = DATABASES[via];
  const max = via === 'api' ? settings.neighboursApiMax : settings.neighboursMax;
  const result = { via, max, neighbours: [], own: [], requests: settings.neighboursRequests };
  log(
    `  Neighbours (B's records ${via === 'api' ? 'made through the API' : 'bulk-inserted'}): tenant A's lists while tenant B grows to ` +
      `${max.toLocaleString('en-US')} collections (the service alone, database ${DATABASE})`,
  );
  const db = mongo.db(DATABASE);
  const service = await startService(`neighbours-${via}`, shared, database, DATABASE, nodeArgs);
  try {
    const a = await tenant(service, 'A');
    const b = await tenant(service, 'B');
    for (let i = 0; i < 3; i += 1) {
      await expectStatus(
        service,
        'POST /collections (A)',
        201,
        call(service, 'POST', '/collections', { token: a.token, body: { ...COLLECTION_BODY, name: `Tenant A ${i}` } }),
      );
      await expectStatus(
        service,
        'POST /v1/customers (A)',
        201,
        call(service, 'POST', '/v1/customers', {
          token: a.token,
          body: {
            email: `a.${i}@example.com`,
            firstName: 'Tenant',
            lastName: `A ${i}`,
            country: 'US',
            phone: '+1 415 555 0100',
          },
        }),
      );
    }
    // What the service stored for A, copied for B: the same fields, whatever the schema adds.
    const collectionTemplate = await db.collection('collections').findOne({ projectId: a.projectId });
    const customerTemplate = await db.collection('customers').findOne({ projectId: a.projectId });
    if (!collectionTemplate || !customerTemplate) throw new Error(`tenant A's documents are not in ${DATABASE}`);
    const made = {
      collections: (from, to) =>
        throughApi(service, b.token, '/collections', from, to, (i) => ({
          ...COLLECTION_BODY,
          name: `Tenant B ${i}`,
          numberOfClients: i % 50,
          endpoints: [i % 7, i % 11],
        })),
      customers: (from, to) =>
        throughApi(service, b.token, '/v1/customers', from, to, (i) => ({
          email: `b.${i}@example.com`,
          firstName: 'Tenant',
          lastName: `B ${i}`,
          country: 'US',
          phone: '+1 415 555 0100',
        })),
    };
    const copies = {
      collections: (from, to) =>
        insertCopies(db.collection('collections'), collectionTemplate, b.projectId, from, to, (i) => ({
          name: `Tenant B ${i}`,
          numberOfClients: i % 50,
          endpoints: [i % 7, i % 11],
        })),
      customers: (from, to) =>
        insertCopies(db.collection('customers'), customerTemplate, b.projectId, from, to, (i) => ({
          email: `b.${i}@example.com`,
          lastName: `B ${i}`,
        })),
    };
    const held = { collections: 0, customers: 0 };
    const grow = async (kind, count) => {
      if (count <= held[kind]) return;
      await (via === 'api' ? made : copies)[kind](held[kind], count);
      held[kind] = count;
    };

    for (const level of levels(max)) {
      const started = performance.now();
      await grow('collections', level);
      await grow('customers', Math.floor(level / 2));
      if (level > 0)
        log(
          `    B holds ${held.collections} collections and ${held.customers} customers (made in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
        );
      const collections = await timeList(service, a.token, '/collections', collectionsOf(3));
      const customers = await timeList(service, a.token, '/v1/customers', customersOf(3));
      result.neighbours.push({
        level,
        held: { ...held },
        collectionsMs: collections.ms,
        customersMs: customers.ms,
        requests: [collections.count, customers.count],
      });
      log(
        `    A with ${level.toLocaleString('en-US')} neighbours: GET /collections ${fmt.ms(collections.ms)} ms, GET /v1/customers ${fmt.ms(customers.ms)} ms`,
      );
      if (level === 0) continue;

      await grow('customers', level);
      const ownCollections = await timeList(service, b.token, '/collections', collectionsOf(level));
      const ownCustomers = await timeList(service, b.token, '/v1/customers', customersOf(level));
      result.own.push({
        level,
        collectionsMs: ownCollections.ms,
        requests: [ownCollections.count, ownCustomers.count],
        collectionsReturned: ownCollections.response.json.length,
        collectionsTotal: ownCollections.response.headers.get('x-total-count'),
        customersMs: ownCustomers.ms,
        customersReturned: ownCustomers.response.json.data.length,
        customersHasMore: ownCustomers.response.json.hasMore,
      });
      log(
        `    B's own ${level.toLocaleString('en-US')}: GET /collections ${fmt.ms(ownCollections.ms)} ms, GET /v1/customers ${fmt.ms(ownCustomers.ms)} ms`,
      );
    }
  } catch (error) {
    result.failed = error.message;
    log(`    FAILED: ${error.message}`);
  } finally {
    await stopServer(service);
    // The copies would only weigh on the database server for the rest of the run.
    await dropDatabase(database, mongo, DATABASE).catch(() => undefined);
  }
  return result;
}

/** Whether A's time at the target level stays within the bound of its time alone; undefined when not measured. */
function verdict(rows, key, TARGET) {
  const alone = rows.find((row) => row.level === 0)?.[key];
  const at = rows.find((row) => row.level === TARGET.level)?.[key];
  if (alone === undefined || at === undefined) return undefined;
  const bound = Math.max(alone * TARGET.ratio, alone + TARGET.slackMs);
  return { holds: at <= bound, alone, at, ratio: at / alone, bound };
}

/** The neighbours section's tables, notes, failures and JSON, for the report. */
function neighboursReport(result) {
  const rows = result.neighbours;
  const via = result.via ?? 'bulk';
  const TARGET = TARGETS[via];
  const DATABASE = DATABASES[via];
  const made = via === 'api' ? 'made through the API' : 'bulk-inserted';
  const alone = rows.find((row) => row.level === 0);
  const ms = (row, index) =>
    `${fmt.ms(index === 0 ? row.collectionsMs : row.customersMs)}${row.requests[index] < result.requests ? ` (median of ${row.requests[index]})` : ''}`;
  const ratio = (row, key) => (alone?.[key] && row[key] !== undefined ? `${(row[key] / alone[key]).toFixed(2)}x` : '-');
  const neighbourTable = table(
    [
      `Neighbours: tenant A (3 collections, 3 customers) while B holds (${made})`,
      'A GET /collections ms',
      'vs none',
      'A GET /v1/customers ms',
      'vs none',
    ],
    rows.map((row) => [
      row.level === 0
        ? 'nothing'
        : `${row.held.collections.toLocaleString('en-US')} collections, ${row.held.customers.toLocaleString('en-US')} customers`,
      ms(row, 0),
      ratio(row, 'collectionsMs'),
      ms(row, 1),
      ratio(row, 'customersMs'),
    ]),
  );
  const ownTable = table(
    [
      `Own documents (tenant B, first page, ${made})`,
      'GET /collections ms',
      'returned / X-Total-Count',
      'GET /v1/customers ms',
      'returned / count',
    ],
    result.own.map((row) => [
      row.level.toLocaleString('en-US'),
      ms(row, 0),
      `${row.collectionsReturned} / ${row.collectionsTotal}`,
      ms(row, 1),
      `${row.customersReturned} / none (hasMore: ${row.customersHasMore})`,
    ]),
  );
  const verdicts = ['collectionsMs', 'customersMs'].map((key) => [
    key === 'collectionsMs' ? 'GET /collections' : 'GET /v1/customers',
    verdict(rows, key, TARGET),
  ]);
  const target = verdicts.some(([, v]) => v === undefined)
    ? `not measured (B does not reach ${TARGET.level.toLocaleString('en-US')} collections with ${via === 'api' ? 'BENCH_NEIGHBOURS_API_MAX' : 'BENCH_NEIGHBOURS_MAX'}=${result.max})`
    : verdicts
        .map(
          ([route, v]) =>
            `${route} ${fmt.ms(v.at)} ms against ${fmt.ms(v.alone)} ms alone (${v.ratio.toFixed(2)}x, bound ${fmt.ms(v.bound)} ms): ${v.holds ? 'holds' : 'does NOT hold'}`,
        )
        .join('; ');
  const notes = [
    `Neighbours: each time is the median of ${result.requests} requests sent one at a time after ${WARMUP_REQUESTS} unmeasured ` +
      `(fewer when they are slow: warm-up ends after a request over ${SLOW_REQUEST_MS / 1000} s, a median after ${MIN_REQUESTS} requests once they took ` +
      `${BUDGET_MS / 1000} s together), on a service of its own ` +
      `(database ${DATABASE}); ${via === 'api' ? `B's documents made through the API (POST /collections, POST /v1/customers, ${API_CONCURRENCY} at a time)` : "B's documents are copies of A's stored ones bulk-inserted through the driver"}. At each level B's customers are then ` +
      `topped up to the level for its own lists. GET /collections returns its total in X-Total-Count; GET /v1/customers returns no count, only hasMore.`,
    `Neighbours target, B ${made} (A's lists within ${TARGET.ratio}x${TARGET.slackMs ? ` or ${TARGET.slackMs} ms` : ''} of their time alone while B holds ${TARGET.level.toLocaleString('en-US')} ` +
      `collections and ${(TARGET.level / 2).toLocaleString('en-US')} customers): ${target}.`,
  ];
  return {
    tables: [neighbourTable, ...(result.own.length > 0 ? [ownTable] : [])],
    notes,
    failures: result.failed ? [`neighbours (${made}): ${result.failed}`] : [],
    json: { ...result, target: Object.fromEntries(verdicts.map(([route, v]) => [route, v])) },
  };
}

module.exports = { measureNeighbours, neighboursReport };
