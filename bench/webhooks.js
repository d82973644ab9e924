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
 * events of the measured rounds) and the deliveries per second of the one instance, over each round
 * and its drain.
 */
const http = require('node:http');
const { Webhook } = require('standardwebhooks');
const { summarise } = require('./runner');
const { sleep } = require('./settings');

/** Drained: no delivery of the side for this long after its round (at most DRAIN_MAX_MS). */
const QUIET_MS = 1_500;
const DRAIN_MAX_MS = 60_000;

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
        pair[name] = await round(servers[name], requests[name], settings.seconds);
        const endedAt = Date.now();
        pair[name].drainMs = await drain(state, endedAt);
        const fresh = state.deliveries.slice(from).filter((delivery) => delivery.createdAt >= startedAt);
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
          `deliveries ${pair.service.delivered} (drained ${(pair.service.drainMs / 1000).toFixed(1)} s after) vs ${pair.baseline.delivered} (${(pair.baseline.drainMs / 1000).toFixed(1)} s)`,
      );
    }
    const summary = summarise(rounds);
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
    return { rounds, summary, ratio: summary.ratio, sides };
  } finally {
    await receiver.stop();
  }
}

module.exports = { measureWebhookCost };
