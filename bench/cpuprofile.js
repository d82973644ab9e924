'use strict';
/**
 * Where a server's CPU time goes, from a V8 `.cpuprofile` (node --cpu-prof).
 *
 *   node bench/cpuprofile.js <file.cpuprofile> [--results bench/results/latest.json --scenario <key> [--side service]]
 *                                              [--from <µs> --to <µs>] [--top 20]
 *
 * With --results and --scenario, only the samples taken during that scenario's measured rounds of
 * that side count (the benchmark records each round's window on the same monotonic clock as the
 * profiler), and costs are also given per request. Without, the whole profile counts (start-up and
 * seeding included).
 *
 * Four views, each in % of the busy time (every sample but "(idle)"):
 * - self time by component (additive): the first frame from the leaf up that belongs to a known
 *   library or to the service decides, so Node's socket writes count for whoever wrote;
 * - self time by package or file: where the CPU was when sampled (native builtins such as
 *   JSON.stringify or RegExp are charged to the JavaScript that called them);
 * - pipeline stages, inclusive: a sample counts for a stage when any frame of its stack belongs to
 *   it (so stages overlap: pino's JSON.stringify is both logging and serialisation); after an await
 *   the resumed function is at the bottom of the stack, so async work is charged to its stage too;
 * - the functions with the most self time.
 */
const fs = require('node:fs');
const path = require('node:path');

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** The package of a node_modules path (scoped included), or undefined. */
function packageOf(url) {
  const at = url.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const rest = url.slice(at + '/node_modules/'.length).split('/');
  return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
}

