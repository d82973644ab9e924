'use strict';
/**
 * Baseline for the benchmark: the benchmarked routes written with bare Fastify and the `mongodb`
 * driver, no framework on top. It does what the platform contract requires of the service on every
 * request, with the same reads and writes and the same response bodies:
 *
 * - authentication: an HS256 JWT verified with node:crypto (algorithm pinned, signature, expiry,
 *   `sub`/`acc` claims) and checked against its user's credentials version, read on every request
 *   (a token issued before the password or a factor changed is refused), or an API key (`sk_test_...`) looked up by its SHA-256 in `api_keys`
 *   (revoked, expired: 401), whose `lastUsedAt` is written at most once a minute, off the request;
 *   without a bearer token, a dashboard session's `sid` cookie looked up by its SHA-256 in `sessions`
 *   (idle and absolute timeouts; `lastSeenAt` moved at most once a minute);
 * - tenancy: a user's membership `{accountId, userId}` read on every request, with the platform
 *   project (the account's default, or `X-Project-Id`) read beside it; a key's own project; the route's API must be
 *   enabled (and in the key's scopes); every tenant query and insert carries the `projectId`;
 * - the attempt limiter of login (an attempt recorded and counted for the pair, the client and the
 *   email before the password check, cleared on success, the address remembered), bcrypt with the
 *   same cost, and the login's entry in the account's chained audit log;
 * - `Idempotency-Key` on POST /api/v1/payments: a record per project, caller and route under a unique
 *   index, the answer stored after the payment is made, replays and conflicts answered as the service
 *   does; and the payment's own key record (`payment_keys`), claimed for the new payment's id.
 *
 * - events (docs/events-and-webhooks.md): each change's events inserted into `events` after the change, as the
 *   plainest implementation would (not proof against a process dying in between, which the
 *   service's outbox is);
 * - webhooks: off the request, each event signed and POSTed to the project's enabled endpoints that
 *   take its type, one attempt each, and a delivery record of it (POST /v1/webhook-endpoints makes one).
 *
 * What it deliberately leaves out, because the service pays for it and the comparison should show it:
 * request logging, class-validator DTOs (bodies are checked with Fastify's JSON schemas instead),
 * helmet and CORS headers, request ids, the Nest pipeline (guards, pipes, interceptors, filters),
 * Mongoose documents and its query casting. Signups are recorded and throttled per client as the
 * service does, but only without an invitation (the baseline has no invitation routes).
 *
 * Environment: PORT, HOST (127.0.0.1), MONGODB_URI (with a database name), JWT_SECRET,
 * JWT_EXPIRES_IN (seconds, 3600), BCRYPT_ROUNDS (12), LOGIN_MAX_FAILURES (5),
 * LOGIN_MAX_FAILURES_PER_CLIENT (20), LOGIN_MAX_FAILURES_PER_EMAIL (100), LOGIN_FAILURE_WINDOW_SECONDS (900), SIGNUP_MAX_PER_CLIENT (10),
 * SIGNUP_WINDOW_SECONDS (3600), RATE_LIMIT_PER_SECOND (25), CARD_FINGERPRINT_KEY.
 */
const crypto = require('node:crypto');
const bcrypt = require('bcrypt');
const { MongoClient, ObjectId } = require('mongodb');

function loadFastify() {
  try {
    return require('fastify');
  } catch {
    // Not hoisted to the top level: take the copy @nestjs/platform-fastify depends on.
    const adapter = require.resolve('@nestjs/platform-fastify');
    return require(require.resolve('fastify', { paths: [adapter] }));
  }
}

const env = process.env;
const PORT = Number(env.PORT ?? 3100);
const HOST = env.HOST ?? '127.0.0.1';
const MONGODB_URI = env.MONGODB_URI;
const JWT_SECRET = env.JWT_SECRET;
const JWT_EXPIRES_IN = Number(env.JWT_EXPIRES_IN ?? 3600);
const BCRYPT_ROUNDS = Number(env.BCRYPT_ROUNDS ?? 12);
const LOGIN_MAX_FAILURES = Number(env.LOGIN_MAX_FAILURES ?? 5);
const LOGIN_MAX_FAILURES_PER_CLIENT = Number(env.LOGIN_MAX_FAILURES_PER_CLIENT ?? 20);
const LOGIN_MAX_FAILURES_PER_EMAIL = Number(env.LOGIN_MAX_FAILURES_PER_EMAIL ?? 100);
const KNOWN_ADDRESS_DAYS = 30;
const LOGIN_FAILURE_WINDOW_SECONDS = Number(env.LOGIN_FAILURE_WINDOW_SECONDS ?? 900);
const SIGNUP_MAX_PER_CLIENT = Number(env.SIGNUP_MAX_PER_CLIENT ?? 10);
const SIGNUP_WINDOW_SECONDS = Number(env.SIGNUP_WINDOW_SECONDS ?? 3600);
const RATE_LIMIT_PER_SECOND = Number(env.RATE_LIMIT_PER_SECOND ?? 25);
const ROLES = ['developer', 'manager', 'admin'];
const API_NAMES = [
  'customers',
  'cards',
  'payments',
  'channels',
  'projects',
  'collections',
  'clients',
  'events',
  'webhooks',
];
const OBJECT_ID = /^[0-9a-fA-F]{24}$/;
const LOWER_OBJECT_ID = /^[0-9a-f]{24}$/;
const API_KEY_FORM = /^[sp]k_test_[A-Za-z0-9_-]{43}$/;
const LAST_USED_RESOLUTION_MS = 60_000;
const SESSION_IDLE_MS = Number(env.SESSION_IDLE_MINUTES ?? 30) * 60_000;
const SESSION_MAX_MS = Number(env.SESSION_MAX_HOURS ?? 12) * 3_600_000;
const SESSION_TOUCH_MS = 60_000;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
const IN_PROGRESS_LEASE_MS = 5 * 60 * 1000;
const PRINTABLE = /^[\x20-\x7e]+$/;
const CURRENCY_DECIMALS = { usd: 2, eur: 2, gbp: 2, cad: 2, brl: 2, jpy: 0 };

if (!MONGODB_URI || !JWT_SECRET) {
  process.stderr.write('MONGODB_URI and JWT_SECRET are required\n');
  process.exit(1);
}

// The same derivation as the service's finance config: the request fingerprints of Idempotency-Key
// are HMACs under a key derived from the card fingerprint key (itself derived from the JWT secret).
const CARD_FINGERPRINT_KEY =
  env.CARD_FINGERPRINT_KEY ?? crypto.createHmac('sha256', JWT_SECRET).update('card-fingerprint-key').digest('hex');
const IDEMPOTENCY_FINGERPRINT_KEY = crypto
  .createHmac('sha256', CARD_FINGERPRINT_KEY)
  .update('idempotency-request-fingerprint')
  .digest('hex');

// ---------------------------------------------------------------- JWT (HS256) with node:crypto

const JWT_KEY = crypto.createSecretKey(Buffer.from(JWT_SECRET, 'utf8'));
const JWT_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

function signJwt(claims) {
  const now = Math.floor(Date.now() / 1000);
  const payload = Buffer.from(JSON.stringify({ ...claims, iat: now, exp: now + JWT_EXPIRES_IN })).toString('base64url');
  const signature = crypto.createHmac('sha256', JWT_KEY).update(`${JWT_HEADER}.${payload}`).digest('base64url');
  return `${JWT_HEADER}.${payload}.${signature}`;
}

/** The service's checks: pinned algorithm, signature, expiry, `sub` an id, `acc` an id or none. */
function verifyJwt(token) {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [headerPart, payloadPart, signaturePart] = parts;
  let header;
  let claims;
  try {
    header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!header || header.alg !== 'HS256' || !claims || typeof claims !== 'object') return null;
  const expected = crypto.createHmac('sha256', JWT_KEY).update(`${headerPart}.${payloadPart}`).digest();
  const given = Buffer.from(signaturePart, 'base64url');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== 'number' || claims.exp <= now) return null;
  if (typeof claims.nbf === 'number' && claims.nbf > now) return null;
  if (typeof claims.sub !== 'string' || !LOWER_OBJECT_ID.test(claims.sub)) return null;
  const accountId = typeof claims.acc === 'string' && LOWER_OBJECT_ID.test(claims.acc) ? claims.acc : null;
  // As the service: issued at in ms (`ims`, else the start of `iat`'s second), and the credentials
  // version the login read (`cav`).
  const issuedAt = typeof claims.ims === 'number' ? claims.ims : claims.iat * 1000;
  const credentialsAt = typeof claims.cav === 'number' ? claims.cav : undefined;
  return { principal: { kind: 'user', userId: claims.sub, accountId }, issuedAt, credentialsAt };
}

