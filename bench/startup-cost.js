'use strict';
/**
 * What the service costs in memory at start, and what each library it may load costs.
 *
 *   node bench/startup-cost.js                   (after nest build)
 *   STARTUP_HEAP_SNAPSHOT=1 node bench/startup-cost.js
 *
 * 1. The idle service: the built service (dist/main.js) started as the bench starts it, with the
 *    Node options of `npm run start:prod` (the Dockerfile's CMD), NODE_ENV=production, on a
 *    throwaway embedded database; once it answers /health and has been left alone 5 s, its RSS is
 *    sampled every 100 ms for 2 s (median), and a preload (bench/memory-probe.js) reports its heap and
 *    the packages it has loaded (with STARTUP_HEAP_SNAPSHOT=1, and a heap snapshot under
 *    bench/results/profiles/). Then the same after one request to each of /docs-json and /health.
 * 2. Each library on its own: a fresh Node process with the same options imports it alone; the table
 *    is its RSS and heap (after a full GC) above a process that imported nothing, and whether the idle
 *    service had it loaded.
 *
 * Writes bench/results/startup-cost.json; exits non-zero when the idle RSS passes the bench's bound
 * (bench/memory-bounds.js's IDLE_RSS_MB), the idle service loaded a library only some requests or
 * jobs need (`LOADED_ON_FIRST_USE`), or it built an Intl object (memory-probe.js says why).
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, RESULTS_DIR, PROFILE_DIR, SERVICE_ENTRY, log, sleep } = require('./settings');
const { cleanup, startDatabase, startService, stopServer, argsFor, sharedEnv } = require('./processes');
const { IDLE_RSS_MB } = require('./memory-bounds');

/** The libraries a capability brings, measured one by one (those the service needs on every request last). */
const LIBRARIES = [
  'sharp',
  'music-metadata',
  '@aws-sdk/client-s3',
  '@aws-sdk/s3-request-presigner',
  '@tus/server',
  '@tus/file-store',
  '@tus/s3-store',
  '@simplewebauthn/server',
  'nodemailer',
  'otplib',
  'ioredis',
  '@nestjs/swagger',
  '@fastify/static',
  'mongoose',
  'bcrypt',
  '@nestjs/core',
  'fastify',
];

/**
 * Libraries the idle service must not have loaded: what only some requests or jobs need (loaded by
 * the first, through `LazyLibrary`), and a scheduler's cron and date libraries the job runner does not
 * use. One of them loaded at idle fails the run.
 */
const LOADED_ON_FIRST_USE = [
  'sharp',
  'music-metadata',
  '@tus/server',
  '@tus/file-store',
  '@simplewebauthn/server',
  'nodemailer',
  'otplib',
  'cron',
  'luxon',
];

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;

function rssKb(pid) {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
}

async function idleRss(pid, seconds = 2) {
  const samples = [];
  for (let i = 0; i < seconds * 10; i += 1) {
    samples.push(rssKb(pid));
    await sleep(100);
  }
  return Math.round(median(samples) / 1024);
}