/** The service's own file, relative to its build (dist/ or the benchmark's copy of it), or undefined. */
function serviceFile(url) {
  if (url.includes('/node_modules/')) return undefined;
  const match = /\/(?:dist|dist-snapshot)\/(.+)$/.exec(url.replace(/^file:\/\//, ''));
  return match ? match[1] : undefined;
}

/** Self-time group of a frame with a script: a package, a service file, a Node module. */
function groupOf(frame) {
  const { url, functionName } = frame;
  if (!url) return SPECIAL.has(functionName) ? functionName : undefined;
  const pkg = packageOf(url);
  if (pkg) return pkg;
  const own = serviceFile(url);
  if (own) return `service: ${own}`;
  if (url.includes('/bench/baseline/')) return `baseline: ${path.basename(url)}`;
  if (url.startsWith('node:')) {
    const name = url.slice('node:'.length).replace(/^internal\//, '');
    return `node: ${name.split('/')[0].replace(/\.js$/, '')}`;
  }
  return url;
}

/**
 * Components, for the additive view: the first frame from the leaf up that belongs to one decides
 * (Node's own modules are transparent, so a socket write counts for the driver or the HTTP reply that
 * made it, except file writes, which only the logger makes while serving, and async_hooks).
 */
const LOGGING = new Set([
  'pino',
  'pino-http',
  'nestjs-pino',
  'pino-std-serializers',
  'sonic-boom',
  'fast-redact',
  '@pinojs/redact',
  'thread-stream',
  'on-exit-leak-free',
  'quick-format-unescaped',
  'atomic-sleep',
]);
function componentOf(frame) {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === '(garbage collector)') return 'garbage collection';
    if (functionName === '(program)') return 'V8/native outside JavaScript ("(program)")';
    return undefined;
  }
  const pkg = packageOf(url);
  if (pkg) {
    if (LOGGING.has(pkg)) return 'logging (pino, nestjs-pino; file writes)';
    if (pkg === 'mongodb' || pkg === 'bson') return 'MongoDB driver and BSON (socket I/O included)';
    if (['mongoose', 'mquery', 'mpath', 'kareem', 'sift'].includes(pkg)) return 'Mongoose';
    if (['helmet', '@fastify/helmet', '@fastify/cors', 'cors', 'vary'].includes(pkg)) return 'helmet and CORS headers';
    if (
      [
        'jsonwebtoken',
        'jws',
        'jwa',
        '@nestjs/jwt',
        'safe-buffer',
        'buffer-equal-constant-time',
        'ecdsa-sig-formatter',
        'semver',
        'ms',
      ].includes(pkg)
    )
      return 'JWT (jsonwebtoken)';
    if (['class-validator', 'class-transformer', 'validator', 'libphonenumber-js'].includes(pkg))
      return 'validation (class-validator, class-transformer)';
    if (pkg === 'rxjs') return 'rxjs (interceptors)';
    if (
      pkg.startsWith('@nestjs/') ||
      ['reflect-metadata', '@fastify/middie', 'path-to-regexp', 'iterare', 'uid', 'eventemitter2'].includes(pkg)
    )
      return 'Nest framework';
    if (
      [
        'fastify',
        'find-my-way',
        'light-my-request',
        'avvio',
        'secure-json-parse',
        'fast-json-stringify',
        'fast-querystring',
        'toad-cache',
        'process-warning',
        'abstract-logging',
        'rfdc',
        'fast-decode-uri-component',
      ].includes(pkg) ||
      pkg.startsWith('@fastify/')
    )
      return 'Fastify (routing, hooks, reply; socket writes included)';
    if (pkg === 'bcrypt') return 'bcrypt (main-thread part)';
    return `other package: ${pkg}`;
  }
  const own = serviceFile(url);
  if (own === 'app.factory.js') return 'request id hook, JSON body parser (app.factory)';
  if (own !== undefined) return 'service code (controllers, guards, services, mappers)';
  if (url.includes('/bench/baseline/')) return 'baseline code';
  if (url === 'node:fs' || url.startsWith('node:internal/fs/')) return 'logging (pino, nestjs-pino; file writes)';
  if (url.includes('async_hooks')) return 'async context tracking (async_hooks promise hooks)';
  return undefined;
}

/**
 * Pipeline stages. `match(frame, pkg, own)` sees one stack frame with its package and service file.
 * Order is only the order of the report.
 */
const STAGES = [
  {
    name: 'authentication: JwtAuthGuard, jsonwebtoken, API key lookup',
    match: (f, pkg, own) =>
      ['jsonwebtoken', 'jws', 'jwa', '@nestjs/jwt'].includes(pkg) ||
      /^(auth\/jwt-auth\.guard|api-keys\/)/.test(own ?? ''),
  },
  {
    name: 'tenancy: TenancyGuard, membership and project reads',
    match: (f, pkg, own) =>
      /^(auth\/tenancy\.guard|accounts\/memberships\.service|platform-projects\/platform-projects\.service)/.test(
        own ?? '',
      ),
  },
  { name: 'roles guard', match: (f, pkg, own) => own?.startsWith('auth/roles.guard') ?? false },
  {
    name: 'validation: ValidationPipe, class-validator, class-transformer, ParseObjectIdPipe',
    match: (f, pkg, own) =>
      ['class-validator', 'class-transformer', 'validator', 'libphonenumber-js'].includes(pkg) ||
      (own?.startsWith('common/pipes/') ?? false),
  },
  {
    name: 'Idempotency-Key and X-Total-Count: IdempotencyGuard, its response hook, withTotalCount, rxjs',
    match: (f, pkg, own) => pkg === 'rxjs' || /^(idempotency\/|common\/paging\/total-count)/.test(own ?? ''),
  },
  {
    name: 'Nest core: router, guards/pipes/interceptors consumers, param factories',
    match: (f, pkg) => pkg === '@nestjs/core' || pkg === '@nestjs/common' || pkg === '@nestjs/platform-fastify',
  },
  {
    name: 'logging: pino, pino-http, nestjs-pino',
    match: (f, pkg) =>
      [
        'pino',
        'pino-http',
        'nestjs-pino',
        'pino-std-serializers',
        'sonic-boom',
        'fast-redact',
        '@pinojs/redact',
        'thread-stream',
        'on-exit-leak-free',
      ].includes(pkg),
  },
  {
    name: 'headers: helmet, CORS, X-Request-Id',
    match: (f, pkg, own) =>
      ['helmet', '@fastify/helmet', '@fastify/cors', 'cors', 'vary'].includes(pkg) ||
      own === 'app.factory.js' ||
      f.functionName === 'randomUUID',
  },
  {
    name: 'JSON serialisation (JSON.stringify, fast-json-stringify)',
    match: (f, pkg) => (!f.url && f.functionName === 'stringify') || pkg === 'fast-json-stringify',
  },
  {
    name: 'JSON parsing (bodies, tokens)',
    match: (f, pkg) => (!f.url && f.functionName === 'parse') || pkg === 'secure-json-parse',
  },
  {
    name: 'Mongoose: queries, casting, hooks (tenantOwned), documents',
    match: (f, pkg) => ['mongoose', 'mquery', 'mpath', 'kareem', 'sift'].includes(pkg),
  },
  { name: 'MongoDB driver and BSON', match: (f, pkg) => pkg === 'mongodb' || pkg === 'bson' },
  {
    name: 'async context tracking (AsyncLocalStorage, AsyncResource: async_hooks)',
    match: (f) => f.url.includes('async_hooks'),
  },
  {
    name: 'Fastify: routing, hooks, reply',
    match: (f, pkg) => pkg === 'fastify' || pkg === 'find-my-way' || pkg === 'avvio' || pkg === 'light-my-request',
  },
  {
    name: 'service code: controllers, services, mappers (own frames)',
    match: (f, pkg, own) => own !== undefined,
  },
  { name: 'baseline code (own frames)', match: (f) => f.url.includes('/bench/baseline/') },
  {
    name: 'event emitter (@nestjs/event-emitter, eventemitter2)',
    match: (f, pkg) => pkg === 'eventemitter2' || pkg === '@nestjs/event-emitter',
  },
  { name: 'bcrypt (main thread part)', match: (f, pkg) => pkg === 'bcrypt' },
  { name: 'garbage collection', match: (f) => f.functionName === '(garbage collector)' },
  { name: 'V8/native outside JavaScript ("(program)")', match: (f) => f.functionName === '(program)' },
];

/**
 * Self time by group, inclusive time by stage and self time by function, over the samples inside
 * `windows` ([{ startedAt, endedAt }] in µs of the profiler's clock; none: every sample).
 */
function analyseProfile(profile, { windows = [], requests } = {}) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // Per node, cached: its group (native frames take their caller's), its stages.
  const groupCache = new Map();
  const group = (id) => {
    if (groupCache.has(id)) return groupCache.get(id);
    const frame = nodes.get(id).callFrame;
    let value = groupOf(frame);
    if (value === undefined) value = parent.has(id) ? group(parent.get(id)) : '(native)';
    if (value === '(root)') value = '(native)';
    groupCache.set(id, value);
    return value;
  };
  const componentCache = new Map();
  const component = (id) => {
    if (componentCache.has(id)) return componentCache.get(id);
    const node = nodes.get(id);
    let value = componentOf(node.callFrame);
    if (value === undefined) {
      const up = parent.get(id);
      const above = up === undefined || nodes.get(up).callFrame.functionName === '(root)' ? undefined : component(up);
      value = above ?? `Node runtime (${groupOf(node.callFrame) ?? 'native'})`;
    }
    componentCache.set(id, value);
    return value;
  };
  const stageCache = new Map();
  const stagesOf = (id) => {
    if (stageCache.has(id)) return stageCache.get(id);
    const frame = nodes.get(id).callFrame;
    const pkg = frame.url ? packageOf(frame.url) : undefined;
    const own = frame.url ? serviceFile(frame.url) : undefined;
    const here = new Set(STAGES.filter((stage) => stage.match(frame, pkg, own)).map((stage) => stage.name));
    const above = parent.has(id) ? stagesOf(parent.get(id)) : new Set();
    const all = new Set([...above, ...here]);
    stageCache.set(id, all);
    return all;
  };

  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const times = new Array(samples.length);
  let t = profile.startTime;
  for (let i = 0; i < samples.length; i += 1) {
    t += deltas[i] ?? 0;
    times[i] = t;
  }
  const inWindow = (time) => windows.length === 0 || windows.some((w) => time >= w.startedAt && time <= w.endedAt);

  const byComponent = new Map();
  const byGroup = new Map();
  const byStage = new Map();
  const byFunction = new Map();
  let total = 0;
  let idle = 0;
  for (let i = 0; i < samples.length; i += 1) {
    if (!inWindow(times[i])) continue;
    // A sample stands for the time until the next one.
    const weight = i + 1 < samples.length ? times[i + 1] - times[i] : (deltas[i] ?? 0);
    if (weight <= 0) continue;
    const id = samples[i];
    const frame = nodes.get(id).callFrame;
    total += weight;
    if (frame.functionName === '(idle)') {
      idle += weight;
      continue;
    }
    const c = component(id);
    byComponent.set(c, (byComponent.get(c) ?? 0) + weight);
    const g = group(id);
    byGroup.set(g, (byGroup.get(g) ?? 0) + weight);
    for (const stage of stagesOf(id)) byStage.set(stage, (byStage.get(stage) ?? 0) + weight);
    const where = frame.url
      ? `${frame.functionName || '(anonymous)'} ${groupOf(frame)}:${frame.lineNumber + 1}`
      : `${frame.functionName || '(anonymous)'} (native, in ${g})`;
    byFunction.set(where, (byFunction.get(where) ?? 0) + weight);
  }
  const busy = total - idle;
  const rank = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([name, micros]) => ({
        name,
        micros,
        share: busy > 0 ? micros / busy : 0,
        perRequest: requests ? micros / requests : undefined,
      }));
  return {
    windowMicros: total,
    busyMicros: busy,
    busyShare: total > 0 ? busy / total : 0,
    requests,
    perRequestMicros: requests ? busy / requests : undefined,
    components: rank(byComponent),
    groups: rank(byGroup),
    stages: rank(byStage),
    functions: rank(byFunction),
  };
}

