'use strict';
/**
 * Baseline for the benchmark: the benchmarked routes written with bare Fastify and the `mongodb`
 * driver, no framework on top. Same reads and writes as the service, same response shapes, same
 * JWT (HS256, verified with node:crypto on every authenticated route) and the same bcrypt cost.
 *
 * What it deliberately leaves out, because the service pays for it and the comparison should show it:
 * request logging, class-validator DTOs (bodies are checked with Fastify's JSON schemas instead),
 * helmet and CORS headers, request ids, the Nest pipeline (guards, pipes, interceptors, filters),
 * Mongoose documents.
 *
 * Environment: PORT, HOST (127.0.0.1), MONGODB_URI (with a database name), JWT_SECRET,
 * JWT_EXPIRES_IN (seconds, 3600), BCRYPT_ROUNDS (12).
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

const PORT = Number(process.env.PORT ?? 3100);
const HOST = process.env.HOST ?? '127.0.0.1';
const MONGODB_URI = process.env.MONGODB_URI;
const JWT_SECRET = process.env.JWT_SECRET;
const JWT_EXPIRES_IN = Number(process.env.JWT_EXPIRES_IN ?? 3600);
const BCRYPT_ROUNDS = Number(process.env.BCRYPT_ROUNDS ?? 12);
const ROLES = ['developer', 'manager', 'admin'];
const OBJECT_ID = /^[0-9a-fA-F]{24}$/;
const CURRENCY_DECIMALS = { usd: 2, eur: 2, gbp: 2, cad: 2, brl: 2, jpy: 0 };

if (!MONGODB_URI || !JWT_SECRET) {
  process.stderr.write('MONGODB_URI and JWT_SECRET are required\n');
  process.exit(1);
}

// ---------------------------------------------------------------- JWT (HS256) with node:crypto

const b64url = (buffer) => Buffer.from(buffer).toString('base64url');
const JWT_HEADER = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

function signJwt(claims) {
  const now = Math.floor(Date.now() / 1000);
  const payload = b64url(JSON.stringify({ ...claims, iat: now, exp: now + JWT_EXPIRES_IN }));
  const signature = crypto.createHmac('sha256', JWT_SECRET).update(`${JWT_HEADER}.${payload}`).digest('base64url');
  return `${JWT_HEADER}.${payload}.${signature}`;
}

/** Same checks as the service's verification: pinned algorithm, signature, expiry, claim types. */
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
  if (!header || header.alg !== 'HS256') return null;
  const expected = crypto.createHmac('sha256', JWT_SECRET).update(`${headerPart}.${payloadPart}`).digest();
  const given = Buffer.from(signaturePart, 'base64url');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== 'number' || claims.exp <= now) return null;
  if (typeof claims.nbf === 'number' && claims.nbf > now) return null;
  if (typeof claims.sub !== 'string' || !ROLES.includes(claims.role)) return null;
  return { id: claims.sub, role: claims.role };
}

// ---------------------------------------------------------------- errors and mappers

function httpError(statusCode, message) {
  return Object.assign(new Error(message), { statusCode });
}

const iso = (date) => new Date(date).toISOString();

function toUser(user) {
  return {
    id: String(user._id),
    firstName: user.firstName,
    lastName: user.lastName,
    userName: user.userName ?? '',
    email: user.email,
    role: user.role,
    status: user.status,
    phoneNumber: user.phoneNumber ?? null,
    avatar: user.avatar ?? null,
    address: user.address ?? null,
    defaultCompany: user.defaultCompany ?? null,
    createdAt: iso(user.createdAt),
    updatedAt: iso(user.updatedAt),
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
    deletedAt: collection.deletedAt ? iso(collection.deletedAt) : null,
  };
}

