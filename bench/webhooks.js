'use strict';
/**
 * The webhook cost: POST /api/v1/payments in an account whose project has one enabled endpoint
 * (`*`), on the service and on the baseline, rounds alternating, both delivering to the same local
 * receiver (answering 204). The service sends through its outbox and dispatcher, the baseline as the
 * plainest implementation would (an event insert, a signed POST, a delivery record: bench/baseline/
 * server.js, `deliver`), so the throughput and CPU ratios compare the same work. Every delivery's
 * Standard Webhooks signature is verified with the endpoint's secret.
 *
 * After each round the receiver waits until that side's deliveries stop arriving (the drain). Per
 * side it reports the time from a change (the event's `createdAt`) to its receipt (p50, p99, over the
 * events of the measured rounds; the service's p99 must stay under `RECEIPT_P99_MS`), the CPU per
 * delivery (server and database over the round and its drain, so work done after the answer counts)
 * and the deliveries per second of the one instance, over each round and its drain (shown, not
 * judged: a throughput floor on a shared machine says more about the machine than the service).
 */
const http = require('node:http');
const { Webhook } = require('standardwebhooks');
const { summarise } = require('./runner');
const { perRequestMicros } = require('./monitor');
const { sleep } = require('./settings');

/** Drained: no delivery of the side for this long after its round (at most DRAIN_MAX_MS). */
const QUIET_MS = 1_500;
const DRAIN_MAX_MS = 60_000;
/** The service's change-to-receipt p99 above this fails the run. */
const RECEIPT_P99_MS = 1_000;

function startReceiver() {
  const sides = {};
  const side = (name) =>
    (sides[name] ??= {
      verifier: undefined,
      deliveries: [],
      ids: new Set(),
      duplicates: 0,
      badSignatures: 0,
      lastAt: 0,
    });
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const receivedAt = Date.now();
      const name = request.url.split('/').pop();
      const state = side(name);
      const body = Buffer.concat(chunks).toString('utf8');
      let event;
      try {
        event = state.verifier.verify(body, request.headers);
      } catch {
        state.badSignatures += 1;
        response.writeHead(400).end();
        return;
      }
      const id = request.headers['webhook-id'];
      if (state.ids.has(id)) state.duplicates += 1;
      else {
        state.ids.add(id);
        state.deliveries.push({ receivedAt, createdAt: Date.parse(event.createdAt) });
      }
      state.lastAt = receivedAt;
      response.writeHead(204).end();
    });
  });
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () =>
      done({
        urlFor: (name) => `http://127.0.0.1:${server.address().port}/bench-hooks/${name}`,
        side,
        trust: (name, secret) => (side(name).verifier = new Webhook(secret)),
        stop: () => new Promise((closed) => server.close(closed)),
      }),
    ),
  );
}

/** A new account on the server, with a customer and one enabled endpoint at the receiver. */
async function seedWithEndpoint(server, { call, expectStatus, password, dbs }, receiver) {
  const admin = { email: `bench.hooks.${server.name}.${Date.now()}@example.com`, password };
  await expectStatus(
    server,
    'signup (webhooks)',
    201,
    call(server, 'POST', '/api/v1/singup', {
      body: { firstName: 'Bench', lastName: 'Hooks', role: 'admin', accountName: 'Bench hooks', ...admin },
    }),
  );
  // Unverified users cannot pay: the admin counts as having followed the mailed link (as in seed.js).
  await dbs[server.name]
    .collection('users')
    .updateOne({ email: admin.email }, { $set: { emailVerifiedAt: new Date() } });
  const token = (
    await expectStatus(server, 'login (webhooks)', 200, call(server, 'POST', '/api/v1/login', { body: admin }))
  ).json.accessToken;
  const customer = await expectStatus(
    server,
    'customer (webhooks)',
    201,
    call(server, 'POST', '/v1/customers', { token, body: { email: 'hooks@example.com' } }),
  );
  const endpoint = await expectStatus(
    server,
    'webhook endpoint',
    201,
    call(server, 'POST', '/v1/webhook-endpoints', {
      token,
      body: { url: receiver.urlFor(server.name), enabledEvents: ['*'] },
    }),
  );
  const secret = endpoint.json?.data?.secret;
  if (typeof secret !== 'string')
    throw new Error(`${server.name}: the new endpoint's answer holds no secret: ${endpoint.text.slice(0, 200)}`);
  receiver.trust(server.name, secret);
  return { token, customerId: customer.json.data.id };
}