function formatAnalysis(analysis, { title = 'CPU profile', top = 20 } = {}) {
  const pct = (share) => `${(share * 100).toFixed(1).padStart(5)} %`;
  const per = (row) => (row.perRequest === undefined ? '' : `  ${row.perRequest.toFixed(0).padStart(5)} µs/req`);
  const lines = [
    `== ${title}`,
    `sampled ${(analysis.windowMicros / 1e6).toFixed(1)} s, busy ${(analysis.busyShare * 100).toFixed(0)} % of it` +
      (analysis.requests
        ? `; ${analysis.requests} requests, ${analysis.perRequestMicros.toFixed(0)} µs of main-thread CPU per request`
        : ''),
    '',
    'Self time by component (additive; Node internals charged to the library that called them; % of busy):',
    ...analysis.components.map((row) => `  ${pct(row.share)}${per(row)}  ${row.name}`),
    '',
    'Self time by package or file (% of busy):',
    ...analysis.groups.slice(0, top).map((row) => `  ${pct(row.share)}${per(row)}  ${row.name}`),
    '',
    'Pipeline stages, inclusive (overlapping; % of busy):',
    ...analysis.stages.filter((row) => row.share >= 0.001).map((row) => `  ${pct(row.share)}${per(row)}  ${row.name}`),
    '',
    'Functions with the most self time:',
    ...analysis.functions.slice(0, top).map((row) => `  ${pct(row.share)}${per(row)}  ${row.name}`),
  ];
  return lines.join('\n');
}

