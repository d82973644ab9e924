'use strict';
/**
 * Sending requests and measuring them: one request (`call`, `send`), a loaded run (`runAutocannon`),
 * a measured round (`round`: throughput, latencies, memory and CPU), requests sent one at a time
 * (`sequentialLatency`), the check that both sides answer with bodies of the same shape, and the
 * statistics over the rounds.
 */
const crypto = require('node:crypto');
const net = require('node:net');
const autocannon = require('autocannon');
const { settings, monotonicMicros } = require('./settings');
const { watchMemory, watchCpu, perRequestMicros, watchTreeMemory, watchTreeCpu, watchOwnCpu } = require('./monitor');
const { tail } = require('./processes');

/** The database server's processes, whose memory each round also records (see `watchTreeMemory`). */
let databaseProcesses = [];
function setDatabaseProcesses(pids) {
  databaseProcesses = pids;
}

// ---------------------------------------------------------------- HTTP helpers

async function call(server, method, route, { body, token, cookie, headers: extra = {}, timeoutMs = 30_000 } = {}) {
  const headers = { ...extra };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  if (cookie) headers.cookie = cookie;
  const response = await fetch(server.base + route, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
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
  if (response.status !== status)
    throw new Error(`${server.name}: ${what} answered ${describe(response)} (expected ${status})`);
  return response;
}

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
  return call(server, request.method, request.path, {
    body,
    token: request.token,
    cookie: request.cookie,
    headers,
    timeoutMs: (request.timeoutSeconds ?? 30) * 1000,
  });
}