function toCustomerCreated(customer) {
  return {
    id: String(customer._id),
    email: customer.email,
    firstName: customer.firstName,
    lastName: customer.lastName,
    address: customer.address,
    country: customer.country,
    balance: customer.balance,
    verified: customer.verified,
    liveMode: customer.liveMode,
    createdAt: iso(customer.createdAt),
    updatedAt: iso(customer.updatedAt),
    defaultMethod: customer.defaultMethod,
  };
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
      firstName: str(100),
      lastName: str(100),
      email: { type: 'string', format: 'email', maxLength: 254 },
      password: { type: 'string', minLength: 8, maxLength: 72 },
      role: { type: 'string', enum: ROLES },
      phoneNumber: { type: 'integer' },
      address: { type: 'object' },
      avatar: str(2048),
    },
    ['firstName', 'lastName', 'email', 'password', 'role'],
  ),
  login: closed({ email: { type: 'string', format: 'email', maxLength: 254 }, password: { type: 'string', minLength: 1, maxLength: 1024 } }, ['email', 'password']),
  client: closed({ name: str(200), email: { type: 'string', format: 'email' }, phone: str(50), projectIds: { type: 'array', items: objectId } }, ['name', 'email']),
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
  payment: closed(
    {
      amount: { type: 'number', exclusiveMinimum: 0 },
      currency: { type: 'string', pattern: '^[A-Za-z]{3}$' },
      customer: objectId,
      reciver: objectId,
      confirm: { type: 'boolean' },
      description: str(1000),
    },
    ['amount', 'currency', 'customer'],
  ),
};

// ---------------------------------------------------------------- server