function cli(argv) {
  const options = { top: 20 };
  const files = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg.startsWith('--')) options[arg.slice(2)] = argv[++i];
    else files.push(arg);
  }
  if (files.length !== 1) {
    process.stderr.write(
      'usage: node bench/cpuprofile.js <file.cpuprofile> [--results bench/results/latest.json --scenario <key> [--side service]] [--from µs --to µs] [--top 20]\n',
    );
    process.exit(2);
  }
  const profile = JSON.parse(fs.readFileSync(files[0], 'utf8'));
  let windows = [];
  let requests;
  let title = files[0];
  if (options.results) {
    const results = JSON.parse(fs.readFileSync(options.results, 'utf8'));
    const side = options.side ?? 'service';
    // The webhook cost's rounds, cut the same way: `--scenario webhooks`.
    const webhooks = results.webhookCost && {
      key: 'webhooks',
      title: 'webhook cost',
      rounds: results.webhookCost.rounds,
    };
    const scenario = [...results.scenarios, ...(webhooks ? [webhooks] : [])].find(
      (row) => row.key === options.scenario,
    );
    if (!scenario) {
      process.stderr.write(
        `no scenario ${options.scenario} in ${options.results}: ${results.scenarios.map((row) => row.key).join(', ')}\n`,
      );
      process.exit(2);
    }
    windows = scenario.rounds.map((pair) => pair[side]?.window).filter(Boolean);
    requests = scenario.rounds.reduce((sum, pair) => sum + (pair[side]?.total ?? 0), 0);
    title = `${side}: ${scenario.title} (${files[0]})`;
  } else if (options.from || options.to) {
    windows = [{ startedAt: Number(options.from ?? -Infinity), endedAt: Number(options.to ?? Infinity) }];
  }
  const analysis = analyseProfile(profile, { windows, requests });
  process.stdout.write(`${formatAnalysis(analysis, { title, top: Number(options.top) })}\n`);
}

if (require.main === module) cli(process.argv.slice(2));

module.exports = { analyseProfile, formatAnalysis, groupOf, packageOf };