// ---------------------------------------------------------------- errors and mappers

function httpError(statusCode, message) {
  return Object.assign(new Error(message), { statusCode });
}

const iso = (date) => new Date(date).toISOString();
const isoOrNull = (date) => (date ? new Date(date).toISOString() : null);

function toUser(user, role) {
  return {
    id: String(user._id),
    firstName: user.firstName,
    lastName: user.lastName,
    userName: user.userName ?? '',
    email: user.email,
    role: role ?? user.role,
    status: user.status,
    phoneNumber: user.phoneNumber ?? null,
    avatar: user.avatar ?? null,
    address: user.address ?? null,
    defaultCompany: user.defaultCompany ?? null,
    emailVerifiedAt: user.emailVerifiedAt ? iso(user.emailVerifiedAt) : null,
    createdAt: iso(user.createdAt),
    updatedAt: iso(user.updatedAt),
  };
}

function toAccountView(account, membership) {
  return {
    id: String(account._id),
    name: account.name,
    type: account.type,
    role: membership.role,
    owner: membership.owner,
    defaultProjectId: String(account.defaultProjectId),
    requireMfa: account.requireMfa === true,
    createdAt: iso(account.createdAt),
  };
}

function toMemberView(membership, user) {
  return {
    userId: String(membership.userId),
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    role: membership.role,
    owner: membership.owner,
    joinedAt: iso(membership.createdAt),
  };
}

function toChannel(channel) {
  return {
    _id: String(channel._id),
    clientId: String(channel.clientId),
    name: channel.name,
    username: channel.username,
    avatarUrl: channel.avatarUrl,
    role: channel.role,
    projectIds: (channel.projectIds ?? []).map(String),
    membershipsEnabled: channel.membershipsEnabled ?? false,
    membershipTiers: (channel.membershipTiers ?? []).map((tier) => ({
      name: tier.name,
      ...(tier.description != null ? { description: tier.description } : {}),
      price: tier.price,
      ...(tier.features != null ? { features: [...tier.features] } : {}),
    })),
    monetizationEnabled: channel.monetizationEnabled ?? false,
    revenue: channel.revenue ?? 0,
    createdAt: iso(channel.createdAt),
    updatedAt: iso(channel.updatedAt),
  };
}

function toCollection(collection) {
  return {
    _id: String(collection._id),
    name: collection.name,
    description: collection.description ?? null,
    numberOfClients: collection.numberOfClients ?? null,
    numberOfUsers: collection.numberOfUsers ?? null,
    usage: collection.usage ?? null,
    pricing: collection.pricing ?? null,
    endpoints: collection.endpoints ?? [],
    createdAt: iso(collection.createdAt),
    updatedAt: iso(collection.updatedAt),
    deletedAt: isoOrNull(collection.deletedAt),
  };
}

function toCustomerCreated(customer) {
  return {
    id: String(customer._id),
    email: customer.email ?? null,
    firstName: customer.firstName ?? null,
    lastName: customer.lastName ?? null,
    address: customer.address ?? {},
    country: customer.country ?? null,
    balance: customer.balance ?? 0,
    verified: customer.verified ?? false,
    liveMode: customer.liveMode ?? false,
    createdAt: iso(customer.createdAt),
    updatedAt: iso(customer.updatedAt),
    defaultMethod: customer.defaultMethod ?? null,
  };
}

function toCustomer(customer) {
  return { ...toCustomerCreated(customer), phone: customer.phone ?? null, Taxable: customer.Taxable ?? false };
}

function toPayment(payment) {
  const decimals = CURRENCY_DECIMALS[payment.currency] ?? 2;
  const major = (minor) => minor / 10 ** decimals;
  return {
    id: String(payment._id),
    amount: major(payment.amountMinor),
    currency: payment.currency,
    customer: String(payment.customer),
    reciver: payment.reciver ? String(payment.reciver) : null,
    description: payment.description ?? null,
    status: payment.status,
    failureCode: payment.failureCode ?? null,
    amountRefunded: major(payment.amountRefundedMinor ?? 0),
    createdAt: iso(payment.createdAt),
    updatedAt: iso(payment.updatedAt),
  };
}

// ---------------------------------------------------------------- body schemas (Fastify/ajv)

const str = (maxLength) => ({ type: 'string', maxLength });
const objectId = { type: 'string', pattern: '^[0-9a-fA-F]{24}$' };
const closed = (properties, required) => ({ type: 'object', additionalProperties: false, properties, required });

const schemas = {
  signup: closed(
    {
      firstName: { type: 'string', minLength: 1, maxLength: 100 },
      lastName: { type: 'string', minLength: 1, maxLength: 100 },
      email: { type: 'string', format: 'email', maxLength: 254 },
      password: { type: 'string', minLength: 8, maxLength: 72 },
      role: { type: 'string', enum: ROLES },
      accountType: { type: 'string', enum: ['developer', 'company'] },
      accountName: { type: 'string', minLength: 1, maxLength: 100 },
      phoneNumber: { type: 'integer', minimum: 0 },
      address: { type: 'object' },
      avatar: str(2048),
    },
    ['firstName', 'lastName', 'email', 'password', 'role'],
  ),
  login: closed(
    {
      email: { type: 'string', format: 'email', maxLength: 254 },
      password: { type: 'string', minLength: 1, maxLength: 1024 },
      accountId: objectId,
    },
    ['email', 'password'],
  ),
  client: closed(
    {
      name: str(200),
      email: { type: 'string', format: 'email' },
      phone: str(50),
      projectIds: { type: 'array', items: objectId },
    },
    ['name', 'email'],
  ),
  channel: closed(
    {
      clientId: objectId,
      name: { type: 'string', minLength: 1, maxLength: 200 },
      username: { type: 'string', minLength: 1, maxLength: 100 },
      avatarUrl: { type: 'string', pattern: '^https?://', maxLength: 2048 },
      role: { type: 'string', minLength: 1, maxLength: 50 },
      projectIds: { type: 'array', items: objectId },
      membershipsEnabled: { type: 'boolean' },
      monetizationEnabled: { type: 'boolean' },
      revenue: { type: 'number', minimum: 0 },
    },
    ['clientId', 'name', 'username', 'avatarUrl', 'role'],
  ),
  collection: closed(
    {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      description: str(5000),
      numberOfClients: { type: 'integer', minimum: 0 },
      numberOfUsers: { type: 'integer', minimum: 0 },
      usage: str(1000),
      pricing: { type: 'number', minimum: 0 },
      endpoints: { type: 'array', maxItems: 1000, items: { type: 'integer' } },
    },
    ['name'],
  ),
  customer: closed(
    {
      email: { type: 'string', format: 'email', maxLength: 254 },
      firstName: str(100),
      lastName: str(100),
      country: { type: 'string', pattern: '^[A-Za-z]{2}$' },
      address: { type: 'object' },
      phone: str(50),
      SocialNumber: str(64),
      liveMode: { type: 'boolean' },
      verified: { type: 'boolean' },
      Taxable: { type: 'boolean' },
      balance: { type: 'number' },
    },
    ['email'],
  ),
  webhookEndpoint: closed(
    {
      url: { type: 'string', pattern: '^https?://', maxLength: 2048 },
      description: str(500),
      enabledEvents: {
        type: 'array',
        minItems: 1,
        maxItems: 100,
        items: { type: 'string', minLength: 1, maxLength: 100 },
      },
    },
    ['url', 'enabledEvents'],
  ),
  payment: closed(
    {
      amount: { type: 'number', exclusiveMinimum: 0, maximum: 99_999_999 },
      currency: { type: 'string', pattern: '^[A-Za-z]{3}$' },
      customer: objectId,
      reciver: { anyOf: [objectId, { type: 'null' }] },
      confirm: { type: 'boolean' },
      description: { anyOf: [str(1000), { type: 'null' }] },
    },
    ['amount', 'currency', 'customer'],
  ),
};