const paymentRequest = (state) => ({
  method: 'POST',
  path: '/api/v1/payments',
  token: state.token,
  body: { amount: 12.34, currency: 'usd', customer: state.customerId },
  expect: 201,
});

/** Payments counted per side, one at a time, after as many unmeasured. */
const COUNTED_PAYMENTS = 20;

/**
 * Whether a command started outside any request is the work of a delivery: a write of the webhook
 * collections or the events list, or a read of the endpoints (which the baseline makes per change and
 * the service at most once a second). The service's periodic reads of due deliveries (`webhooks.poll`,
 * every second whatever the traffic) and the other jobs' timers are not a delivery's.
 */
const ENDPOINTS_READ = 'find webhook_endpoints';
/** The service's cache of a project's enabled endpoints lasts this long (src/webhooks/webhook-endpoints.repository.ts). */
const ENDPOINTS_CACHE_SECONDS = 1;
const deliveryCommand = (name) =>
  /^(insert|update|delete|findAndModify) (webhook_\w+|events)$/.test(name) || name === 'find webhook_endpoints';

/**
 * Database commands per delivered payment, on a counting instance of each side (the same database
 * as the measured one): `COUNTED_PAYMENTS` payments one at a time after as many unmeasured, each
 * delivered to the receiver, then the drain; the commands their requests sent (exact) plus the
 * delivery commands started outside them until the drain ended, over the deliveries received.
 */
async function countPerDelivery(tools, requests, receiver) {
  const counting = tools.counting();
  const counts = {};
  try {
    await counting.start('service');
    for (const server of counting.running()) {
      const name = server.name.replace(/-count$/, '');
      const state = receiver.side(name);
      for (let i = 0; i < COUNTED_PAYMENTS; i += 1) await tools.send(server, requests[name]);
      await drain(state, Date.now());
      const before = await tools.readCommands(server);
      const startedAt = Date.now();
      const from = state.deliveries.length;
      for (let i = 0; i < COUNTED_PAYMENTS; i += 1) {
        const response = await tools.send(server, requests[name]);
        if (response.status !== requests[name].expect)
          throw new Error(`${server.name} answered ${response.status} while its commands were counted`);
      }
      await drain(state, Date.now());
      const after = await tools.readCommands(server);
      const seconds = (Date.now() - startedAt) / 1000;
      const delivered = state.deliveries.length - from;
      const diff = (a, b) =>
        Object.fromEntries(
          Object.entries(a)
            .map(([command, n]) => [command, n - (b[command] ?? 0)])
            .filter(([, n]) => n > 0),
        );
      const inRequest = diff(after.inRequest, before.inRequest);
      const outside = diff(after.outside, before.outside);
      const ofDelivery = Object.fromEntries(Object.entries(outside).filter(([command]) => deliveryCommand(command)));
      // The service keeps a project's enabled endpoints for a second (ENABLED_ENDPOINTS_TTL_MS), the
      // baseline reads them for each change: the service's read is a cost per second whatever the
      // number of deliveries, counted apart and judged per second, not per delivery.
      // It runs where the fan-out runs: after the request's answer, or still in its async context.
      const refreshes = name === 'service' ? (ofDelivery[ENDPOINTS_READ] ?? 0) + (inRequest[ENDPOINTS_READ] ?? 0) : 0;
      if (name === 'service') {
        delete ofDelivery[ENDPOINTS_READ];
        delete inRequest[ENDPOINTS_READ];
      }
      const total = [...Object.values(inRequest), ...Object.values(ofDelivery)].reduce((sum, n) => sum + n, 0);
      const per = (byName) =>
        Object.fromEntries(Object.entries(byName).map(([command, n]) => [command, n / Math.max(1, delivered)]));
      counts[name] = {
        payments: after.requests - before.requests,
        delivered,
        perDelivery: delivered > 0 ? total / delivered : undefined,
        refreshes,
        seconds,
        inRequest: per(inRequest),
        ofDelivery: per(ofDelivery),
      };
    }
  } finally {
    if (counting.live) await counting.stop();
  }
  return counts;
}