async function probe(server, file) {
  fs.rmSync(file, { force: true });
  server.child.kill('SIGUSR2');
  const deadline = Date.now() + 60_000;
  while (!fs.existsSync(file) && Date.now() < deadline) await sleep(100);
  await sleep(200);
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** A library's cost in a fresh process with the production options, against one that imports nothing. */
function libraryCost(name, nodeArgs) {
  const script = `
    const before = process.memoryUsage();
    const load = ${JSON.stringify(name)} ? import(${JSON.stringify(name)}) : Promise.resolve();
    load.then(() => { gc(); gc(); const after = process.memoryUsage();
      process.stdout.write(JSON.stringify({ rss: after.rss, heap: after.heapUsed, external: after.external })); },
      (error) => process.stdout.write(JSON.stringify({ error: error.message.split('\\n')[0] })));`;
  const out = execFileSync(process.execPath, [...nodeArgs, '--expose-gc', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

async function main() {
  if (!fs.existsSync(SERVICE_ENTRY)) throw new Error('dist/main.js is missing: run nest build first');
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const snapshot = ['1', 'true', 'yes'].includes((process.env.STARTUP_HEAP_SNAPSHOT || '').toLowerCase());
  if (snapshot) fs.mkdirSync(PROFILE_DIR, { recursive: true });
  const nodeArgs = argsFor('service', false);
  const settleSeconds = Number(process.env.STARTUP_IDLE_SECONDS || 5);
  const memoryFile = path.join(os.tmpdir(), `platform-startup-${process.pid}.json`);

  const { database } = await startDatabase();
  const env = {
    ...sharedEnv(),
    BENCH_MEMORY_FILE: memoryFile,
    ...(snapshot ? { BENCH_HEAP_SNAPSHOT_DIR: PROFILE_DIR } : {}),
  };
  const started = Date.now();
  const server = await startService('startup', env, database, 'bench_startup', [
    ...nodeArgs,
    '--require',
    path.join(__dirname, 'memory-probe.js'),
  ]);
  const startMs = Date.now() - started;
  await sleep(settleSeconds * 1000);
  const idle = { rssMb: await idleRss(server.child.pid), ...(await probe(server, memoryFile)) };
  for (const route of ['/docs-json', '/health']) await (await fetch(`${server.base}${route}`)).arrayBuffer();
  await sleep(2_000);
  const afterDocs = { rssMb: await idleRss(server.child.pid), ...(await probe(server, memoryFile)) };
  await stopServer(server);
  fs.rmSync(memoryFile, { force: true });
  await database.stop?.();

  log(`Service (${nodeArgs.join(' ')}), started in ${(startMs / 1000).toFixed(1)} s:`);
  const line = (label, m) =>
    log(
      `  ${label.padEnd(28)} RSS ${String(m.rssMb).padStart(4)} MB, heap used ${mb(m.memory.heapUsed)} MB of ${mb(m.memory.heapTotal)}, external ${mb(m.memory.external)} MB`,
    );
  line('idle', idle);
  line('after /docs-json', afterDocs);
  if (idle.snapshot) log(`  heap snapshot: ${path.relative(ROOT, idle.snapshot)}`);

  log(
    '\nEach library alone, in a fresh process with the same options (after a full GC), above a process that imported nothing:',
  );
  const empty = libraryCost('', nodeArgs);
  const rows = [];
  for (const name of LIBRARIES) {
    const cost = libraryCost(name, nodeArgs);
    const row = cost.error
      ? { name, error: cost.error }
      : {
          name,
          rssMb: mb(cost.rss - empty.rss),
          heapMb: mb(cost.heap - empty.heap),
          loadedAtIdle: Boolean(idle.packages[name]),
        };
    rows.push(row);
  }
  log('| library | RSS MB | heap MB | loaded by the idle service |');
  log('| --- | --- | --- | --- |');
  for (const row of rows)
    log(
      row.error
        ? `| ${row.name} | - | - | (${row.error}) |`
        : `| ${row.name} | ${row.rssMb} | ${row.heapMb} | ${row.loadedAtIdle ? 'yes' : 'no'} |`,
    );
  const loaded = Object.entries(idle.packages).sort((a, b) => b[1] - a[1]);
  log(`\nPackages the idle service has loaded (${loaded.length}), by KiB of source (V8 keeps it as strings):`);
  log(loaded.map(([name, bytes]) => `${name} ${Math.round(bytes / 1024)}`).join(', '));

  fs.writeFileSync(
    path.join(RESULTS_DIR, 'startup-cost.json'),
    JSON.stringify({ nodeArgs, startMs, idle, afterDocs, libraries: rows }, null, 2),
  );
  const early = LOADED_ON_FIRST_USE.filter((name) => idle.packages[name]);
  log(
    early.length === 0
      ? `Not loaded at idle, as expected: ${LOADED_ON_FIRST_USE.join(', ')}`
      : `LOADED at idle, though only some requests or jobs need them: ${early.join(', ')}`,
  );
  log(
    idle.firstIntl
      ? `The idle service BUILT an Intl object (${idle.firstIntl.what}), which maps ICU's locale data for good:\n  ${idle.firstIntl.at.join('\n  ')}`
      : "No Intl object built at idle: ICU's locale data is not mapped",
  );
  const ok = idle.rssMb <= IDLE_RSS_MB;
  log(`\nIdle RSS ${idle.rssMb} MB: ${ok ? 'within' : 'ABOVE'} the bound of ${IDLE_RSS_MB} MB`);
  return ok && early.length === 0 && !idle.firstIntl;
}

main()
  .then(async (ok) => {
    await cleanup();
    process.exit(ok ? 0 : 1);
  })
  .catch(async (error) => {
    process.stderr.write(`\nstartup-cost failed: ${error.stack ?? error}\n`);
    await cleanup();
    process.exit(1);
  });