// ---------------------------------------------------------------- idempotency (as the service's store)

function canonicalJson(value) {
  if (value === undefined) return '';
  const sortKeys = (v) => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((key) => [key, sortKeys(v[key])]),
      );
    }
    return v;
  };
  return JSON.stringify(sortKeys(value));
}

function readIdempotencyKey(headers) {
  const value = headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw httpError(400, 'Send the Idempotency-Key header once');
  if (value.length < 1 || value.length > 255 || !PRINTABLE.test(value)) {
    throw httpError(400, 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  }
  return value;
}

// ---------------------------------------------------------------- server

async function main() {
  const client = new MongoClient(MONGODB_URI, { serverSelectionTimeoutMS: 3000 });
  await client.connect();
  const db = client.db();
  const users = db.collection('users');
  const accounts = db.collection('accounts');
  const passkeys = db.collection('passkeys');
  const memberships = db.collection('memberships');
  const platformProjects = db.collection('platform_projects');
  const apiKeys = db.collection('api_keys');
  const sessions = db.collection('sessions');
  const attempts = db.collection('auth_attempts');
  const knownAddresses = db.collection('known_login_addresses');
  const auditLog = db.collection('audit_log');
  const auditChains = db.collection('audit_chains');
  const clients = db.collection('clients');
  const channels = db.collection('channels');
  const contentProjects = db.collection('projects');
  const collections = db.collection('collections');
  const customers = db.collection('customers');
  const cards = db.collection('cards');
  const payments = db.collection('payments');
  const events = db.collection('events');
  const webhookEndpoints = db.collection('webhook_endpoints');
  const webhookDeliveries = db.collection('webhook_deliveries');
  /**
   * The events a change records, written after it: the plainest way to keep the contract (docs/events-and-webhooks.md).
   * Once the answer is sent, each event goes to the project's enabled endpoints that take its type
   * (`deliver`).
   */
  const recordEvents = async (request, types, object) => {
    const { projectId } = request.tenant;
    const createdAt = new Date();
    const stored = types.map((type) => {
      const id = `evt_${new ObjectId().toHexString()}`;
      const body = {
        id,
        type,
        createdAt: createdAt.toISOString(),
        projectId: String(projectId),
        apiVersion: '2026-11-24',
        data: { object },
        request: { id: null, idempotencyKey: null },
      };
      return { _id: id, projectId, type, createdAt, body: JSON.stringify(body) };
    });
    await events.insertMany(stored);
    // Once the answer is sent (the `onResponse` hook), as the service's fan-out runs off the request.
    (request.afterResponse ??= []).push(() => deliver(projectId, stored));
  };

  /**
   * Webhooks as the plainest implementation would send them (one attempt, no retries, no outbox):
   * the project's enabled endpoints read once per change, then per endpoint and event a POST with
   * the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`: `v1,` and
   * the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed with the secret's bytes), the same
   * signature as the service's, and a delivery record of the attempt.
   */
  async function deliver(projectId, stored) {
    const endpoints = await webhookEndpoints.find({ projectId, status: 'enabled' }).toArray();
    for (const endpoint of endpoints) {
      for (const event of stored) {
        if (!endpoint.enabledEvents.includes('*') && !endpoint.enabledEvents.includes(event.type)) continue;
        const started = Date.now();
        const timestamp = Math.floor(started / 1000);
        const key = Buffer.from(endpoint.secret.slice('whsec_'.length), 'base64');
        const signature = `v1,${crypto.createHmac('sha256', key).update(`${event._id}.${timestamp}.${event.body}`).digest('base64')}`;
        let responseStatus = null;
        let error = null;
        try {
          const response = await fetch(endpoint.url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'webhook-id': event._id,
              'webhook-timestamp': String(timestamp),
              'webhook-signature': signature,
            },
            body: event.body,
            signal: AbortSignal.timeout(10_000),
          });
          responseStatus = response.status;
          await response.arrayBuffer();
        } catch (failure) {
          error = failure.message;
        }
        const now = new Date();
        await webhookDeliveries.insertOne({
          projectId,
          endpointId: endpoint._id,
          eventId: event._id,
          eventType: event.type,
          status: responseStatus !== null && responseStatus >= 200 && responseStatus < 300 ? 'succeeded' : 'failed',
          attempts: 1,
          responseStatus,
          error,
          durationMs: now.getTime() - started,
          createdAt: now,
          updatedAt: now,
        });
      }
    }
  }
  const idempotency = db.collection('idempotency_keys');
  const paymentKeys = db.collection('payment_keys');

  // The same indexes as the service's schemas declare.
  await Promise.all([
    users.createIndex({ email: 1 }, { unique: true }),
    accounts.createIndex({ migrated: 1 }, { sparse: true }),
    memberships.createIndex({ accountId: 1, userId: 1 }, { unique: true }),
    sessions.createIndex({ tokenHash: 1 }, { unique: true }),
    memberships.createIndex({ userId: 1, createdAt: 1 }),
    platformProjects.createIndex({ accountId: 1, _id: 1 }),
    platformProjects.createIndex({ accountId: 1, isDefault: 1 }),
    apiKeys.createIndex({ hash: 1 }, { unique: true }),
    apiKeys.createIndex({ projectId: 1, createdAt: -1 }),
    attempts.createIndex({ kind: 1, email: 1, at: 1 }),
    attempts.createIndex({ kind: 1, client: 1, at: 1 }),
    auditLog.createIndex({ accountId: 1, sequence: 1 }, { unique: true }),
    auditLog.createIndex({ entryId: 1 }, { unique: true }),
    clients.createIndex({ projectId: 1, deletedAt: 1, _id: -1 }),
    channels.createIndex({ projectId: 1, usernameKey: 1 }, { unique: true }),
    channels.createIndex({ projectId: 1, clientId: 1, _id: 1 }),
    contentProjects.createIndex({ projectId: 1, parentId: 1, _id: 1 }),
    collections.createIndex({ projectId: 1, deletedAt: 1, _id: -1 }),
    customers.createIndex({ projectId: 1, _id: -1 }),
    cards.createIndex({ projectId: 1, customer: 1, _id: -1 }),
    payments.createIndex({ projectId: 1, _id: -1 }),
    payments.createIndex({ projectId: 1, customer: 1, _id: -1 }),
    payments.createIndex({ projectId: 1, status: 1, _id: -1 }),
    payments.createIndex({ projectId: 1, customer: 1, status: 1, _id: -1 }),
    idempotency.createIndex({ projectId: 1, scope: 1, key: 1 }, { unique: true }),
    webhookEndpoints.createIndex({ projectId: 1, status: 1 }),
    webhookDeliveries.createIndex({ projectId: 1, endpointId: 1, _id: -1 }),
    // The event list's, newest first and by type (GET /v1/events is not benchmarked, but every change writes here).
    events.createIndex({ projectId: 1, _id: -1 }),
    events.createIndex({ projectId: 1, type: 1, _id: -1 }),
  ]);
  // As the service: a TTL index where the database has them (FerretDB has none; the age check below stays).
  for (const collection of [idempotency, paymentKeys]) {
    await collection
      .createIndex({ createdAt: 1 }, { expireAfterSeconds: IDEMPOTENCY_TTL_SECONDS, name: 'createdAt_ttl' })
      .catch(() => undefined);
  }

  const dummyHash = await bcrypt.hash('not-a-real-password', BCRYPT_ROUNDS);

  const fastify = loadFastify()({
    logger: false,
    bodyLimit: 1_048_576,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });

  fastify.addHook('onResponse', async (request) => {
    for (const work of request.afterResponse ?? [])
      work().catch((error) => process.stderr.write(`Delivering webhooks failed: ${error.message}\n`));
  });

  fastify.setErrorHandler((error, _request, reply) => {
    const statusCode = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (statusCode === 500) process.stderr.write(`${error.stack ?? error}\n`);
    const names = {
      400: 'Bad Request',
      401: 'Unauthorized',
      403: 'Forbidden',
      404: 'Not Found',
      409: 'Conflict',
      422: 'Unprocessable Entity',
      429: 'Too Many Requests',
    };
    reply.code(statusCode).send({
      statusCode,
      error: names[statusCode] ?? 'Internal Server Error',
      message: statusCode === 500 ? 'Internal server error' : error.message,
    });
  });

  // ---- who is calling, and where the request acts

  /**
   * Every route needs a bearer token unless `config.public`; `config.api` names the platform API of
   * the route (membership, project and enabled API checked, `request.tenant` set), `config.userOnly`
   * a user's route outside any project (API keys: 403).
   */
  fastify.addHook('onRoute', (route) => {
    if (route.config?.public) return;
    route.preHandler = [
      authenticate,
      accountPolicy,
      ...(route.config?.api ? [tenancy, rateLimit] : []),
      ...(route.config?.userOnly ? [userOnly] : []),
    ];
  });

  /**
   * As the service's tenancy guard: a bearer token proves a password alone (the baseline has no
   * second factors), so where it acts in its own account (a data route, or a path naming that
   * account) the account's `requireMfa` is read, and a request in an account that requires a second
   * factor is refused. A session carries a copy of the flag (not read here: the harness's sessions
   * belong to an account that requires none).
   */
  async function accountPolicy(request) {
    const principal = request.principal;
    if (principal.kind !== 'user' || !principal.viaToken || !principal.accountId) return;
    const named = request.params?.accountId;
    if (!request.routeOptions.config.api && (typeof named !== 'string' || named.toLowerCase() !== principal.accountId))
      return;
    if (
      await accounts.findOne({ _id: new ObjectId(principal.accountId), requireMfa: true }, { projection: { _id: 1 } })
    ) {
      throw Object.assign(
        httpError(
          403,
          'This account requires a second factor: set one up (POST /api/v1/me/mfa/totp) and sign in with it',
        ),
        { code: 'mfa_required' },
      );
    }
  }

  /**
   * The data API's rate limit (RATE_LIMIT_PER_SECOND requests a second per API key, and per user in
   * each platform project, per instance), with the same RateLimit-Policy and RateLimit headers and
   * 429 as the service: one count per caller in a one-second window, the windows' counts dropped
   * whole when the second turns.
   */
  let window = { second: 0, counts: new Map() };
  function rateLimit(request, reply, done) {
    const principal = request.principal;
    const key =
      principal.kind === 'apiKey' ? `key:${principal.keyId}` : `user:${principal.userId}:${request.tenant.projectId}`;
    const now = Date.now();
    const second = Math.floor(now / 1000);
    if (window.second !== second) window = { second, counts: new Map() };
    const count = (window.counts.get(key) ?? 0) + 1;
    window.counts.set(key, count);
    const reset = Math.max(1, Math.ceil(((second + 1) * 1000 - now) / 1000));
    reply.header('RateLimit-Policy', `"data-api";q=${RATE_LIMIT_PER_SECOND};w=1`);
    reply.header('RateLimit', `"data-api";r=${Math.max(0, RATE_LIMIT_PER_SECOND - count)};t=${reset}`);
    if (count <= RATE_LIMIT_PER_SECOND) return done();
    reply.header('Retry-After', String(reset));
    done(
      httpError(
        429,
        `Rate limit exceeded: at most ${RATE_LIMIT_PER_SECOND} requests a second; retry after ${reset} second`,
      ),
    );
  }

  async function authenticate(request) {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) {
      request.principal = await authenticateSession(request);
      return;
    }
    const token = match[1];
    if (token.startsWith('sk_') || token.startsWith('pk_')) {
      const key = await authenticateKey(token);
      if (!key) throw httpError(401, 'Invalid API key');
      request.principal = key;
      return;
    }
    const verified = verifyJwt(token);
    if (!verified) throw httpError(401, 'Invalid or expired token');
    // The user's credentials version, read on every request as the service reads it: a token issued
    // before a password change, a reset or a factor removal (or whose user is gone) is refused.
    const user = await users.findOne(
      { _id: new ObjectId(verified.principal.userId) },
      { projection: { credentialsChangedAt: 1 } },
    );
    const changedAt = !user ? Number.POSITIVE_INFINITY : (user.credentialsChangedAt?.getTime() ?? 0);
    if (verified.credentialsAt !== undefined ? verified.credentialsAt !== changedAt : verified.issuedAt < changedAt) {
      throw httpError(401, 'This token was issued before the password or a second factor changed: log in again');
    }
    request.principal = { ...verified.principal, viaToken: true };
  }

  /**
   * Without a bearer token, the `sid` cookie of a dashboard session: one indexed read by the token's
   * SHA-256, the idle and absolute timeouts, `lastSeenAt` moved at most once a minute (awaited), and
   * a request that changes anything must come from this server's own origin.
   */
  async function authenticateSession(request) {
    const token = /(?:^|;\s*)sid=([^;]+)/.exec(request.headers.cookie ?? '')?.[1];
    if (!token)
      throw httpError(
        401,
        'Missing bearer token: send Authorization: Bearer <accessToken>, or sign in for a session cookie',
      );
    const session =
      token.length > 128
        ? null
        : await sessions.findOne({ tokenHash: crypto.createHash('sha256').update(token).digest('hex') });
    const now = Date.now();
    if (
      !session ||
      now - session.lastSeenAt.getTime() >= SESSION_IDLE_MS ||
      now - session.signedInAt.getTime() >= SESSION_MAX_MS
    ) {
      throw httpError(401, 'The session has ended: sign in again');
    }
    if (!SAFE_METHODS.has(request.method) && request.headers.origin !== `${request.protocol}://${request.host}`) {
      throw httpError(
        403,
        'A request with the session cookie that changes anything must come from this service (Origin)',
      );
    }
    if (now - session.lastSeenAt.getTime() >= SESSION_TOUCH_MS)
      await sessions.updateOne({ _id: session._id }, { $set: { lastSeenAt: new Date(now) } });
    return { kind: 'user', userId: String(session.userId), accountId: session.accountId };
  }

  /** One indexed read by the key's SHA-256; `lastUsedAt` at most once a minute, not awaited. */
  async function authenticateKey(token) {
    if (!API_KEY_FORM.test(token)) return null;
    const hash = crypto.createHash('sha256').update(token, 'utf8').digest('hex');
    const key = await apiKeys.findOne({ hash });
    if (!key || key.revokedAt) return null;
    const now = new Date();
    if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return null;
    const cutoff = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    if (!key.lastUsedAt || key.lastUsedAt.getTime() < cutoff.getTime()) {
      apiKeys
        .updateOne(
          { _id: key._id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: cutoff } }] },
          { $set: { lastUsedAt: now } },
        )
        .catch((error) => process.stderr.write(`Recording the use of an API key failed: ${error.message}\n`));
    }
    if ((key.kind ?? 'secret') !== (token.startsWith('pk_') ? 'publishable' : 'secret')) return null;
    return {
      kind: 'apiKey',
      publishable: key.kind === 'publishable',
      keyId: String(key._id),
      accountId: String(key.accountId),
      projectId: String(key.projectId),
      scopes: key.scopes ? [...key.scopes] : null,
    };
  }

  async function tenancy(request) {
    const api = request.routeOptions.config.api;
    const principal = request.principal;
    const header = request.headers['x-project-id'];
    const requested = Array.isArray(header) ? header[0] : header;
    let project;
    const viewer = request.routeOptions.config.viewer === true;
    if (viewer !== (principal.kind === 'apiKey' && principal.publishable)) {
      throw httpError(
        403,
        viewer
          ? 'The viewer routes take a publishable key (pk_test_...) as the bearer token'
          : 'A publishable key (pk_test_...) can call only the /viewer routes',
      );
    }
    if (principal.kind === 'apiKey') {
      if (requested !== undefined && requested.toLowerCase() !== principal.projectId)
        throw httpError(404, 'Platform project not found');
      project = await platformProjects.findOne({
        _id: new ObjectId(principal.projectId),
        accountId: new ObjectId(principal.accountId),
      });
      if (!project) throw httpError(404, 'Platform project not found');
      if (!project.enabledApis.includes(api)) throw httpError(403, `The ${api} API is not enabled for this project`);
      if (principal.scopes && !principal.scopes.includes(api))
        throw httpError(403, `This API key's scopes do not include the ${api} API`);
      request.account = { accountId: principal.accountId, role: 'admin', owner: false };
    } else {
      if (!principal.accountId) throw httpError(403, 'Create or join an account first');
      const accountId = new ObjectId(principal.accountId);
      // Both reads at once, as the service does; the membership decides first.
      const [membership, found] = await Promise.all([
        memberships.findOne({ accountId, userId: new ObjectId(principal.userId) }),
        requested === undefined
          ? platformProjects.findOne({ accountId, isDefault: true })
          : OBJECT_ID.test(requested)
            ? platformProjects.findOne({ _id: new ObjectId(requested.toLowerCase()), accountId })
            : null,
      ]);
      if (!membership) throw httpError(403, 'You are not a member of this account');
      request.account = { accountId: principal.accountId, role: membership.role, owner: membership.owner };
      project = found;
      if (!project) throw httpError(404, 'Platform project not found');
      if (!project.enabledApis.includes(api)) throw httpError(403, `The ${api} API is not enabled for this project`);
    }
    request.tenant = { accountId: principal.accountId, projectId: project._id };
  }

  async function userOnly(request) {
    if (request.principal.kind !== 'user') throw httpError(403, 'API keys cannot manage the platform');
  }

  const validId = (id, name) => {
    if (!OBJECT_ID.test(id)) throw httpError(400, `${name} must be a valid id (24 hexadecimal characters)`);
    return new ObjectId(id.toLowerCase());
  };

  // ---- viewers

  /** A published public project whose ancestors are all published and public (the bench's viewer read): its viewer fields. */
  fastify.get('/viewer/projects/:id', { config: { api: 'projects', viewer: true } }, async (request) => {
    const projectId = request.tenant.projectId;
    let project = await contentProjects.findOne({ _id: validId(request.params.id, 'projectId'), projectId });
    const shown = project;
    while (project) {
      if (project.status !== 'published' || project.access !== 'public') throw httpError(404, 'Project not found');
      project = project.parentId ? await contentProjects.findOne({ _id: project.parentId, projectId }) : null;
    }
    if (!shown) throw httpError(404, 'Project not found');
    return {
      id: String(shown._id),
      parentId: shown.parentId ? String(shown.parentId) : null,
      projectTypeId: shown.projectTypeId,
      subTypeId: shown.subTypeId ?? null,
      primaryTitle: shown.primaryTitle,
      description: shown.description ?? null,
      portraitImg: shown.portraitImg ?? null,
      landscapeImg: shown.landscapeImg ?? null,
      contentUploadType: shown.contentUploadType ?? null,
      primaryLanguageId: shown.primaryLanguageId ?? null,
      categoryId: shown.categoryId ?? null,
      subCategoryId: shown.subCategoryId ?? null,
      topicIds: [...(shown.topicIds ?? [])],
      supportedFormats: [...(shown.supportedFormats ?? [])],
      supportedModes: [...(shown.supportedModes ?? [])],
      supportedFeatures: [...(shown.supportedFeatures ?? [])],
    };
  });

  // ---- search

  /**
   * The bench's search without an index: the tenant's projects whose title, description or a tag holds
   * `q` (any case), newest first, a page of 10 and the count, in the service's answer shape.
   */
  fastify.get('/projects/search', { config: { api: 'projects' } }, async (request) => {
    const projectId = request.tenant.projectId;
    const q = String(request.query.q ?? '').trim();
    const text = new RegExp(q.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'), 'i');
    const filter = q
      ? { projectId, $or: [{ primaryTitle: text }, { description: text }, { topicIds: text }] }
      : { projectId };
    const [rows, total] = await Promise.all([
      contentProjects.find(filter, { sort: { createdAt: -1, _id: -1 }, limit: 10 }).toArray(),
      contentProjects.countDocuments(filter),
    ]);
    const data = rows.map((project) => ({
      _id: String(project._id),
      channelId: String(project.channelId),
      parentId: project.parentId ? String(project.parentId) : null,
      projectTypeId: project.projectTypeId,
      subTypeId: project.subTypeId ?? null,
      primaryTitle: project.primaryTitle,
      description: project.description ?? null,
      portraitImg: project.portraitImg ?? null,
      landscapeImg: project.landscapeImg ?? null,
      contentUploadType: project.contentUploadType ?? null,
      access: project.access,
      status: project.status,
      primaryLanguageId: project.primaryLanguageId ?? null,
      categoryId: project.categoryId ?? null,
      subCategoryId: project.subCategoryId ?? null,
      topicIds: [...(project.topicIds ?? [])],
      supportedFormats: [...(project.supportedFormats ?? [])],
      supportedModes: [...(project.supportedModes ?? [])],
      supportedFeatures: [...(project.supportedFeatures ?? [])],
      createdAt: project.createdAt.toISOString(),
      updatedAt: project.updatedAt.toISOString(),
    }));
    return { data, has_more: total > 10, next_page: total > 10 ? 'eyJvIjoxMH0' : null, total_count: total };
  });

  // ---- public routes

  fastify.get('/health', { config: { public: true } }, async () => {
    await db.command({ ping: 1 });
    return { status: 'ok' };
  });

  /** Signup without an invitation: the user, their account, its default project, their membership. */
  fastify.post(
    '/api/v1/singup',
    { config: { public: true }, schema: { body: schemas.signup } },
    async (request, reply) => {
      const body = request.body;
      const now = new Date();
      await attempts.insertOne({ kind: 'signup', email: null, client: request.ip, at: now });
      const signups = await attempts.countDocuments({
        kind: 'signup',
        client: request.ip,
        at: { $gt: new Date(now.getTime() - SIGNUP_WINDOW_SECONDS * 1000) },
      });
      if (signups > SIGNUP_MAX_PER_CLIENT)
        throw httpError(429, `Too many signups from this client. Try again in ${SIGNUP_WINDOW_SECONDS} seconds`);
      const user = {
        firstName: body.firstName.trim(),
        lastName: body.lastName.trim(),
        userName: '',
        email: body.email.trim().toLowerCase(),
        passwordHash: await bcrypt.hash(body.password, BCRYPT_ROUNDS),
        role: body.role,
        status: 'active',
        phoneNumber: body.phoneNumber ?? null,
        avatar: body.avatar ?? null,
        address: body.address ?? null,
        defaultCompany: null,
        createdAt: now,
        updatedAt: now,
      };
      try {
        user._id = (await users.insertOne(user)).insertedId;
      } catch (error) {
        if (error.code === 11000) throw httpError(409, 'A user with this email already exists');
        throw error;
      }
      const defaultProjectId = new ObjectId();
      const account = {
        name: body.accountName ?? `${user.firstName} ${user.lastName}`,
        type: body.accountType ?? 'developer',
        ownerId: user._id,
        defaultProjectId,
        createdAt: now,
        updatedAt: now,
      };
      account._id = (await accounts.insertOne(account)).insertedId;
      await platformProjects.insertOne({
        _id: defaultProjectId,
        accountId: account._id,
        name: 'Default project',
        enabledApis: [...API_NAMES],
        isDefault: true,
        eventApisOffered: true,
        createdAt: now,
        updatedAt: now,
      });
      const membership = {
        accountId: account._id,
        userId: user._id,
        role: body.role,
        owner: true,
        createdAt: now,
        updatedAt: now,
      };
      await memberships.insertOne(membership);
      user.defaultCompany = String(account._id);
      await users.updateOne(
        { _id: user._id },
        { $set: { defaultCompany: user.defaultCompany, updatedAt: new Date() } },
      );
      reply.code(201);
      return {
        message: 'User created',
        data: { user: toUser(user, body.role), account: toAccountView(account, membership) },
      };
    },
  );

  /** A webhook endpoint of the project; the answer holds its signing secret, as the service's does. */
  fastify.post(
    '/v1/webhook-endpoints',
    { config: { api: 'webhooks' }, schema: { body: schemas.webhookEndpoint } },
    async (request, reply) => {
      if (request.account.role !== 'admin') throw httpError(403, 'This action needs the admin role');
      const now = new Date();
      const endpoint = {
        url: request.body.url,
        description: request.body.description ?? null,
        enabledEvents: request.body.enabledEvents,
        status: 'enabled',
        secret: `whsec_${crypto.randomBytes(32).toString('base64')}`,
        projectId: request.tenant.projectId,
        createdAt: now,
        updatedAt: now,
      };
      endpoint._id = (await webhookEndpoints.insertOne(endpoint)).insertedId;
      reply.code(201);
      return {
        data: {
          id: String(endpoint._id),
          url: endpoint.url,
          description: endpoint.description,
          enabledEvents: endpoint.enabledEvents,
          status: endpoint.status,
          secret: endpoint.secret,
          createdAt: iso(now),
          updatedAt: iso(now),
        },
      };
    },
  );

  /** The account's view for a member, or null (one membership read, one account read). */
  async function accountView(accountId, userId) {
    if (!OBJECT_ID.test(String(accountId))) return null;
    const id = new ObjectId(String(accountId));
    const membership = await memberships.findOne({ accountId: id, userId });
    if (!membership) return null;
    const account = await accounts.findOne({ _id: id });
    return account ? toAccountView(account, membership) : null;
  }

  /**
   * The account's audit log, as the service keeps it: numbered without gaps per account under a
   * unique index, each entry chained to the one before by a SHA-256 over the previous hash and its
   * canonical JSON, and the chain's head (newest number and hash) stored per account, moved forward
   * by one guarded update, so that removing the newest entries is seen. The newest entry of each
   * account is remembered; a collision (another writer first) reads the newest again.
   */
  const auditHeads = new Map();
  async function appendAudit(accountId, fields) {
    const account = new ObjectId(accountId);
    const entry = {
      accountId: account,
      entryId: `aud_${crypto.randomUUID()}`,
      occurredAt: new Date(),
      projectId: null,
      changes: null,
      ...fields,
    };
    for (let attempt = 0; attempt < 5; attempt++) {
      let head = auditHeads.get(accountId);
      if (!head) {
        const [newest] = await auditLog.find({ accountId: account }).sort({ sequence: -1 }).limit(1).toArray();
        head = newest ? { sequence: newest.sequence, hash: newest.hash } : { sequence: 0, hash: '' };
      }
      const chained = { ...entry, sequence: head.sequence + 1 };
      const hash = crypto
        .createHash('sha256')
        .update(head.hash)
        .update(canonicalJson({ ...chained, accountId }))
        .digest('hex');
      try {
        await auditLog.insertOne({ ...chained, previousHash: head.hash, hash });
        auditHeads.set(accountId, { sequence: chained.sequence, hash });
        const moved = await auditChains.updateOne(
          { _id: accountId, headSequence: { $lt: chained.sequence } },
          { $set: { headSequence: chained.sequence, headHash: hash } },
        );
        if (moved.matchedCount === 0) {
          await auditChains
            .insertOne({ _id: accountId, headSequence: chained.sequence, headHash: hash })
            .catch((failure) => {
              if (failure.code !== 11000) throw failure;
            });
        }
        return;
      } catch (error) {
        if (error.code !== 11000) throw error;
        auditHeads.delete(accountId);
      }
    }
    throw new Error(`No free audit sequence number for account ${accountId}`);
  }

  fastify.post('/api/v1/login', { config: { public: true }, schema: { body: schemas.login } }, async (request) => {
    const { email, password, accountId } = request.body;
    const target = email.trim().toLowerCase();
    const client = request.ip;
    // The attempt is recorded, then counted for the pair, the client and the email, before the
    // password check; the email's limit does not apply from an address that logged in to it before.
    const now = new Date();
    await attempts.insertOne({ kind: 'login', email: target, client, at: now });
    const since = { $gt: new Date(now.getTime() - LOGIN_FAILURE_WINDOW_SECONDS * 1000) };
    const [pair, fromClient, forEmail] = await Promise.all([
      attempts.countDocuments({ kind: 'login', email: target, client, at: since }),
      attempts.countDocuments({ kind: 'login', client, at: since }),
      attempts.countDocuments({ kind: 'login', email: target, at: since }),
    ]);
    const knownAddress = `${target}\n${client}`;
    const blocked =
      pair > LOGIN_MAX_FAILURES ||
      fromClient > LOGIN_MAX_FAILURES_PER_CLIENT ||
      (forEmail > LOGIN_MAX_FAILURES_PER_EMAIL &&
        !(await knownAddresses.findOne(
          { _id: knownAddress, at: { $gt: new Date(now.getTime() - KNOWN_ADDRESS_DAYS * 86_400_000) } },
          { projection: { _id: 1 } },
        )));
    if (blocked)
      throw httpError(429, `Too many failed login attempts. Try again in ${LOGIN_FAILURE_WINDOW_SECONDS} seconds`);
    const user = await users.findOne({ email: target });
    const matches = await bcrypt.compare(password, user?.passwordHash ?? dummyHash);
    if (!user || !matches) throw httpError(401, 'Invalid email or password');
    // As the service: a user with a second factor (TOTP, or a passkey: one read when TOTP is off)
    // must prove it; the baseline has no second factors, so such a user is refused.
    if (user.totpEnabledAt || (await passkeys.findOne({ userId: user._id }, { projection: { _id: 1 } }))) {
      throw Object.assign(
        httpError(
          401,
          'This user has a second factor: send totp or recoveryCode with the password, or sign in with a passkey (POST /api/v1/sessions/passkey)',
        ),
        { code: 'mfa_required' },
      );
    }
    await Promise.all([
      attempts.deleteMany({ kind: 'login', email: target, client }),
      knownAddresses.updateOne({ _id: knownAddress }, { $set: { at: now } }, { upsert: true }),
    ]);
    let account = null;
    if (accountId) {
      account = await accountView(accountId.toLowerCase(), user._id);
      if (!account) throw httpError(403, 'You are not a member of this account');
    } else {
      if (user.defaultCompany) account = await accountView(user.defaultCompany, user._id);
      if (!account) {
        const [first] = await memberships.find({ userId: user._id }).sort({ createdAt: 1, _id: 1 }).limit(1).toArray();
        if (first) account = await accountView(first.accountId, user._id);
      }
    }
    if (account) {
      const party = { type: 'user', id: String(user._id), label: user.email };
      await appendAudit(account.id, {
        action: 'user.logged_in',
        actor: party,
        target: party,
        ip: client,
        userAgent: request.headers['user-agent']?.slice(0, 256) ?? null,
        requestId: request.id,
      });
    }
    return {
      message: 'Login successful',
      accessToken: signJwt({
        sub: String(user._id),
        acc: account?.id ?? null,
        ims: Date.now(),
        cav: user.credentialsChangedAt?.getTime() ?? 0,
      }),
      data: { user: toUser(user, account?.role), account },
    };
  });

  // ---- accounts (a user's routes, outside any project)

  fastify.get('/api/v1/accounts/:accountId/members', { config: { userOnly: true } }, async (request) => {
    const accountId = validId(request.params.accountId, 'accountId');
    const userId = new ObjectId(request.principal.userId);
    const membership = await memberships.findOne({ accountId, userId });
    const account = membership && (await accounts.findOne({ _id: accountId }));
    if (!account) throw httpError(404, 'Account not found');
    const members = await memberships.find({ accountId }).sort({ createdAt: 1, _id: 1 }).toArray();
    const people = await users.find({ _id: { $in: members.map((member) => member.userId) } }).toArray();
    const byId = new Map(people.map((user) => [String(user._id), user]));
    return {
      data: members.flatMap((member) => {
        const user = byId.get(String(member.userId));
        return user ? [toMemberView(member, user)] : [];
      }),
    };
  });

  // ---- content

  fastify.post('/clients', { config: { api: 'clients' }, schema: { body: schemas.client } }, async (request, reply) => {
    const body = request.body;
    const now = new Date();
    const { insertedId } = await clients.insertOne({
      name: body.name.trim(),
      email: body.email.trim(),
      phone: body.phone ?? null,
      projectIds: (body.projectIds ?? []).map((id) => id.toLowerCase()),
      deletedAt: null,
      projectId: request.tenant.projectId,
      createdAt: now,
      updatedAt: now,
    });
    reply.code(201);
    return { message: 'Client created', id: String(insertedId) };
  });

  fastify.post('/channels', { config: { api: 'channels' }, schema: { body: schemas.channel } }, async (request) => {
    const body = request.body;
    const { projectId } = request.tenant;
    const clientId = new ObjectId(body.clientId.toLowerCase());
    const live = await clients.findOne({ _id: clientId, deletedAt: null, projectId }, { projection: { _id: 1 } });
    if (!live) throw httpError(400, 'clientId does not match an existing client');
    const now = new Date();
    try {
      const { insertedId } = await channels.insertOne({
        clientId,
        name: body.name,
        username: body.username,
        usernameKey: body.username.toLowerCase(),
        avatarUrl: body.avatarUrl,
        role: body.role,
        projectIds: [...new Set(body.projectIds ?? [])].map((id) => new ObjectId(id)),
        membershipsEnabled: body.membershipsEnabled ?? false,
        membershipTiers: [],
        monetizationEnabled: body.monetizationEnabled ?? false,
        revenue: body.revenue ?? 0,
        projectId,
        createdAt: now,
        updatedAt: now,
      });
      return { message: 'Channel created', id: String(insertedId) };
    } catch (error) {
      if (error.code === 11000) throw httpError(409, 'Channel username already taken');
      throw error;
    }
  });

  fastify.get('/channels/:id', { config: { api: 'channels' } }, async (request) => {
    const channel = await channels.findOne({
      _id: validId(request.params.id, 'id'),
      projectId: request.tenant.projectId,
    });
    if (!channel) throw httpError(404, 'Channel not found');
    return toChannel(channel);
  });

  // A project and every project below it, level by level, at most 1,000 (the service's tree read).
  fastify.get('/projects/:projectId/tree', { config: { api: 'projects' } }, async (request) => {
    const projectId = request.tenant.projectId;
    const fields = { projection: { _id: 1, parentId: 1, primaryTitle: 1, projectTypeId: 1, status: 1 } };
    const root = await contentProjects.findOne(
      { _id: validId(request.params.projectId, 'projectId'), projectId },
      fields,
    );
    if (!root) throw httpError(404, 'Project not found');
    const node = (project, depth) => ({
      _id: String(project._id),
      parentId: project.parentId ? String(project.parentId) : null,
      depth,
      primaryTitle: project.primaryTitle,
      projectTypeId: project.projectTypeId,
      status: project.status,
    });
    const nodes = [node(root, 0)];
    let level = [root._id];
    for (let depth = 1; level.length > 0 && depth < 4; depth++) {
      const children = await contentProjects
        .find({ parentId: { $in: level }, projectId }, { ...fields, sort: { _id: 1 }, limit: 1001 - nodes.length })
        .toArray();
      if (nodes.length + children.length > 1000) throw httpError(422, 'The tree holds more than 1000 projects');
      for (const child of children) nodes.push(node(child, depth));
      level = children.map((child) => child._id);
    }
    return { nodes };
  });

  fastify.post(
    '/collections',
    { config: { api: 'collections' }, schema: { body: schemas.collection } },
    async (request, reply) => {
      const body = request.body;
      const now = new Date();
      const document = {
        name: body.name.trim(),
        description: body.description ?? null,
        numberOfClients: body.numberOfClients ?? null,
        numberOfUsers: body.numberOfUsers ?? null,
        usage: body.usage ?? null,
        pricing: body.pricing ?? null,
        endpoints: body.endpoints ?? [],
        deletedAt: null,
        projectId: request.tenant.projectId,
        createdAt: now,
        updatedAt: now,
      };
      const { insertedId } = await collections.insertOne(document);
      await recordEvents(request, ['collection.created'], toCollection({ ...document, _id: insertedId }));
      reply.code(201);
      return { message: 'Collection created', id: String(insertedId) };
    },
  );

  fastify.get('/collections', { config: { api: 'collections' } }, async (request, reply) => {
    const query = request.query;
    const limit = query.limit === undefined ? 100 : Number(query.limit);
    const skip = query.skip === undefined ? 0 : Number(query.skip);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500)
      throw httpError(400, 'limit must be an integer from 1 to 500');
    if (!Number.isInteger(skip) || skip < 0 || skip > 1_000_000)
      throw httpError(400, 'skip must be an integer from 0 to 1000000');
    const filter = query.includeDeleted === 'true' ? {} : { deletedAt: null };
    filter.projectId = request.tenant.projectId;
    const [rows, total] = await Promise.all([
      collections.find(filter).sort({ _id: -1 }).skip(skip).limit(limit).toArray(),
      collections.countDocuments(filter),
    ]);
    reply.header('X-Total-Count', String(total));
    return rows.map(toCollection);
  });

  // ---- finance

  fastify.post(
    '/v1/customers',
    { config: { api: 'customers' }, schema: { body: schemas.customer } },
    async (request, reply) => {
      const body = request.body;
      const now = new Date();
      const customer = {
        email: body.email.trim(),
        firstName: body.firstName ?? null,
        lastName: body.lastName ?? null,
        country: body.country ? body.country.toUpperCase() : null,
        address: body.address ?? {},
        phone: body.phone ?? null,
        SocialNumber: body.SocialNumber ?? null,
        liveMode: body.liveMode ?? false,
        verified: body.verified ?? false,
        Taxable: body.Taxable ?? false,
        balance: body.balance ?? 0,
        defaultMethod: null,
        projectId: request.tenant.projectId,
        createdAt: now,
        updatedAt: now,
      };
      customer._id = (await customers.insertOne(customer)).insertedId;
      reply.code(201);
      return { data: toCustomerCreated(customer) };
    },
  );

  fastify.get('/v1/customers', { config: { api: 'customers' } }, async (request) => {
    const query = request.query;
    const limit = query.limit === undefined ? 20 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      throw httpError(400, 'limit must not be greater than 100');
    const filter = { projectId: request.tenant.projectId };
    if (query.startingAfter !== undefined) filter._id = { $lt: validId(query.startingAfter, 'startingAfter') };
    const rows = await customers
      .find(filter)
      .sort({ _id: -1 })
      .limit(limit + 1)
      .toArray();
    return { data: rows.slice(0, limit).map(toCustomer), hasMore: rows.length > limit };
  });

  fastify.get('/v1/customers/:id', { config: { api: 'customers' } }, async (request) => {
    const customer = await customers.findOne({
      _id: validId(request.params.id, 'id'),
      projectId: request.tenant.projectId,
    });
    if (!customer) throw httpError(404, 'Customer not found');
    return { data: toCustomer(customer) };
  });

  /**
   * `Idempotency-Key`: a record per project, caller and route (unique index) before the work, the
   * answer stored after it; a failed request releases its key. Replays, 409 and 422 as the service.
   * The work gets `{ caller, key, fingerprint }` (null without a key), as the service's routes do.
   */
  async function idempotent(request, reply, work) {
    const key = readIdempotencyKey(request.headers);
    if (key === undefined) return work(null);
    const { projectId } = request.tenant;
    const principal = request.principal;
    const caller = principal.kind === 'user' ? `user:${principal.userId}` : `key:${principal.keyId}`;
    const path = request.url.split('?')[0].replace(/\/+$/, '') || '/';
    const scope = `${caller} ${request.method} ${path}`;
    const fingerprint = crypto
      .createHmac('sha256', IDEMPOTENCY_FINGERPRINT_KEY)
      .update(`${request.method}\n${request.url}\n${canonicalJson(request.body)}`)
      .digest('hex');
    let recordId;
    for (let attempt = 0; attempt < 5 && recordId === undefined; attempt++) {
      const now = new Date();
      try {
        const record = {
          projectId,
          scope,
          key,
          fingerprint,
          state: 'in_progress',
          statusCode: null,
          responseBody: null,
          createdAt: now,
          updatedAt: now,
        };
        recordId = (await idempotency.insertOne(record)).insertedId;
        break;
      } catch (error) {
        if (error.code !== 11000) throw error;
      }
      const existing = await idempotency.findOne({ projectId, scope, key });
      if (!existing) continue;
      const age = Date.now() - existing.createdAt.getTime();
      if (age >= IDEMPOTENCY_TTL_SECONDS * 1000 || (existing.state === 'in_progress' && age >= IN_PROGRESS_LEASE_MS)) {
        await idempotency.deleteOne({ _id: existing._id, projectId, createdAt: existing.createdAt });
        continue;
      }
      if (existing.fingerprint !== fingerprint) {
        throw httpError(
          422,
          'This Idempotency-Key was already used with a different request; use a new key for a new request',
        );
      }
      if (existing.state !== 'completed' || existing.statusCode === null) {
        throw httpError(
          409,
          'A request with this Idempotency-Key is still being processed; retry it shortly to get its result',
        );
      }
      reply.header('Idempotent-Replayed', 'true');
      reply.code(existing.statusCode);
      return existing.responseBody === null ? undefined : JSON.parse(existing.responseBody);
    }
    if (recordId === undefined)
      throw httpError(
        409,
        'A request with this Idempotency-Key is still being processed; retry it shortly to get its result',
      );
    let body;
    try {
      body = await work({ caller, key, fingerprint });
    } catch (error) {
      await idempotency.deleteOne({ _id: recordId, projectId, state: 'in_progress' }).catch(() => undefined);
      throw error;
    }
    // By the record's id alone, as the service does (its own insert, in this project): the one filter
    // FerretDB narrows in SQL.
    await idempotency
      .updateOne(
        { _id: recordId },
        {
          $set: {
            state: 'completed',
            statusCode: reply.statusCode,
            responseBody: body === undefined ? null : JSON.stringify(body),
            updatedAt: new Date(),
          },
        },
      )
      .catch((error) => process.stderr.write(`Storing an idempotent response failed: ${error.message}\n`));
    return body;
  }

  /** The customer's default card in the project, as the service charges it. */
  async function defaultCardForCharge(projectId, customerId) {
    const customer = await customers.findOne({ _id: customerId, projectId });
    if (!customer?.defaultMethod || !OBJECT_ID.test(customer.defaultMethod)) return null;
    const card = await cards.findOne({ _id: new ObjectId(customer.defaultMethod), customer: customer._id, projectId });
    if (!card) return null;
    const now = new Date();
    const expired =
      card.expYear < now.getUTCFullYear() ||
      (card.expYear === now.getUTCFullYear() && card.expMonth < now.getUTCMonth() + 1);
    return { cardId: card._id, failureCode: card.failureCode ?? (expired ? 'expired_card' : null) };
  }

  /**
   * The payments' own record of a key (as the service's PaymentKeys): the key, in a project and for
   * a caller, stands for one payment id by its unique `_id`; the same key with another request is 422.
   */
  const paymentKeyId = (projectId, request) => `${projectId}:${request.caller}:${request.key}`;
  const isExpiredKey = (record) => Date.now() - record.createdAt.getTime() >= IDEMPOTENCY_TTL_SECONDS * 1000;
  const checkedKey = (record, request) => {
    if (record.fingerprint !== request.fingerprint) {
      throw httpError(
        422,
        'This Idempotency-Key was already used with a different request; use a new key for a new request',
      );
    }
    return record;
  };
  async function findPaymentKey(projectId, request) {
    const existing = await paymentKeys.findOne({ _id: paymentKeyId(projectId, request), projectId });
    if (!existing || isExpiredKey(existing)) return null;
    return checkedKey(existing, request).paymentId;
  }
  async function reservePaymentKey(projectId, request, candidate) {
    const _id = paymentKeyId(projectId, request);
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await paymentKeys.insertOne({
          _id,
          projectId,
          paymentId: candidate,
          fingerprint: request.fingerprint,
          createdAt: new Date(),
        });
        return candidate;
      } catch (error) {
        if (error.code !== 11000) throw error;
      }
      const existing = await paymentKeys.findOne({ _id, projectId });
      if (!existing) continue;
      if (isExpiredKey(existing)) {
        await paymentKeys.deleteOne({ _id, projectId, createdAt: existing.createdAt });
        continue;
      }
      return checkedKey(existing, request).paymentId;
    }
    throw new Error(`Could not claim the payment key ${_id}`);
  }

  fastify.post(
    '/api/v1/payments',
    { config: { api: 'payments' }, schema: { body: schemas.payment } },
    async (request, reply) => {
      reply.code(201);
      return idempotent(request, reply, async (idempotencyKey) => {
        const body = request.body;
        const { projectId } = request.tenant;
        const currency = body.currency.toLowerCase();
        const decimals = CURRENCY_DECIMALS[currency] ?? 2;
        const minor = Math.round(body.amount * 10 ** decimals);
        if (Math.abs(minor - body.amount * 10 ** decimals) > 1e-6) {
          throw httpError(
            400,
            `amount has more than ${decimals} decimals, the smallest unit of ${currency.toUpperCase()}`,
          );
        }
        const customer = new ObjectId(body.customer.toLowerCase());
        const reciver = body.reciver ? new ObjectId(body.reciver.toLowerCase()) : null;
        if (reciver && reciver.equals(customer))
          throw httpError(400, 'reciver must be a different customer than customer');
        const replay = (payment) => {
          reply.header('Idempotent-Replayed', 'true');
          return toPayment(payment);
        };
        if (idempotencyKey) {
          const earlier = await findPaymentKey(projectId, idempotencyKey);
          const payment = earlier && (await payments.findOne({ _id: earlier, projectId }));
          if (payment) return replay(payment);
        }
        const [payer, payee] = await Promise.all([
          customers.findOne({ _id: customer, projectId }, { projection: { _id: 1 } }),
          reciver ? customers.findOne({ _id: reciver, projectId }, { projection: { _id: 1 } }) : true,
        ]);
        if (!payer) throw httpError(400, 'customer does not exist');
        if (!payee) throw httpError(400, 'reciver does not exist');
        const candidate = new ObjectId();
        let paymentId = candidate;
        if (idempotencyKey) {
          paymentId = await reservePaymentKey(projectId, idempotencyKey, candidate);
          // Only a key claimed earlier can stand for a payment that exists (the service skips the read
          // alike: on FerretDB it scans the project's payments).
          const payment = paymentId.equals(candidate) ? null : await payments.findOne({ _id: paymentId, projectId });
          if (payment) return replay(payment);
        }
        let charge = { status: 'requires_confirmation', failureCode: null, card: null };
        if (body.confirm) {
          const card = await defaultCardForCharge(projectId, customer);
          if (!card) charge = { status: 'requires_payment_method', failureCode: null, card: null };
          else if (card.failureCode) charge = { status: 'failed', failureCode: card.failureCode, card: card.cardId };
          else charge = { status: 'succeeded', failureCode: null, card: card.cardId };
        }
        const now = new Date();
        const payment = {
          _id: paymentId,
          projectId,
          amountMinor: minor,
          currency,
          customer,
          reciver,
          description: body.description ?? null,
          status: charge.status,
          failureCode: charge.failureCode,
          card: charge.card,
          amountRefundedMinor: 0,
          refundIds: [],
          createdAt: now,
          updatedAt: now,
        };
        try {
          await payments.insertOne(payment);
        } catch (error) {
          // Another run under the same key wrote this id first: answer its payment.
          const earlier =
            idempotencyKey && error.code === 11000 ? await payments.findOne({ _id: paymentId, projectId }) : null;
          if (earlier) return replay(earlier);
          throw error;
        }
        const outcome = { succeeded: ['payment.succeeded'], failed: ['payment.failed'] }[payment.status] ?? [];
        await recordEvents(request, ['payment.created', ...outcome], toPayment(payment));
        return toPayment(payment);
      });
    },
  );

  await fastify.listen({ port: PORT, host: HOST });
  process.stdout.write(`baseline listening on http://${HOST}:${PORT}\n`);

  const shutdown = async () => {
    try {
      await fastify.close();
      await client.close();
    } finally {
      process.exit(0);
    }
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error) => {
  process.stderr.write(`baseline failed to start: ${error.stack ?? error}\n`);
  process.exit(1);
});
