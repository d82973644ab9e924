'use strict';
/** Paths, the BENCH_* settings read from the environment, and small helpers every part shares. */
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const RESULTS_DIR = path.join(__dirname, 'results');
const PROFILE_DIR = path.join(RESULTS_DIR, 'profiles');
const DIST = path.resolve(ROOT, process.env.BENCH_DIST || 'dist');
const SERVICE_ENTRY = path.join(DIST, 'main.js');
const EMBEDDED_DB = path.join(DIST, 'database', 'embedded-database.js');
// The service runs from a copy of dist/, so a rebuild during the run cannot pull it away.
const DIST_SNAPSHOT = path.join(RESULTS_DIR, 'dist-snapshot');
// BENCH_COPY_DIST: another build the A/A copy runs from (an A/B run of two builds), copied likewise.
const COPY_DIST = process.env.BENCH_COPY_DIST ? path.resolve(ROOT, process.env.BENCH_COPY_DIST) : null;
const COPY_DIST_SNAPSHOT = path.join(RESULTS_DIR, 'dist-snapshot-copy');
const BASELINE_ENTRY = path.join(__dirname, 'baseline', 'server.js');
const COUNT_PRELOAD = path.join(__dirname, 'count-commands.js');

const words = (name) => (process.env[name] || '').split(/\s+/).filter(Boolean);

/** `NAME=value` words of a variable as an environment; a word without `=` stops the run. */
function environment(name) {
  return Object.fromEntries(
    words(name).map((word) => {
      const at = word.indexOf('=');
      if (at < 1) throw new Error(`${name}: "${word}" is not NAME=value`);
      return [word.slice(0, at), word.slice(at + 1)];
    }),
  );
}

/**
 * `BENCH_QUICK=1` (`npm run bench:quick`): the same bench with fewer, shorter rounds on one lifetime
 * of the servers, the main scenarios (`QUICK_SECTIONS`, unless BENCH_ONLY says otherwise) and the
 * upload; every scenario's commands are still counted and judged. Any BENCH_* variable set
 * explicitly wins over the quick default.
 */
const quick = ['1', 'true', 'yes'].includes((process.env.BENCH_QUICK || '').toLowerCase());
const QUICK_SECTIONS = ['channel', 'collections', 'payment', 'customer-key', 'viewer', 'members', 'webhooks', 'upload'];
const QUICK_DEFAULTS = { BENCH_ROUNDS: 2, BENCH_SECONDS: 3, BENCH_WARMUP: 1, BENCH_LIFETIMES: 1 };
const quickDefault = (name, fallback) =>
  quick && QUICK_DEFAULTS[name] !== undefined ? QUICK_DEFAULTS[name] : fallback;

const settings = {
  quick,
  rounds: positiveInteger('BENCH_ROUNDS', quickDefault('BENCH_ROUNDS', 4)),
  seconds: positiveNumber('BENCH_SECONDS', quickDefault('BENCH_SECONDS', 5)),
  warmup: positiveNumber('BENCH_WARMUP', quickDefault('BENCH_WARMUP', 2)),
  // Lifetimes of both servers each scenario's rounds are split over (started in alternating order), and
  // the warm-up of a server that has just started again.
  lifetimes: positiveInteger('BENCH_LIFETIMES', quickDefault('BENCH_LIFETIMES', 2)),
  restartWarmup: positiveNumber('BENCH_RESTART_WARMUP', 5),
  connections: positiveInteger('BENCH_CONNECTIONS', 10),
  logLevel: process.env.BENCH_LOG_LEVEL || 'info',
  bcryptRounds: positiveInteger('BENCH_BCRYPT_ROUNDS', 12),
  boundsSeed: positiveInteger('BENCH_BOUNDS_SEED', 10_000),
  boundsConnections: positiveInteger('BENCH_BOUNDS_CONNECTIONS', 2),
  searchSeed: positiveInteger('BENCH_SEARCH_SEED', 10_000),
  // Extra Node options: for both servers, then for one side only (e.g. "--cpu-prof --cpu-prof-dir=bench/results/profiles").
  nodeArgs: words('BENCH_NODE_ARGS'),
  serviceNodeArgs: words('BENCH_SERVICE_NODE_ARGS'),
  baselineNodeArgs: words('BENCH_BASELINE_NODE_ARGS'),
  // The baseline runs as the service is deployed (production's Node options and environment: the same
  // heap limits), unless this asks for Node's defaults, which size the young generation by the
  // machine's memory.
  baselineOnNodeDefaults: ['1', 'true', 'yes'].includes((process.env.BENCH_BASELINE_NODE_DEFAULTS || '').toLowerCase()),
  // Extra environment of the service only, over production's (e.g. an allocator's variables); in an
  // A/A run the copy keeps production's, so one variable is tried against the same build.
  serviceEnv: environment('BENCH_SERVICE_ENV'),
  profile: profileSides(process.env.BENCH_PROFILE),
  selfBaseline: ['1', 'true', 'yes'].includes((process.env.BENCH_SELF_BASELINE || '').toLowerCase()),
  // The A/A band of every run (the first scenario, the service against a copy of itself); 0 skips it.
  selfBand: !['0', 'false', 'no'].includes((process.env.BENCH_SELF_BAND || '').toLowerCase()),
  heapSnapshot: ['1', 'true', 'yes'].includes((process.env.BENCH_HEAP_SNAPSHOT || '').toLowerCase()),
  only:
    process.env.BENCH_ONLY || !quick
      ? (process.env.BENCH_ONLY || '')
          .split(',')
          .map((part) => part.trim().toLowerCase())
          .filter(Boolean)
      : QUICK_SECTIONS,
  /** Members of the seeded account, the admin included; login rotates over them. */
  members: 10,
  customers: 25,
  shapeSamples: 3,
  // The neighbours section: the largest tenant it grows (1,000, 10,000 and 100,000 at most), and
  // how many requests, sent one at a time, each of its medians is taken over.
  neighboursMax: positiveInteger('BENCH_NEIGHBOURS_MAX', 100_000),
  neighboursRequests: positiveInteger('BENCH_NEIGHBOURS_REQUESTS', 20),
  // The same section with B's records made through the API: its largest level (1,000 and 10,000 at most).
  neighboursApiMax: positiveInteger('BENCH_NEIGHBOURS_API_MAX', 10_000),
  // The upload section: the file's size and the size of each PATCH, in MiB.
  uploadMib: positiveInteger('BENCH_UPLOAD_MIB', 100),
  uploadChunkMib: positiveInteger('BENCH_UPLOAD_CHUNK_MIB', 5),
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
  settings.only.length === 0 ||
  settings.only.some((part) => key.toLowerCase().includes(part) || title.toLowerCase().includes(part));
const log = (message) => process.stdout.write(`${message}\n`);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
/** The monotonic clock the V8 CPU profiler stamps its samples with, in microseconds. */
const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

module.exports = {
  ROOT,
  RESULTS_DIR,
  PROFILE_DIR,
  DIST,
  SERVICE_ENTRY,
  EMBEDDED_DB,
  DIST_SNAPSHOT,
  COPY_DIST,
  COPY_DIST_SNAPSHOT,
  BASELINE_ENTRY,
  COUNT_PRELOAD,
  settings,
  wanted,
  log,
  sleep,
  monotonicMicros,
};
