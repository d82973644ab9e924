'use strict';
/** The state every scenario needs, made the same on both sides. */
const crypto = require('node:crypto');
const { ObjectId } = require('mongodb');
const { settings } = require('./settings');
const { call, expectStatus } = require('./runner');
const { storedContentProject } = require('../test/fixtures/stored-content-project');

const PASSWORD = 'bench password 123';
const COLLECTION_BODY = {
  name: 'Bench post',
  description: 'Created by the benchmark',
  numberOfClients: 3,
  numberOfUsers: 120,
  usage: 'benchmark',
  pricing: 19.99,
  endpoints: [1, 2, 3],
};

/**
 * What every scenario needs, made through the server's own HTTP API where it has the route: the
 * admin (signup, login), a client and a channel, 50 collections, customers, and the members, the
 * saved card and the API key in the way each side can (see `seedMembers`, `seedCard`, `seedApiKey`).
 */
async function seed(server, db) {
  const tag = crypto.randomBytes(4).toString('hex');
  const state = { tag, server, db };
  const admin = { email: `bench.admin.${tag}@example.com`, password: PASSWORD };
  const signup = await expectStatus(
    server,
    'signup',
    201,
    call(server, 'POST', '/api/v1/singup', {
      body: { firstName: 'Bench', lastName: 'Admin', role: 'admin', accountName: 'Bench account', ...admin },
    }),
  );
  // Unverified users can neither invite nor pay: the admin counts as having followed the mailed link.
  await db.collection('users').updateOne({ email: admin.email }, { $set: { emailVerifiedAt: new Date() } });
  state.accountId = signup.json.data.account.id;
  state.projectId = signup.json.data.account.defaultProjectId;
  const login = await expectStatus(server, 'login', 200, call(server, 'POST', '/api/v1/login', { body: admin }));
  state.token = login.json.accessToken;
  state.logins = [admin];
  const token = state.token;

  await seedMembers(state);

  const client = await expectStatus(
    server,
    'POST /clients',
    201,
    call(server, 'POST', '/clients', { token, body: { name: 'Bench client', email: `client.${tag}@example.com` } }),
  );
  const channel = await expectStatus(
    server,
    'POST /channels',
    200,
    call(server, 'POST', '/channels', {
      token,
      body: {
        clientId: client.json.id,
        name: 'Bench channel',
        username: `bench-${tag}`,
        avatarUrl: 'https://cdn.example.com/avatars/bench.png',
        role: 'creator',
      },
    }),
  );
  state.channelId = channel.json.id;
  state.treeRootId = await seedTree(state);

  for (let i = 0; i < 50; i += 1) {
    await expectStatus(
      server,
      'POST /collections',
      201,
      call(server, 'POST', '/collections', {
        token,
        body: { ...COLLECTION_BODY, name: `Bench seed ${i}`, numberOfClients: i, endpoints: [i, i + 1] },
      }),
    );
  }

  state.customerIds = [];
  for (let i = 0; i < settings.customers; i += 1) {
    const customer = await expectStatus(
      server,
      'POST /v1/customers',
      201,
      call(server, 'POST', '/v1/customers', {
        token,
        body: {
          email: `customer.${i}.${tag}@example.com`,
          firstName: 'Bench',
          lastName: `Customer ${i}`,
          country: 'US',
          phone: '+1 415 555 0100',
        },
      }),
    );
    state.customerIds.push(customer.json.data.id);
  }
  // The newest customer pays (it leads the list page) and reads as the API key's customer.
  state.customerId = state.customerIds[state.customerIds.length - 1];
  await seedCard(state);
  await seedApiKey(state);
  await seedViewer(state);
  await seedSession(state);
  return state;
}

/**
 * A dashboard session of the admin, for the scenarios that send its `sid` cookie instead of the
 * bearer token. The service opens it through its sign-in route; the baseline has no sign-in, so the
 * harness stores a session as the service does (only the token's SHA-256, the admin's account).
 */
