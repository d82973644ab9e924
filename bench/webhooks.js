'use strict';
/**
 * What an enabled webhook endpoint costs the API call whose event it receives: POST /api/v1/payments
 * in an account whose project has one enabled endpoint (`*`, a local receiver answering 204), against
 * the same request in the seeded account, which has none, on the same service, rounds alternating.
 * The deliveries are sent by the service itself, off the request path, during its rounds: their cost
 * is in the ratio.
 */
const http = require('node:http');

async function startReceiver() {
  let received = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${server.address().port}/bench-hooks`,
    received: () => received,
    stop: () => new Promise((done) => server.close(done)),
  };
}

/** The second account, with a customer and one enabled endpoint; the request each side sends. */
async function seedWithEndpoint(service, { call, expectStatus, password }, receiverUrl) {
  const admin = { email: `bench.hooks.${Date.now()}@example.com`, password };
  await expectStatus(
    service,
    'signup (webhooks)',
    201,
    call(service, 'POST', '/api/v1/signup', { body: { firstName: 'Bench', lastName: 'Hooks', role: 'admin', accountName: 'Bench hooks', ...admin } }),
  );
  const token = (await expectStatus(service, 'login (webhooks)', 200, call(service, 'POST', '/api/v1/login', { body: admin }))).json.accessToken;
  const customer = await expectStatus(service, 'customer (webhooks)', 201, call(service, 'POST', '/v1/customers', { token, body: { email: 'hooks@example.com' } }));
  await expectStatus(service, 'webhook endpoint', 201, call(service, 'POST', '/v1/webhook-endpoints', { token, body: { url: receiverUrl, enabledEvents: ['*'] } }));
  return { token, customerId: customer.json.data.id };
}

const paymentRequest = (state) => ({
  method: 'POST',
  path: '/api/v1/payments',
  token: state.token,
  body: { amount: 12.34, currency: 'usd', customer: state.customerId },
  expect: 201,
});

/**
 * Runs the comparison; returns { rounds: [{ without, with }], ratio, delivered }. `tools` are the
 * runner's: call, expectStatus, round, runAutocannon, settings, log, median, password.
 */
async function measureWebhookCost(service, seeded, tools) {
  const { round, runAutocannon, settings, log, median } = tools;
  const receiver = await startReceiver();
  try {
    const withEndpoint = await seedWithEndpoint(service, tools, receiver.url);
    const sides = { without: paymentRequest(seeded), with: paymentRequest(withEndpoint) };
    for (const request of Object.values(sides)) await runAutocannon(service, request, settings.warmup);
    const rounds = [];
    for (let r = 0; r < settings.rounds; r += 1) {
      const order = r % 2 === 0 ? ['without', 'with'] : ['with', 'without'];
      const pair = {};
      for (const side of order) pair[side] = await round(service, sides[side], settings.seconds);
      rounds.push(pair);
      const failed = order.map((side) => pair[side].failed).filter(Boolean);
      if (failed.length > 0) throw new Error(`webhook cost, round ${r + 1}: ${failed.join(' | ')}`);
      log(
        `    round ${r + 1}: no endpoint ${pair.without.rps.toFixed(0)} req/s, one endpoint ${pair.with.rps.toFixed(0)} req/s, ratio ${(pair.with.rps / pair.without.rps).toFixed(2)}; ` +
          `CPU µs a request (service, database, client) without ${cpuOf(pair.without)}, with ${cpuOf(pair.with)}`,
      );
    }
    const ratio = median(rounds.map((pair) => pair.with.rps / pair.without.rps));
    return { rounds, ratio, delivered: receiver.received() };
  } finally {
    await receiver.stop();
  }
}

function cpuOf(side) {
  const cpu = side.cpuMicrosPerRequest;
  return cpu ? `${cpu.process}/${cpu.database ?? '-'}/${cpu.client}` : '-';
}

module.exports = { measureWebhookCost };
