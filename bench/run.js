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
 * starts alternates from one scenario to the next; half the rounds after both servers are started
 * again in the other order) with autocannon from this process over loopback.
 * Then the upload and the neighbours sections, each on a service of its own (bench/uploads.js,
 * bench/neighbours.js). Prints the tables,
 * writes bench/results/latest.md and bench/results/latest.json. Everything it starts is stopped,
 * also on failure; the exit code is non-zero when anything failed.
 *
 * The parts: settings.js (paths, BENCH_* variables), processes.js (database, servers, cleanup),
 * monitor.js (memory and CPU from /proc), runner.js (requests, rounds, shape check, statistics),
 * seed.js, scenarios.js, bounds.js, webhooks.js, uploads.js, neighbours.js, format.js and report.js.
 *
 * Environment (bench/README.md has the full list): BENCH_ROUNDS (4), BENCH_SECONDS (5),
 * BENCH_WARMUP (2), BENCH_CONNECTIONS (10), BENCH_ONLY (comma-separated substrings of scenario keys
 * or titles, "bounds" for the bounds runs, "webhooks" for the webhook cost, "neighbours" for both
 * neighbours runs, "neighbours-bulk" or "neighbours-api" for one, "upload" for the tus upload), BENCH_NODE_ARGS
 * (both servers), BENCH_SERVICE_NODE_ARGS, BENCH_BASELINE_NODE_ARGS, BENCH_BASELINE_NODE_DEFAULTS (1: the
 * baselines on Node's defaults, not production's options and environment), BENCH_SERVICE_ENV (NAME=value
 * pairs over the service's production environment), BENCH_PROFILE
 * (service|baseline|both: CPU profiles, summarised per scenario), BENCH_HEAP_SNAPSHOT (1: a heap
 * snapshot of the service under load per scenario), BENCH_LOG_LEVEL, BENCH_BCRYPT_ROUNDS,
 * BENCH_BOUNDS_SEED, BENCH_BOUNDS_CONNECTIONS, BENCH_NEIGHBOURS_MAX, BENCH_NEIGHBOURS_API_MAX (10000),
 * BENCH_NEIGHBOURS_REQUESTS, BENCH_SELF_BAND (0: no A/A band),
 * BENCH_DIST, BENCH_SELF_BASELINE (a second copy of the service in the baseline's place: an A/A run),
 * BENCH_LIFETIMES (2: each scenario's rounds over two lifetimes of both servers, started in alternating
 * order), BENCH_RESTART_WARMUP (5), BENCH_UPLOAD_MIB (100), BENCH_UPLOAD_CHUNK_MIB (5), BENCH_QUICK
 * (1: the quick profile of `npm run bench:quick`, settings.js).
 *
 * Every run judges the commands of each scenario against the baseline's and the memory bounds
 * (memory-bounds.js): a count above the baseline's or a bound passed makes the exit code non-zero.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  ROOT,
  RESULTS_DIR,
  PROFILE_DIR,
  SERVICE_ENTRY,
  EMBEDDED_DB,
  BASELINE_ENTRY,
  COUNT_PRELOAD,
  settings,
  wanted,
  log,
  sleep,
} = require('./settings');
const {
  cleanup,
  startServer,
  stopServer,
  startDatabase,
  dropDatabase,
  settleStatistics,
  mirrorServiceCollections,
  addBaselineGinIndexes,
  argsFor,
  baselineLaunchEnv,
  sharedEnv,
  startService,
  profilesOf,
} = require('./processes');
const {
  setDatabaseProcesses,
  call,
  expectStatus,
  runAutocannon,
  round,
  watchServerCpu,
  compareShapes,
  countCommands,
  send,
  readCommands,
  median,
  summarise,
} = require('./runner');
const { PASSWORD, COLLECTION_BODY, seed } = require('./seed');
const { SCENARIOS } = require('./scenarios');
const { measureBounds } = require('./bounds');
const { measureSearch } = require('./search');
const { measureWebhookCost } = require('./webhooks');
const { measureNeighbours } = require('./neighbours');
const { measureUpload } = require('./uploads');
const { fmt } = require('./format');
const { machine, report } = require('./report');
const { rssKb } = require('./monitor');

async function main() {
  for (const file of [SERVICE_ENTRY, EMBEDDED_DB]) {
    if (!fs.existsSync(file))
      throw new Error(`${path.relative(ROOT, file)} is missing: build first (npm run bench builds)`);
  }
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const info = machine();
  const loadBefore = os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
  const scenarios = SCENARIOS.filter((scenario) => wanted(scenario.key, scenario.title));
  // A scenario bounded by another's command count (`commandsWithin`) brings that one along.
  for (const scenario of [...scenarios]) {
    const of = scenario.commandsWithin?.of;
    if (of && !scenarios.some((s) => s.key === of))
      scenarios.splice(
        scenarios.indexOf(scenario),
        0,
        SCENARIOS.find((s) => s.key === of),
      );
  }
  const boundsWanted = wanted('bounds');
  const webhooksWanted = wanted('webhooks');
  const searchWanted = wanted('search');
  // "neighbours" selects both runs of the section; "neighbours-bulk" or "neighbours-api" one.
  const neighbourRuns = ['bulk', 'api'].filter((via) => wanted(`neighbours-${via}`));
  const neighboursWanted = neighbourRuns.length > 0;
  const uploadWanted = wanted('upload');
  const mainWanted = scenarios.length > 0 || boundsWanted || webhooksWanted || searchWanted;
  if (!mainWanted && !neighboursWanted && !uploadWanted)
    throw new Error(`BENCH_ONLY=${process.env.BENCH_ONLY} matches no scenario`);

  log('Benchmark: service (dist/main.js) vs bare Fastify + mongodb baseline, both multi-tenant');
  log(`Machine: ${info.cores} cores, ${info.cpu}, ${info.memory} RAM, Node ${info.node}, ${info.platform}`);
  log(`Load average before: ${loadBefore}`);
  if (settings.quick)
    log(`Quick profile (BENCH_QUICK): ${settings.only.join(', ')}; every scenario's commands counted`);
  log(
    `Rounds: ${settings.rounds} x ${settings.seconds} s per side and scenario, alternating sides, after a ${settings.warmup} s warm-up per side; ` +
      `${settings.connections} connections; service NODE_ENV=production LOG_LEVEL=${settings.logLevel}; bcrypt cost ${settings.bcryptRounds} on both`,
  );
  log('Load generator, service, baseline and database all share this machine (autocannon runs in this process).');

  const { database, mongo, pids } = await startDatabase();
  setDatabaseProcesses(pids);
  const databases = [
    ...(mainWanted ? ['bench_service', 'bench_baseline'] : []),
    ...(uploadWanted ? ['bench_upload'] : []),
    ...neighbourRuns.map((via) => (via === 'api' ? 'bench_neighbours_api' : 'bench_neighbours')),
  ];
  log(`Database: embedded ${database.engine} at ${database.uri} (databases ${databases.join(', ')})`);

  const run = {
    info,
    database: { engine: database.engine, pids },
    loadBefore,
    results: [],
    bounds: [],
    webhookFailures: [],
    profiles: [],
  };
  if (mainWanted) await mainSections(run, { scenarios, boundsWanted, webhooksWanted, searchWanted, database, mongo });
  if (uploadWanted) run.upload = await measureUpload(database, mongo, sharedEnv(), argsFor('service', false));
  run.neighbours = [];
  for (const via of neighbourRuns)
    run.neighbours.push(await measureNeighbours(database, mongo, sharedEnv(), argsFor('service', false), via));
  run.loadAfter = os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
  return report(run);
}

/**
 * Two servers measured against each other, started one after the other by `starters` (service and
 * baseline); `first` starts (and answers /health) before the other. `restart` stops both and starts
 * them again in the other order.
 */
function pairOf(starters) {
  const pair = {
    live: undefined,
    async start(first) {
      const started = { first };
      for (const name of first === 'service' ? ['service', 'baseline'] : ['baseline', 'service'])
        started[name] = await starters[name]();
      pair.live = started;
      return started;
    },
    async restart() {
      await pair.stop();
      await pair.start(pair.live.first === 'service' ? 'baseline' : 'service');
      log(
        `    both servers started again, the ${pair.live.first} first (service pid ${pair.live.service.child.pid}, baseline pid ${pair.live.baseline.child.pid})`,
      );
    },
    running: () => [pair.live.service, pair.live.baseline],
    stop: () => Promise.all([stopServer(pair.live.service), stopServer(pair.live.baseline)]),
  };
  return pair;
}

/** How each side is started: the service, and the baseline or (A/A) a second copy of the service. */
function startersFor(shared, database, names, { copyAsBaseline = false, count = false } = {}) {
  const suffix = count ? '-count' : '';
  const counting = (name) => {
    if (!count) return { env: {}, args: [] };
    const socket = path.join(os.tmpdir(), `platform-bench-${process.pid}-${name}${suffix}.sock`);
    return { socket, env: { BENCH_COMMAND_SOCKET: socket }, args: ['--require', COUNT_PRELOAD] };
  };
  const withSocket = async (name, start) => {
    const server = await start();
    server.commandSocket = counting(name).socket;
    return server;
  };
  return {
    service: () =>
      withSocket('service', () =>
        startService(`service${suffix}`, { ...shared, ...counting('service').env }, database, names.service, [
          ...argsFor('service', !count),
          ...counting('service').args,
        ]),
      ),
    baseline: () =>
      withSocket('baseline', () =>
        copyAsBaseline
          ? startService(
              `baseline${suffix}`,
              { ...shared, ...counting('baseline').env },
              database,
              names.baseline,
              [...argsFor('copy', !count), ...counting('baseline').args],
              { asCopy: true },
            )
          : startServer(
              `baseline${suffix}`,
              BASELINE_ENTRY,
              {
                ...baselineLaunchEnv(),
                ...shared,
                ...counting('baseline').env,
                NODE_ENV: 'production',
                MONGODB_URI: `${database.uri}${names.baseline}${database.clientOptions ?? ''}`,
              },
              [...argsFor('baseline', !count), ...counting('baseline').args],
            ),
      ),
  };
}

/** Both sides seeded alike, their databases made alike, their tables analysed. */
async function seedBoth(pair, dbs, database) {
  const seeds = {};
  for (const server of pair.running()) seeds[server.name] = await seed(server, dbs[server.name]);
  log(
    `Seeded both: an account with ${settings.members} members (the admin included), a client and a channel, 50 collections, ` +
      `${settings.customers} customers, a saved card as the paying customer's default, an API key of the default project.`,
  );
  const mirrored = await mirrorServiceCollections(dbs.service, dbs.baseline);
  if (mirrored > 0)
    log(
      `Created the service's other ${mirrored} collections, empty and with their indexes, in the baseline's database`,
    );
  const ginIndexes = await addBaselineGinIndexes(database, dbs.baseline);
  if (ginIndexes > 0)
    log(`Added ${ginIndexes} GIN indexes to the baseline's database, as the service adds them to its own`);
  const settled = await settleStatistics(
    database,
    Object.values(dbs).map((db) => db.databaseName),
  );
  if (settled.waitedMs > 0)
    log(`Waited ${(settled.waitedMs / 1000).toFixed(0)} s for PostgreSQL to analyse the seeded tables`);
  if (settled.unanalysed.length > 0) log(`  still never analysed: ${settled.unanalysed.join(', ')}`);
  return seeds;
}

/**
 * Database commands per request of every scenario, on both sides, from a counting instance of each
 * (bench/count-commands.js) started beside the measured ones on the same databases and stopped
 * after: monitoring costs CPU, so no measured server has it. Returns the counts by scenario key.
 */
async function countAll(scenarios, starters, dbs, seeds) {
  log('  Database commands per request: a counting instance of each side, requests sent one at a time');
  const counting = pairOf(starters);
  const counts = {};
  try {
    await counting.start('service');
    for (const scenario of scenarios) {
      counts[scenario.key] = {};
      for (const server of counting.running()) {
        const side = server.name.replace(/-count$/, '');
        await scenario.reset?.(dbs[side]);
        try {
          counts[scenario.key][side] = await countCommands(server, scenario.request(seeds[side]));
        } catch (error) {
          counts[scenario.key][side] = { failed: error.message };
        }
      }
      const c = counts[scenario.key];
      const names = (side) =>
        side?.inRequest
          ? Object.entries(side.inRequest)
              .map(([name, n]) => `${name} ${fmt.count(n)}`)
              .join(', ')
          : '';
      log(
        `    ${scenario.title}: service ${fmt.commands(c.service)} [${names(c.service)}], baseline ${fmt.commands(c.baseline)} [${names(c.baseline)}]`,
      );
    }
  } finally {
    if (counting.live) await counting.stop();
  }
  // What the probes created goes, so the scenarios start from the seeded state (50 collections).
  for (const db of Object.values(dbs)) await db.collection('collections').deleteMany({ name: COLLECTION_BODY.name });
  return counts;
}

/** One scenario's rounds on a pair: alternating sides, over the lifetimes. Returns the row. */
async function measureScenario(pair, scenario, index, { seeds, dbs, lifetimes }) {
  const row = { key: scenario.key, title: scenario.title, rounds: [], failed: [] };
  log(`  ${scenario.title}`);
  const shapes = await compareShapes(scenario, pair.running(), seeds);
  row.bodyBytes = shapes.bodyBytes;
  if (shapes.problems.length > 0) {
    row.failed.push(...shapes.problems);
    log(`    FAILED, not measured: ${shapes.problems.join(' | ')}`);
    return row;
  }
  // A B A B ..., the side that starts alternating from one scenario to the next.
  const sides = index % 2 === 0 ? ['service', 'baseline'] : ['baseline', 'service'];
  row.order = sides;
  let r = 0;
  for (const [lifetime, roundsInLifetime] of split(settings.rounds, lifetimes).entries()) {
    if (lifetime > 0) await pair.restart();
    const order = sides.map((name) => pair.live[name]);
    // A server that has just started gets longer: its compiler has seen none of the code yet.
    const warmup = lifetime > 0 ? Math.max(settings.warmup, settings.restartWarmup) : settings.warmup;
    for (const server of order) {
      await scenario.reset?.(dbs[server.name]);
      await runAutocannon(server, scenario.request(seeds[server.name]), warmup);
    }
    for (let k = 0; k < roundsInLifetime; k += 1, r += 1) {
      const pairOfRounds = { lifetime, startedFirst: pair.live.first };
      for (const server of order) {
        await scenario.reset?.(dbs[server.name]);
        pairOfRounds[server.name] = await round(server, scenario.request(seeds[server.name]), settings.seconds);
        if (pairOfRounds[server.name].failed)
          row.failed.push(`${server.name}, round ${r + 1}: ${pairOfRounds[server.name].failed}`);
      }
      row.rounds.push(pairOfRounds);
      const [a, b] = [pairOfRounds.service, pairOfRounds.baseline];
      const ratio = a.rps && b.rps ? (a.rps / b.rps).toFixed(2) : '-';
      const cpu = (side) => side.cpuMicrosPerRequest?.judged ?? '-';
      log(
        `    round ${r + 1}: service ${fmt.roundRps(a)} req/s, baseline ${fmt.roundRps(b)} req/s, ratio ${ratio}; ` +
          `CPU µs a request (server + database) ${cpu(a)} vs ${cpu(b)}`,
      );
    }
  }
  row.summary = summarise(row.rounds);
  return row;
}

/** The service against the baseline: the command counts, the scenarios, the bounds, the webhook cost. */
async function mainSections(run, { scenarios, boundsWanted, webhooksWanted, searchWanted, database, mongo }) {
  const profileDir = PROFILE_DIR;
  if (settings.profile.length > 0 || settings.heapSnapshot) fs.mkdirSync(profileDir, { recursive: true });

  const shared = sharedEnv();
  const names = { service: 'bench_service', baseline: 'bench_baseline' };
  // BENCH_SELF_BASELINE: a second copy of the service in the baseline's place (an A/A run), to see
  // how far a ratio moves on this machine when there is no difference to measure.
  const copyAsBaseline = settings.selfBaseline;
  if (copyAsBaseline) log('BENCH_SELF_BASELINE: the baseline is a second copy of the service (an A/A run)');
  const pair = pairOf(startersFor(shared, database, names, { copyAsBaseline }));
  await pair.start('service');
  // The service idle, before any request but /health: the bound of issue 53 (bench/memory-bounds.js).
  await sleep(2_000);
  const idleSamples = [];
  for (let i = 0; i < 10; i += 1) {
    idleSamples.push(rssKb(pair.live.service.child.pid));
    await sleep(200);
  }
  run.serviceIdleKb = median(idleSamples);
  log(`Service RSS idle, before any request: ${(run.serviceIdleKb / 1024).toFixed(0)} MB`);
  const dbs = { service: mongo.db(names.service), baseline: mongo.db(names.baseline) };
  log(
    `Started service on :${pair.live.service.port} (pid ${pair.live.service.child.pid}) and baseline on :${pair.live.baseline.port} (pid ${pair.live.baseline.child.pid})`,
  );
  for (const server of pair.running())
    if (server.nodeArgs.length > 0) log(`  ${server.name} Node options: ${server.nodeArgs.join(' ')}`);
  const serviceEnv = Object.entries(settings.serviceEnv).map(([name, value]) => `${name}=${value}`);
  if (serviceEnv.length > 0) log(`  service environment over production's: ${serviceEnv.join(' ')}`);
  // Rounds are split over lifetimes of the two servers, each started in the other order than the
  // last: against a copy of itself the server started first tended to measure lower, and one
  // lifetime could stay off for a whole scenario (bench/README.md, "Two lifetimes").
  const lifetimes =
    settings.profile.length > 0 || settings.heapSnapshot ? 1 : Math.min(settings.lifetimes, settings.rounds);
  if (lifetimes > 1)
    log(`Each scenario's rounds run over ${lifetimes} lifetimes of both servers, started in alternating order`);

  const seeds = await seedBoth(pair, dbs, database);
  // The quick profile measures a few scenarios but counts the commands of every one: counts are
  // exact and cheap, and a count above the baseline's fails the run whatever else was measured.
  const counted = settings.quick ? SCENARIOS : scenarios;
  const counts =
    counted.length > 0
      ? await countAll(counted, startersFor(shared, database, names, { copyAsBaseline, count: true }), dbs, seeds)
      : {};

  const judged = [];
  for (const [index, scenario] of scenarios.entries())
    judged.push({ scenario, row: await measureScenario(pair, scenario, index, { seeds, dbs, lifetimes }) });
  for (const scenario of counted) {
    if (!scenarios.includes(scenario))
      judged.push({
        scenario,
        row: { key: scenario.key, title: scenario.title, rounds: [], failed: [], countedOnly: true },
      });
  }
  for (const { scenario, row } of judged) {
    row.commands = counts[scenario.key];
    const { service, baseline } = row.commands ?? {};
    for (const [side, count] of Object.entries(row.commands ?? {}))
      if (count.failed) row.failed.push(`commands counted on the ${side}: ${count.failed}`);
    // Counts are exact: one command more than the baseline is a regression, whatever the clocks say.
    if (
      service?.perRequest !== undefined &&
      baseline?.perRequest !== undefined &&
      service.perRequest > baseline.perRequest + 1e-9
    ) {
      row.failed.push(
        `the service sends ${fmt.count(service.perRequest)} database commands a request, the baseline ${fmt.count(baseline.perRequest)}`,
      );
    }
    const within = scenario.commandsWithin;
    const reference = within && counts[within.of]?.service;
    if (within && service?.perRequest !== undefined && reference?.perRequest !== undefined) {
      row.commandsAbove = { of: within.of, extra: service.perRequest - reference.perRequest, allowed: within.extra };
      log(
        `    commands a request: ${fmt.count(service.perRequest)} here, ${fmt.count(reference.perRequest)} for ${within.of} (at most ${within.extra} more allowed)`,
      );
      if (service.perRequest > reference.perRequest + within.extra + 1e-9) {
        row.failed.push(
          `the service sends ${fmt.count(service.perRequest)} database commands a request, ${fmt.count(reference.perRequest)} for ${within.of}: more than ${within.extra} above it`,
        );
      }
    }
    run.results.push(row);
    if (settings.heapSnapshot && !row.countedOnly && pair.live.service.alive) {
      // Unmeasured: the snapshot stops the process for a while. Taken half-way through a load run.
      const load = runAutocannon(pair.live.service, scenario.request(seeds.service), settings.seconds);
      await sleep((settings.seconds * 1000) / 2);
      pair.live.service.child.kill('SIGUSR2');
      await load;
      log(`    heap snapshot of the service requested under load (written to ${path.relative(ROOT, profileDir)}/)`);
    }
  }
  Object.assign(run, { service: pair.live.service, baseline: pair.live.baseline });
  if (boundsWanted) run.bounds = await measureBounds(pair.running(), dbs, seeds);
  // After every scenario and the bounds: none of them meets the larger projects collection.
  if (searchWanted) run.bounds.push(...(await measureSearch(pair.running(), dbs, seeds)));

  if (webhooksWanted) {
    log(
      '  Webhook cost: POST /api/v1/payments in a project with one enabled endpoint, on both sides (each delivers to the same receiver)',
    );
    try {
      run.webhookCost = await measureWebhookCost(pair.live, {
        call,
        expectStatus,
        round,
        runAutocannon,
        settings,
        log,
        median,
        password: PASSWORD,
        dbs,
        watchServerCpu,
        send,
        readCommands,
        counting: () => pairOf(startersFor(shared, database, names, { copyAsBaseline, count: true })),
      });
      const delivery = run.webhookCost.summary.delivery;
      log(
        `    CPU a delivery ${fmt.micros(delivery.service)} vs ${fmt.micros(delivery.baseline)} µs, ratio ${fmt.ratio(delivery.cpuRatio)} ` +
          `(rounds ${fmt.cpuSpread(delivery)}); throughput ratio ${fmt.ratio(run.webhookCost.ratio)}`,
      );
      run.webhookFailures.push(...run.webhookCost.failed.map((failure) => `webhook cost: ${failure}`));
    } catch (error) {
      run.webhookFailures.push(`webhook cost: ${error.message}`);
      log(`    FAILED: ${error.message}`);
    }
  }

  // Profiles are written when the servers exit.
  if (settings.profile.length > 0) {
    for (const side of settings.profile) {
      const server = pair.live[side];
      await stopServer(server);
      for (const file of profilesOf(server, profileDir)) run.profiles.push({ side, file });
    }
  }
  // Idle servers still do background work (the event outbox, webhook deliveries): none of it should
  // land on the later sections' timings.
  await pair.stop();

  // The A/A band of this run: the first scenario again, with a second copy of the service in the
  // baseline's place, on databases of their own seeded the same way.
  if (scenarios.length > 0 && !copyAsBaseline && settings.selfBand) {
    const aaNames = { service: 'bench_aa_first', baseline: 'bench_aa_second' };
    log(`  A/A band: ${scenarios[0].title} again, the service against a second copy of itself`);
    const aa = pairOf(startersFor(shared, database, aaNames, { copyAsBaseline: true }));
    try {
      await aa.start('service');
      const aaDbs = { service: mongo.db(aaNames.service), baseline: mongo.db(aaNames.baseline) };
      const aaSeeds = await seedBoth(aa, aaDbs, database);
      run.selfBand = await measureScenario(aa, scenarios[0], 0, { seeds: aaSeeds, dbs: aaDbs, lifetimes });
    } catch (error) {
      run.selfBand = { key: scenarios[0].key, title: scenarios[0].title, rounds: [], failed: [error.message] };
      log(`    FAILED: ${error.message}`);
    } finally {
      if (aa.live) await aa.stop();
      for (const name of Object.values(aaNames)) await dropDatabase(database, mongo, name).catch(() => undefined);
    }
  }
}

/** `total` rounds over `parts` lifetimes, as evenly as they go (4 over 2: 2 and 2; 5 over 2: 3 and 2). */
function split(total, parts) {
  return Array.from({ length: parts }, (_, part) => Math.floor(total / parts) + (part < total % parts ? 1 : 0));
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