async function main() {
  const client = new MongoClient(MONGODB_URI, { serverSelectionTimeoutMS: 3000 });
  await client.connect();
  const db = client.db();
  const users = db.collection('users');
  const flags = db.collection('system_flags');
  const clients = db.collection('clients');
  const channels = db.collection('channels');
  const collections = db.collection('collections');
  const customers = db.collection('customers');
  const payments = db.collection('payments');

  // The same indexes as the service's schemas declare.
  await Promise.all([
    users.createIndex({ email: 1 }, { unique: true }),
    clients.createIndex({ deletedAt: 1, _id: -1 }),
    channels.createIndex({ usernameKey: 1 }, { unique: true }),
    channels.createIndex({ clientId: 1, _id: 1 }),
    collections.createIndex({ deletedAt: 1, _id: -1 }),
    payments.createIndex({ customer: 1, _id: -1 }),
    payments.createIndex({ status: 1, _id: -1 }),
    payments.createIndex({ customer: 1, status: 1, _id: -1 }),
  ]);

  const dummyHash = await bcrypt.hash('not-a-real-password', BCRYPT_ROUNDS);

  const fastify = loadFastify()({
    logger: false,
    bodyLimit: 1_048_576,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });

  fastify.setErrorHandler((error, _request, reply) => {
    const statusCode = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (statusCode === 500) process.stderr.write(`${error.stack ?? error}\n`);
    const names = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict' };
    reply.code(statusCode).send({
      statusCode,
      error: names[statusCode] ?? 'Internal Server Error',
      message: statusCode === 500 ? 'Internal server error' : error.message,
    });
  });

  // Authentication: every route needs a valid bearer token unless it is marked public.
  fastify.addHook('onRoute', (route) => {
    if (route.config?.public) return;
    route.preHandler = [authenticate];
  });
  async function authenticate(request) {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw httpError(401, 'Missing bearer token: send Authorization: Bearer <accessToken>');
    const user = verifyJwt(match[1]);
    if (!user) throw httpError(401, 'Invalid or expired token');
    request.user = user;
  }

  const validId = (id, name) => {
    if (!OBJECT_ID.test(id)) throw httpError(400, `${name} must be a valid id (24 hexadecimal characters)`);
    return new ObjectId(id.toLowerCase());
  };

  fastify.get('/health', { config: { public: true } }, async () => {
    await db.command({ ping: 1 });
    return { status: 'ok' };
  });

  fastify.post('/api/v1/singup', { config: { public: true }, schema: { body: schemas.signup } }, async (request, reply) => {
    const body = request.body;
    if (body.role !== 'developer') {
      // The first user of an empty system may take any role.
      const first = (await users.estimatedDocumentCount()) === 0;
      if (!first) throw httpError(403, `Only an admin can create a ${body.role} account`);
      await flags.insertOne({ _id: 'first-user', setAt: new Date() });
    }
    const now = new Date();
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
      const { insertedId } = await users.insertOne(user);
      user._id = insertedId;
    } catch (error) {
      if (error.code === 11000) throw httpError(409, 'A user with this email already exists');
      throw error;
    }
    reply.code(201);
    return { message: 'User created', data: { user: toUser(user) } };
  });

  fastify.post('/api/v1/login', { config: { public: true }, schema: { body: schemas.login } }, async (request) => {
    const { email, password } = request.body;
    const user = await users.findOne({ email: email.trim().toLowerCase() });
    const matches = await bcrypt.compare(password, user?.passwordHash ?? dummyHash);
    if (!user || !matches) throw httpError(401, 'Invalid email or password');
    return {
      message: 'Login successful',
      accessToken: signJwt({ sub: String(user._id), role: user.role }),
      data: { user: toUser(user) },
    };
  });

  fastify.post('/clients', { schema: { body: schemas.client } }, async (request, reply) => {
    const body = request.body;
    const now = new Date();
    const { insertedId } = await clients.insertOne({
      name: body.name.trim(),
      email: body.email.trim(),
      phone: body.phone ?? null,
      projectIds: (body.projectIds ?? []).map((id) => id.toLowerCase()),
      deletedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    reply.code(201);
    return { message: 'Client created', id: String(insertedId) };
  });

  fastify.post('/channels', { schema: { body: schemas.channel } }, async (request) => {
    const body = request.body;
    const clientId = new ObjectId(body.clientId.toLowerCase());
    const live = await clients.findOne({ _id: clientId, deletedAt: null }, { projection: { _id: 1 } });
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
        createdAt: now,
        updatedAt: now,
      });
      return { message: 'Channel created', id: String(insertedId) };
    } catch (error) {
      if (error.code === 11000) throw httpError(409, 'Channel username already taken');
      throw error;
    }
  });

  fastify.get('/channels/:id', async (request) => {
    const channel = await channels.findOne({ _id: validId(request.params.id, 'id') });
    if (!channel) throw httpError(404, 'Channel not found');
    return toChannel(channel);
  });

  fastify.post('/collections', { schema: { body: schemas.collection } }, async (request, reply) => {
    const body = request.body;
    const now = new Date();
    const { insertedId } = await collections.insertOne({
      name: body.name.trim(),
      description: body.description ?? null,
      numberOfClients: body.numberOfClients ?? null,
      numberOfUsers: body.numberOfUsers ?? null,
      usage: body.usage ?? null,
      pricing: body.pricing ?? null,
      endpoints: body.endpoints ?? [],
      deletedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    reply.code(201);
    return { message: 'Collection created', id: String(insertedId) };
  });

  fastify.get('/collections', async (request, reply) => {
    const query = request.query;
    const limit = query.limit === undefined ? 100 : Number(query.limit);
    const skip = query.skip === undefined ? 0 : Number(query.skip);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw httpError(400, 'limit must be an integer from 1 to 500');
    if (!Number.isInteger(skip) || skip < 0 || skip > 1_000_000) throw httpError(400, 'skip must be an integer from 0 to 1000000');
    const filter = query.includeDeleted === 'true' ? {} : { deletedAt: null };
    const [rows, total] = await Promise.all([
      collections.find(filter).sort({ _id: -1 }).skip(skip).limit(limit).toArray(),
      collections.countDocuments(filter),
    ]);
    reply.header('X-Total-Count', String(total));
    return rows.map(toCollection);
  });

  fastify.post('/v1/customers', { schema: { body: schemas.customer } }, async (request, reply) => {
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
      createdAt: now,
      updatedAt: now,
    };
    const { insertedId } = await customers.insertOne(customer);
    customer._id = insertedId;
    reply.code(201);
    return { data: toCustomerCreated(customer) };
  });

  fastify.post('/api/v1/payments', { schema: { body: schemas.payment } }, async (request, reply) => {
    const body = request.body;
    const currency = body.currency.toLowerCase();
    const decimals = CURRENCY_DECIMALS[currency] ?? 2;
    const minor = Math.round(body.amount * 10 ** decimals);
    if (Math.abs(minor - body.amount * 10 ** decimals) > 1e-6) {
      throw httpError(400, `amount has more than ${decimals} decimals for ${currency}`);
    }
    const customer = new ObjectId(body.customer.toLowerCase());
    const reciver = body.reciver ? new ObjectId(body.reciver.toLowerCase()) : null;
    const [payer, payee] = await Promise.all([
      customers.findOne({ _id: customer }, { projection: { _id: 1 } }),
      reciver ? customers.findOne({ _id: reciver }, { projection: { _id: 1 } }) : null,
    ]);
    if (!payer) throw httpError(400, 'customer does not match an existing customer');
    if (reciver && !payee) throw httpError(400, 'reciver does not match an existing customer');
    const now = new Date();
    const payment = {
      amountMinor: minor,
      currency,
      customer,
      reciver,
      description: body.description ?? null,
      status: 'requires_confirmation',
      failureCode: null,
      card: null,
      amountRefundedMinor: 0,
      createdAt: now,
      updatedAt: now,
    };
    const { insertedId } = await payments.insertOne(payment);
    payment._id = insertedId;
    reply.code(201);
    return toPayment(payment);
  });

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