async function seedSession(state) {
  const { server, db, accountId } = state;
  const admin = state.logins[0];
  if (server.isService) {
    const signIn = await expectStatus(
      server,
      'POST /api/v1/sessions',
      201,
      call(server, 'POST', '/api/v1/sessions', { body: admin }),
    );
    // In production the cookie is `__Host-sid` (Secure), which the service reads over plain http too.
    const cookie = /(?:^|[\s,])((?:__Host-)?sid)=([^;,\s]+)/.exec(signIn.headers.get('set-cookie') ?? '');
    if (!cookie)
      throw new Error(`${server.name}: POST /api/v1/sessions set no sid cookie (${signIn.headers.get('set-cookie')})`);
    state.sessionCookie = `${cookie[1]}=${cookie[2]}`;
    return;
  }
  const token = crypto.randomBytes(32).toString('base64url');
  const user = await db.collection('users').findOne({ email: admin.email });
  const now = new Date();
  await db.collection('sessions').insertOne({
    tokenHash: crypto.createHash('sha256').update(token, 'utf8').digest('hex'),
    userId: user._id,
    accountId,
    accountRequiresMfa: false,
    createdAt: now,
    signedInAt: now,
    lastSeenAt: now,
    ip: '127.0.0.1',
    userAgent: null,
    assurance: 'password',
    mfaAt: null,
  });
  state.sessionCookie = `sid=${token}`;
}

/**
 * A tree of 1,000 content projects in the channel: a root, 9 children, 90 grandchildren and 900
 * below them (4 levels). Written straight into the database, the same documents on both sides (the
 * baseline has no project writes, and 1,000 creates would only make the seeding slow).
 */
async function seedTree(state) {
  const { db, projectId, channelId } = state;
  const now = new Date();
  const project = (parentId, title) =>
    storedContentProject({
      _id: new ObjectId(),
      projectId: new ObjectId(projectId),
      channelId: new ObjectId(channelId),
      parentId,
      primaryTitle: title,
      createdAt: now,
      updatedAt: now,
    });
  const root = project(null, 'Bench tree');
  const documents = [root];
  let level = [root];
  for (const width of [9, 10, 10]) {
    level = level.flatMap((parent) =>
      Array.from({ length: width }, (_, i) => project(parent._id, `${parent.primaryTitle} / ${i + 1}`)),
    );
    documents.push(...level);
  }
  await db.collection('projects').insertMany(documents);
  return String(root._id);
}

/**
 * Members of the admin's account. The service invites them and they sign up with the invitation;
 * the baseline has no invitation routes, so its members sign up (each then owns an account of
 * their own) and the harness adds their membership of the admin's account and makes it their
 * default, as joining by invitation does.
 */
async function seedMembers(state) {
  const { server, db, tag, token, accountId } = state;
  for (let i = 1; i < settings.members; i += 1) {
    const member = { email: `bench.member.${i}.${tag}@example.com`, password: PASSWORD };
    const person = { firstName: 'Bench', lastName: `Member ${i}`, ...member };
    if (server.isService) {
      const invitation = await expectStatus(
        server,
        'POST /api/v1/accounts/:id/invitations',
        201,
        call(server, 'POST', `/api/v1/accounts/${accountId}/invitations`, {
          token,
          body: { email: member.email, role: 'developer' },
        }),
      );
      await expectStatus(
        server,
        'signup by invitation',
        201,
        call(server, 'POST', '/api/v1/singup', { body: { ...person, invitationToken: invitation.json.data.token } }),
      );
    } else {
      const signup = await expectStatus(
        server,
        'signup',
        201,
        call(server, 'POST', '/api/v1/singup', { body: { ...person, role: 'developer' } }),
      );
      const userId = new ObjectId(signup.json.data.user.id);
      // The account the signup made goes again, so both databases hold the same accounts, projects
      // and memberships (FerretDB scans small collections: their sizes should match).
      const own = new ObjectId(signup.json.data.account.id);
      await db.collection('accounts').deleteOne({ _id: own });
      await db.collection('platform_projects').deleteMany({ accountId: own });
      await db.collection('memberships').deleteMany({ accountId: own });
      const now = new Date();
      await db.collection('memberships').insertOne({
        accountId: new ObjectId(accountId),
        userId,
        role: 'developer',
        owner: false,
        createdAt: now,
        updatedAt: now,
      });
      await db.collection('users').updateOne({ _id: userId }, { $set: { defaultCompany: accountId } });
    }
    // Each member counts as having followed the mailed link, as the admin does: the logins answer alike.
    await db.collection('users').updateOne({ email: member.email }, { $set: { emailVerifiedAt: new Date() } });
    state.logins.push(member);
  }
}

/**
 * The paying customer's default card, so `confirm: true` charges it (status `succeeded`). The
 * service takes a test card through POST /v1/cards; the baseline has no card routes, so the harness
 * stores the same card document (Visa 4242, keyed fingerprint) and sets it as the default.
 */
