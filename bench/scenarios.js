'use strict';
/** The scenarios of the main table. */
const { settings } = require('./settings');
const { COLLECTION_BODY } = require('./seed');

/**
 * A scenario gives, per server, the request to send: method, path, bearer token, body (or
 * `bodies`, taken in turn), `freshIdempotencyKey` (a new Idempotency-Key on every request), the
 * expected status; `check` (what the body must say beyond its shape, the same on both sides) and
 * `reset` (run on each side's database before its warm-up and before each of its rounds);
 * for a slow request, `connections` (fewer in flight than BENCH_CONNECTIONS), `requestsPerRound` (each
 * warm-up and round sends this many requests instead of running BENCH_SECONDS), `timeoutSeconds`
 * (instead of autocannon's 30 s) and `countRequests` (commands counted over this many, 20 otherwise);
 * `cookie` (a Cookie header, for a request that a session authenticates instead of a token);
 * `commandsWithin: { of, extra }` (the service may send at most `extra` commands a request more
 * than it sends for scenario `of`, which is then counted too).
 */
const SCENARIOS = [
  {
    key: 'channel',
    title: 'GET /channels/:id',
    request: (s) => ({ method: 'GET', path: `/channels/${s.channelId}`, token: s.token, expect: 200 }),
  },
  {
    key: 'tree',
    title: 'GET /projects/:id/tree (1,000 projects)',
    // One answer is 1,000 nodes in nine commands and takes seconds on a loaded machine: with
    // BENCH_CONNECTIONS in flight each waited past autocannon's 30 s timeout, and a round of
    // BENCH_SECONDS could end before any answer. So each warm-up and round is a few requests over two
    // connections, each allowed two minutes, and the commands are counted over fewer requests.
    request: (s) => ({
      method: 'GET',
      path: `/projects/${s.treeRootId}/tree`,
      token: s.token,
      expect: 200,
      connections: 2,
      requestsPerRound: 4,
      timeoutSeconds: 120,
      countRequests: 5,
    }),
    check: (response) =>
      response.json?.nodes?.length === 1000 && response.json.nodes[999].depth === 3
        ? undefined
        : `expected 1000 nodes down to depth 3, got ${response.json?.nodes?.length}`,
  },
  {
    key: 'collections',
    title: 'GET /collections (50 docs, default page)',
    request: (s) => ({ method: 'GET', path: '/collections', token: s.token, expect: 200 }),
    check: (response) =>
      Array.isArray(response.json) && response.json.length === 50 && response.headers.get('x-total-count') === '50'
        ? undefined
        : `expected 50 collections and X-Total-Count 50, got ${Array.isArray(response.json) ? response.json.length : typeof response.json} and ${response.headers.get('x-total-count')}`,
  },
  {
    key: 'create-collection',
    title: 'POST /collections',
    request: (s) => ({ method: 'POST', path: '/collections', token: s.token, body: COLLECTION_BODY, expect: 201 }),
  },
  {
    key: 'payment',
    title: 'POST /api/v1/payments',
    request: (s) => ({
      method: 'POST',
      path: '/api/v1/payments',
      token: s.token,
      body: { amount: 12.34, currency: 'usd', customer: s.customerId },
      expect: 201,
    }),
    check: (response) =>
      response.json?.status === 'requires_confirmation' ? undefined : `status ${response.json?.status}`,
  },
  {
    key: 'login',
    title: `POST /api/v1/login (bcrypt cost ${settings.bcryptRounds})`,
    // Rotates over the account's members: one email logging in from 10 connections at once would be
    // throttled (the limiter counts the attempts in flight: 5 per email).
    request: (s) => ({ method: 'POST', path: '/api/v1/login', bodies: s.logins, expect: 200 }),
  },
  {
    key: 'customer-key',
    title: 'GET /v1/customers/:id (API key)',
    request: (s) => ({ method: 'GET', path: `/v1/customers/${s.customerId}`, token: s.apiKey, expect: 200 }),
  },
  {
    key: 'viewer',
    title: 'GET /viewer/projects/:id (publishable key, one ancestor)',
    request: (s) => ({
      method: 'GET',
      path: `/viewer/projects/${s.viewedProjectId}`,
      token: s.publishableKey,
      expect: 200,
    }),
    check: (response) =>
      response.json?.primaryTitle === 'Bench show' && response.json.parentId
        ? undefined
        : `expected the viewed sub-project, got ${response.text.slice(0, 80)}`,
  },
  {
    key: 'customers',
    title: 'GET /v1/customers (page of 20)',
    request: (s) => ({ method: 'GET', path: '/v1/customers', token: s.token, expect: 200 }),
    check: (response) =>
      response.json?.data?.length === 20 && response.json.hasMore === true
        ? undefined
        : `expected 20 customers and hasMore, got ${response.text.slice(0, 80)}`,
  },
  {
    key: 'members',
    title: 'GET /api/v1/accounts/:id/members',
    request: (s) => ({ method: 'GET', path: `/api/v1/accounts/${s.accountId}/members`, token: s.token, expect: 200 }),
    check: (response) =>
      response.json?.data?.length === settings.members
        ? undefined
        : `expected ${settings.members} members, got ${response.json?.data?.length}`,
  },
  {
    key: 'members-cookie',
    title: 'GET /api/v1/accounts/:id/members (session cookie)',
    // The dashboard's way: the same request with the admin's `sid` cookie and no bearer token. Issue 40
    // bounds what the cookie may cost: at most one database command more than `members` on the service.
    request: (s) => ({
      method: 'GET',
      path: `/api/v1/accounts/${s.accountId}/members`,
      cookie: s.sessionCookie,
      expect: 200,
    }),
    check: (response) =>
      response.json?.data?.length === settings.members
        ? undefined
        : `expected ${settings.members} members, got ${response.json?.data?.length}`,
    commandsWithin: { of: 'members', extra: 1 },
  },
  {
    key: 'payment-confirm',
    title: 'POST /api/v1/payments (confirm, Idempotency-Key)',
    request: (s) => ({
      method: 'POST',
      path: '/api/v1/payments',
      token: s.token,
      body: { amount: 12.34, currency: 'usd', customer: s.customerId, confirm: true },
      freshIdempotencyKey: true,
      expect: 201,
    }),
    // Every request leaves a payment and two key records, and on FerretDB a filter of `_id` and other
    // fields sometimes scans its collection: each round starts from none of them, on both sides, so
    // rounds compare like with like.
    reset: async (db) => {
      await db.collection('idempotency_keys').deleteMany({});
      await db.collection('payment_keys').deleteMany({});
      await db.collection('payments').deleteMany({});
    },
    check: (response) =>
      response.json?.status === 'succeeded'
        ? undefined
        : `status ${response.json?.status} (expected succeeded: the default card is charged)`,
  },
];

module.exports = { SCENARIOS };