/** Waits until the side's deliveries stop arriving; the time from the round's end to the last one. */
async function drain(state, endedAt) {
  const started = Date.now();
  while (Date.now() - started < DRAIN_MAX_MS) {
    await sleep(250);
    if (Date.now() - Math.max(state.lastAt, endedAt) >= QUIET_MS) break;
  }
  return Math.max(0, state.lastAt - endedAt);
}

function percentile(sorted, p) {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Runs the comparison on the two running servers; returns { rounds, summary, sides } where `sides`
 * holds, per server, the change-to-receipt p50/p99 (ms), the deliveries per second (median over the
 * rounds), the deliveries counted, duplicates and bad signatures. `tools` are the runner's.
 */
async function measureWebhookCost(live, tools) {
  const { round, runAutocannon, settings, log } = tools;
  const receiver = await startReceiver();
  try {
    const servers = { service: live.service, baseline: live.baseline };
    const requests = {};
    for (const [name, server] of Object.entries(servers))
      requests[name] = paymentRequest(await seedWithEndpoint(server, tools, receiver));
    const commands = tools.counting ? await countPerDelivery(tools, requests, receiver) : undefined;
    if (commands) {
      const names = (side) =>
        Object.entries({ ...side.inRequest, ...side.ofDelivery })
          .map(([command, n]) => `${command} ${Number(n.toFixed(2))}`)
          .join(', ');
      for (const [name, side] of Object.entries(commands))
        log(
          `    commands per delivered payment, ${name}: ${side.perDelivery?.toFixed(2) ?? '-'} over ${side.delivered} deliveries of ${side.payments} payments [${names(side)}]` +
            (name === 'service'
              ? `; besides, ${side.refreshes} read(s) of the endpoints' cache in ${side.seconds.toFixed(1)} s (at most one a second)`
              : ''),
        );
    }
    for (const name of Object.keys(servers)) {
      await runAutocannon(servers[name], requests[name], settings.warmup);
      await drain(receiver.side(name), Date.now());
    }
    const rounds = [];
    const measured = { service: { latencies: [], rates: [] }, baseline: { latencies: [], rates: [] } };
    for (let r = 0; r < settings.rounds; r += 1) {
      const order = r % 2 === 0 ? ['service', 'baseline'] : ['baseline', 'service'];
      const pair = {};
      for (const name of order) {
        const state = receiver.side(name);
        const from = state.deliveries.length;
        const startedAt = Date.now();
        const stopCpu = tools.watchServerCpu(servers[name]);
        pair[name] = await round(servers[name], requests[name], settings.seconds);
        const endedAt = Date.now();
        pair[name].drainMs = await drain(state, endedAt);
        const cpu = stopCpu();
        const fresh = state.deliveries.slice(from).filter((delivery) => delivery.createdAt >= startedAt);
        pair[name].cpuMicrosPerDelivery = cpu && fresh.length > 0 ? perRequestMicros(cpu, fresh.length) : undefined;
        measured[name].latencies.push(...fresh.map((delivery) => delivery.receivedAt - delivery.createdAt));
        const span = (Math.max(state.lastAt, endedAt) - startedAt) / 1000;
        pair[name].deliveriesPerSecond = fresh.length / span;
        pair[name].delivered = fresh.length;
        measured[name].rates.push(pair[name].deliveriesPerSecond);
      }
      rounds.push(pair);
      const failed = order.map((name) => pair[name].failed).filter(Boolean);
      if (failed.length > 0) throw new Error(`webhook cost, round ${r + 1}: ${failed.join(' | ')}`);
      log(
        `    round ${r + 1}: service ${pair.service.rps.toFixed(0)} req/s, baseline ${pair.baseline.rps.toFixed(0)} req/s, ratio ${(pair.service.rps / pair.baseline.rps).toFixed(2)}; ` +
          `CPU µs a request (server + database) ${pair.service.cpuMicrosPerRequest?.judged ?? '-'} vs ${pair.baseline.cpuMicrosPerRequest?.judged ?? '-'}; ` +
          `CPU µs a delivery ${pair.service.cpuMicrosPerDelivery?.judged ?? '-'} vs ${pair.baseline.cpuMicrosPerDelivery?.judged ?? '-'}; ` +
          `deliveries ${pair.service.delivered} (drained ${(pair.service.drainMs / 1000).toFixed(1)} s after) vs ${pair.baseline.delivered} (${(pair.baseline.drainMs / 1000).toFixed(1)} s)`,
      );
    }
    const summary = summarise(rounds);
    // CPU per delivery, service ÷ baseline, paired by round as the other ratios are.
    const perDelivery = rounds
      .filter((pair) => pair.service.cpuMicrosPerDelivery?.judged > 0 && pair.baseline.cpuMicrosPerDelivery?.judged > 0)
      .map((pair) => pair.service.cpuMicrosPerDelivery.judged / pair.baseline.cpuMicrosPerDelivery.judged);
    summary.delivery = {
      service: tools.median(rounds.map((pair) => pair.service.cpuMicrosPerDelivery?.judged).filter(Boolean)),
      baseline: tools.median(rounds.map((pair) => pair.baseline.cpuMicrosPerDelivery?.judged).filter(Boolean)),
      cpuRatio: tools.median(perDelivery),
      cpuRatioMin: perDelivery.length ? Math.min(...perDelivery) : undefined,
      cpuRatioMax: perDelivery.length ? Math.max(...perDelivery) : undefined,
    };
    const sides = {};
    for (const name of Object.keys(servers)) {
      const sorted = [...measured[name].latencies].sort((a, b) => a - b);
      const state = receiver.side(name);
      sides[name] = {
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        deliveries: sorted.length,
        deliveriesPerSecond: tools.median(measured[name].rates),
        duplicates: state.duplicates,
        badSignatures: state.badSignatures,
      };
    }
    const p99 = sides.service.p99;
    const failed =
      p99 === undefined
        ? ['no delivery of the service was received']
        : p99 >= RECEIPT_P99_MS
          ? [`the service's change-to-receipt p99 is ${p99} ms, not under ${RECEIPT_P99_MS} ms`]
          : [];
    const counted = commands && [commands.service?.perDelivery, commands.baseline?.perDelivery];
    if (counted && counted.some((n) => n === undefined))
      failed.push('commands per delivered payment: no delivery counted');
    else if (counted && counted[0] > counted[1] + 1e-9)
      failed.push(
        `the service sends ${counted[0].toFixed(2)} database commands per delivered payment, the baseline ${counted[1].toFixed(2)}`,
      );
    const service = commands?.service;
    if (service && service.refreshes > Math.ceil(service.seconds / ENDPOINTS_CACHE_SECONDS) + 1)
      failed.push(
        `the service read its endpoints ${service.refreshes} times in ${service.seconds.toFixed(1)} s, more than once a second`,
      );
    return { rounds, summary, ratio: summary.ratio, sides, commands, receiptP99Ms: RECEIPT_P99_MS, failed };
  } finally {
    await receiver.stop();
  }
}

module.exports = { measureWebhookCost };