async function seedCard(state) {
  const { server, db, token, customerId, projectId } = state;
  const expYear = new Date().getUTCFullYear() + 5;
  if (server.isService) {
    await expectStatus(
      server,
      'POST /v1/cards',
      201,
      call(server, 'POST', '/v1/cards', {
        token,
        body: {
          customer: customerId,
          cardNumber: '4242424242424242',
          expMonth: '12',
          expYear: String(expYear),
          cvc: '123',
        },
      }),
    );
    return;
  }
  const now = new Date();
  const { insertedId } = await db.collection('cards').insertOne({
    customer: new ObjectId(customerId),
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    last4: '4242',
    expMonth: 12,
    expYear,
    fingerprint: crypto.createHmac('sha256', state.tag).update('4242424242424242').digest('hex'),
    failureCode: null,
    projectId: new ObjectId(projectId),
    createdAt: now,
    updatedAt: now,
  });
  await db
    .collection('customers')
    .updateOne({ _id: new ObjectId(customerId) }, { $set: { defaultMethod: String(insertedId) } });
}

/**
 * An API key of the default project. The service issues it through its route; the baseline has no
 * key routes, so the harness stores a key of the same form as the service stores one (its SHA-256,
 * its first 12 characters), every API enabled in the project.
 */
async function seedApiKey(state) {
  const { server, db, token, projectId, accountId } = state;
  if (server.isService) {
    const created = await expectStatus(
      server,
      'POST /api/v1/platform/projects/:id/keys',
      201,
      call(server, 'POST', `/api/v1/platform/projects/${projectId}/keys`, { token, body: { name: 'Bench key' } }),
    );
    state.apiKey = created.json.data.key;
    return;
  }
  const key = `sk_test_${crypto.randomBytes(32).toString('base64url')}`;
  const now = new Date();
  await db.collection('api_keys').insertOne({
    hash: crypto.createHash('sha256').update(key, 'utf8').digest('hex'),
    start: key.slice(0, 12),
    name: 'Bench key',
    accountId: new ObjectId(accountId),
    projectId: new ObjectId(projectId),
    scopes: null,
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    createdAt: now,
    updatedAt: now,
  });
  state.apiKey = key;
}

const VIEWED_PROJECT = {
  projectTypeId: 'show',
  primaryTitle: 'Bench show',
  description: 'Seen by viewers',
  topicIds: ['bench'],
  access: 'public',
  status: 'published',
};

/**
 * What the viewer read needs: a publishable key of the default project, and a published public
 * sub-project of a published public project (so the read walks one ancestor). The service makes
 * them through its routes; the baseline has none, so the harness stores them as the service does.
 */
async function seedViewer(state) {
  const { server, db, token, projectId, accountId, channelId } = state;
  if (server.isService) {
    const key = await expectStatus(
      server,
      'POST /api/v1/platform/projects/:id/keys (publishable)',
      201,
      call(server, 'POST', `/api/v1/platform/projects/${projectId}/keys`, {
        token,
        body: { name: 'Bench viewer app', kind: 'publishable' },
      }),
    );
    state.publishableKey = key.json.data.key;
    const parent = await expectStatus(
      server,
      'POST /channels/:id/projects',
      201,
      call(server, 'POST', `/channels/${channelId}/projects`, { token, body: VIEWED_PROJECT }),
    );
    const child = await expectStatus(
      server,
      'POST /channels/:id/projects (child)',
      201,
      call(server, 'POST', `/channels/${channelId}/projects`, {
        token,
        body: { ...VIEWED_PROJECT, parentId: parent.json._id },
      }),
    );
    state.viewedProjectId = child.json._id;
    return;
  }
  const key = `pk_test_${crypto.randomBytes(32).toString('base64url')}`;
  const now = new Date();
  await db.collection('api_keys').insertOne({
    hash: crypto.createHash('sha256').update(key, 'utf8').digest('hex'),
    start: key.slice(0, 12),
    name: 'Bench viewer app',
    kind: 'publishable',
    accountId: new ObjectId(accountId),
    projectId: new ObjectId(projectId),
    scopes: null,
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    createdAt: now,
    updatedAt: now,
  });
  state.publishableKey = key;
  const project = (parentId) =>
    storedContentProject({
      ...VIEWED_PROJECT,
      channelId: new ObjectId(channelId),
      parentId,
      projectId: new ObjectId(projectId),
      createdAt: now,
      updatedAt: now,
    });
  const parent = await db.collection('projects').insertOne(project(null));
  const child = await db.collection('projects').insertOne(project(parent.insertedId));
  // The service lists every project made through its routes in its channel's `projectIds`.
  await db
    .collection('channels')
    .updateOne(
      { _id: new ObjectId(channelId) },
      { $push: { projectIds: { $each: [parent.insertedId, child.insertedId] } } },
    );
  state.viewedProjectId = String(child.insertedId);
}

module.exports = { PASSWORD, COLLECTION_BODY, seed };