function runAutocannon(server, request, duration, connections = request.connections ?? settings.connections) {
  const headers = {};
  if (request.body !== undefined || request.bodies) headers['content-type'] = 'application/json';
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  if (request.cookie) headers.cookie = request.cookie;
  // autocannon puts a fresh id in place of [<id>] in every request it sends.
  if (request.freshIdempotencyKey) headers['idempotency-key'] = 'bench-[<id>]';
  const options = {
    url: server.base + request.path,
    method: request.method,
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    connections,
    // A slow scenario's run is a number of requests, not a time: a run shorter than one answer would measure nothing.
    ...(request.requestsPerRound ? { amount: request.requestsPerRound } : { duration }),
    timeout: request.timeoutSeconds ?? 30,
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
async function round(server, request, seconds, connections = request.connections ?? settings.connections) {
  if (!server.alive) return { failed: `${server.name} is not running` };
  // Requests an earlier run left in flight still run on the server; one more request, answered
  // after them, lets that backlog drain before this run starts.
  await send(server, request);
  const stopWatch = watchMemory(server.child.pid);
  const stopCpu = watchCpu(server.child.pid);
  const stopDatabase = databaseProcesses.length > 0 ? watchTreeMemory(databaseProcesses) : undefined;
  const stopDatabaseCpu = databaseProcesses.length > 0 ? watchTreeCpu(databaseProcesses) : undefined;
  const stopOwnCpu = watchOwnCpu();
  const startedAt = monotonicMicros();
  const result = await runAutocannon(server, request, seconds, connections);
  const endedAt = monotonicMicros();
  const memory = stopWatch();
  const cpu = stopCpu();
  if (cpu) Object.assign(cpu, { database: stopDatabaseCpu?.(), client: stopOwnCpu() });
  const database = stopDatabase?.();
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
    databasePeakKb: database?.peakKb,
    databasePeakPssKb: database?.peakPssKb,
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

/**
 * CPU of a server's process and of the database server's processes from now until the returned
 * function is called, in clock ticks (as a round reads them, for work that outlasts a round: the
 * webhook cost's deliveries after their requests were answered).
 */
function watchServerCpu(server) {
  const stopCpu = watchCpu(server.child.pid);
  const stopDatabaseCpu = databaseProcesses.length > 0 ? watchTreeCpu(databaseProcesses) : undefined;
  return () => {
    const cpu = stopCpu();
    if (cpu) cpu.database = stopDatabaseCpu?.();
    return cpu;
  };
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

// ---------------------------------------------------------------- database commands per request

/** The counts a counting server's preload (bench/count-commands.js) holds now. */
function readCommands(server) {
  return new Promise((done, fail) => {
    const chunks = [];
    const socket = net.connect(server.commandSocket);
    socket.setTimeout(5_000, () => socket.destroy(new Error(`${server.name}: no command counts within 5 s`)));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', fail);
    socket.on('end', () => {
      try {
        done(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        fail(error);
      }
    });
  });
}

const difference = (after, before) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([name, count]) => [name, count - (before[name] ?? 0)])
      .filter(([, count]) => count > 0)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
const sum = (byName) => Object.values(byName).reduce((total, count) => total + count, 0);

/**
 * Database commands per request of one scenario on a counting server: `count` requests sent one at
 * a time, every answer checked, after as many unmeasured (and at least one per body of a rotation),
 * so that what a fresh instance does once per caller or once a minute stays out.
 * `inRequest` counts the commands started in a request's context before its answer (what it sends
 * and waits for, exact); `outside` those started otherwise during the probe (work after the answer,
 * timers), a short wait after the last answer included.
 */
async function countCommands(server, request, count = request.countRequests ?? 20) {
  const warmup = Math.max(count, request.bodies?.length ?? 0);
  for (let i = 0; i < warmup; i += 1) await send(server, request);
  const before = await readCommands(server);
  for (let i = 0; i < count; i += 1) {
    const response = await send(server, request);
    if (response.status !== request.expect)
      throw new Error(
        `${server.name} answered ${describe(response)} (expected ${request.expect}) while commands were counted`,
      );
  }
  await new Promise((done) => setTimeout(done, 300));
  const after = await readCommands(server);
  const requests = after.requests - before.requests;
  const inRequest = difference(after.inRequest, before.inRequest);
  const outside = difference(after.outside, before.outside);
  const per = (byName) => Object.fromEntries(Object.entries(byName).map(([name, n]) => [name, n / requests]));
  const each = after.perRequest.slice(before.perRequest.length);
  return {
    requests,
    // The median request's count: a command a request always sends shows in it, one that work left
    // running by an earlier request happened to start during this one does not (the mean shows both).
    perRequest: median(each),
    meanPerRequest: sum(inRequest) / requests,
    eachRequest: each,
    outsidePerRequest: sum(outside) / requests,
    inRequest: per(inRequest),
    outside: per(outside),
  };
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
  if (typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, shapeOf(value[key])]),
    );
  return typeof value;
}

/** Every difference between two shapes, by path; null against a string is a difference. */
function shapeDifferences(service, baseline, at = '') {
  const here = at || '(body)';
  if (typeof service === 'string' || typeof baseline === 'string') {
    return JSON.stringify(service) === JSON.stringify(baseline)
      ? []
      : [`${here}: service ${describeShape(service)}, baseline ${describeShape(baseline)}`];
  }
  const serviceArray = '[]' in service;
  const baselineArray = '[]' in baseline;
  if (serviceArray !== baselineArray)
    return [`${here}: service ${describeShape(service)}, baseline ${describeShape(baseline)}`];
  if (serviceArray) {
    const [a, b] = [service['[]'], baseline['[]']];
    if (a.length === 1 && b.length === 1) return shapeDifferences(a[0], b[0], `${at}[]`);
    if (JSON.stringify(a) === JSON.stringify(b)) return [];
    if (a.length === 0 || b.length === 0)
      return [
        `${here}: service has ${a.length ? 'elements' : 'no elements'}, baseline ${b.length ? 'elements' : 'no elements'}`,
      ];
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
    for (const difference of shapeDifferences(shapeOf(samples.service[i].json), shapeOf(samples.baseline[i].json)))
      differences.add(difference);
  }
  if (differences.size > 0) problems.push(`response bodies differ in shape: ${[...differences].join('; ')}`);
  return {
    problems,
    bodyBytes: {
      service: Buffer.byteLength(samples.service[0].text),
      baseline: Buffer.byteLength(samples.baseline[0].text),
    },
  };
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
      databasePeakKb: Math.max(0, ...list.map((r) => r.databasePeakKb ?? 0)),
      databasePeakPssKb: Math.max(0, ...list.map((r) => r.databasePeakPssKb ?? 0)),
      bytesPerResponse: median(list.map((r) => r.bytesPerResponse)),
      cpu: ['process', 'main', 'machine', 'database', 'judged'].reduce((out, key) => {
        out[key] = median(list.map((r) => r.cpuMicrosPerRequest?.[key]));
        return out;
      }, {}),
    };
  };
  const paired = rounds.filter(
    (r) => r.service && r.baseline && !r.service.failed && !r.baseline.failed && r.baseline.rps > 0,
  );
  const ratios = paired.map((r) => r.service.rps / r.baseline.rps);
  // CPU per request, service ÷ baseline (above 1: the service spends more), paired like throughput.
  const cpuRatios = (key) =>
    paired
      .filter((r) => r.service.cpuMicrosPerRequest?.[key] > 0 && r.baseline.cpuMicrosPerRequest?.[key] > 0)
      .map((r) => r.service.cpuMicrosPerRequest[key] / r.baseline.cpuMicrosPerRequest[key]);
  const cpuJudged = cpuRatios('judged');
  const cpuMachine = cpuRatios('machine');
  return {
    service: side('service'),
    baseline: side('baseline'),
    ratio: median(ratios),
    ratioMin: ratios.length ? Math.min(...ratios) : undefined,
    ratioMax: ratios.length ? Math.max(...ratios) : undefined,
    ratios,
    cpuRatio: median(cpuJudged),
    cpuRatioMin: cpuJudged.length ? Math.min(...cpuJudged) : undefined,
    cpuRatioMax: cpuJudged.length ? Math.max(...cpuJudged) : undefined,
    cpuRatios: cpuJudged,
    machineCpuRatio: median(cpuMachine),
  };
}

module.exports = {
  setDatabaseProcesses,
  call,
  describe,
  expectStatus,
  send,
  runAutocannon,
  round,
  watchServerCpu,
  sequentialLatency,
  readCommands,
  countCommands,
  compareShapes,
  median,
  summarise,
};
