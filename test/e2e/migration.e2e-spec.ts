import { Logger } from '@nestjs/common';
import * as bcrypt from 'bcrypt';
import { Types } from 'mongoose';
import { spawn } from 'node:child_process';
import { EventObjectsMigration } from '../../src/migrations/event-objects.migration';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChannelOwnersMigration, describeChannelOwners } from '../../src/migrations/channel-owners.migration';
import {
  describeMigration,
  MIGRATED_ACCOUNT_NAME,
  SingleTenantMigration,
} from '../../src/migrations/single-tenant.migration';
import { TENANT_COLLECTIONS } from '../../src/migrations/tenant-collections';
import { UnmigratedDataCheck } from '../../src/migrations/unmigrated-data.check';
import { RETIRED_WEBHOOK_CLAIMS, WebhookClaimsMigration } from '../../src/migrations/webhook-claims.migration';
import { API_NAMES } from '../../src/tenancy/api-names';
import { storedContentProject } from '../fixtures/stored-content-project';
import { createFirstAdmin, login, tokenAccount, TestUser } from '../support/auth';
import { expectError } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';
import { testDatabaseUri } from '../support/test-database';

const PASSWORD = 'single tenant password';
const NO_ACCOUNT = 'Create or join an account first';

interface LegacyUser {
  _id: Types.ObjectId;
  email: string;
  role: 'developer' | 'manager' | 'admin';
}

/** What a single-tenant build stored: no account anywhere, no projectId on any record. */
async function seedSingleTenantData(t: TestApp, tag: string) {
  const passwordHash = await bcrypt.hash(PASSWORD, 4);
  const at = (day: number) => new Date(Date.UTC(2024, 0, day));
  const user = (role: LegacyUser['role'], name: string, day: number) => ({
    _id: new Types.ObjectId(),
    firstName: name,
    lastName: 'Legacy',
    userName: '',
    email: `${name.toLowerCase()}.${tag}@example.com`,
    passwordHash,
    role,
    status: 'active',
    phoneNumber: null,
    avatar: null,
    address: null,
    defaultCompany: null,
    createdAt: at(day),
    updatedAt: at(day),
  });
  // The earliest user is a developer: the owner must be the earliest *admin*.
  const users = [
    user('developer', 'Dev', 1),
    user('admin', 'Ada', 2),
    user('admin', 'Alan', 3),
    user('manager', 'Mia', 4),
  ];
  // Written before the field existed: no defaultCompany at all.
  delete (users[3] as Partial<(typeof users)[number]>).defaultCompany;
  await t.db.collection('users').insertMany(users);

  const stamp = { createdAt: at(10), updatedAt: at(10) };
  const clientIds = [new Types.ObjectId(), new Types.ObjectId()];
  await t.db.collection('clients').insertMany(
    clientIds.map((_id, i) => ({
      _id,
      name: `Legacy client ${i}`,
      email: 'legacy@example.com',
      phone: null,
      projectIds: [],
      deletedAt: null,
      ...stamp,
    })),
  );
  const channelId = new Types.ObjectId();
  await t.db.collection('channels').insertOne({
    _id: channelId,
    clientId: clientIds[0],
    name: 'Ada Sings',
    username: `ada_${tag}`,
    usernameKey: `ada_${tag}`,
    avatarUrl: 'https://cdn.example.com/ada.png',
    role: 'creator',
    projectIds: [],
    membershipsEnabled: false,
    membershipTiers: [],
    monetizationEnabled: false,
    revenue: 0,
    ...stamp,
  });
  const contentProjectId = new Types.ObjectId();
  await t.db
    .collection('projects')
    .insertOne(storedContentProject({ _id: contentProjectId, channelId, primaryTitle: 'Blue Hours', ...stamp }));
  const collectionId = new Types.ObjectId();
  await t.db.collection('collections').insertOne({
    _id: collectionId,
    name: 'Starter',
    description: null,
    numberOfClients: null,
    numberOfUsers: null,
    usage: null,
    pricing: 10,
    endpoints: [],
    deletedAt: null,
    ...stamp,
  });
  const customerIds = [new Types.ObjectId(), new Types.ObjectId()];
  await t.db.collection('customers').insertMany(
    customerIds.map((_id, i) => ({
      _id,
      email: `buyer${i}.${tag}@example.com`,
      firstName: 'Buyer',
      lastName: String(i),
      country: null,
      address: {},
      phone: null,
      SocialNumber: null,
      liveMode: false,
      verified: false,
      Taxable: false,
      balance: 0,
      defaultMethod: null,
      ...stamp,
    })),
  );
  const cardId = new Types.ObjectId();
  await t.db.collection('cards').insertOne({
    _id: cardId,
    customer: String(customerIds[0]),
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    last4: '4242',
    expMonth: 12,
    expYear: 2040,
    fingerprint: `legacy-${tag}`,
    failureCode: null,
    ...stamp,
  });
  const paymentId = new Types.ObjectId();
  await t.db.collection('payments').insertOne({
    _id: paymentId,
    amountMinor: 1250,
    currency: 'usd',
    customer: customerIds[0],
    reciver: null,
    description: 'Legacy payment',
    status: 'succeeded',
    failureCode: null,
    card: cardId,
    amountRefundedMinor: 0,
    ...stamp,
  });
  await t.db.collection('idempotency_keys').insertOne({
    scope: `user:${users[1]._id}:POST /v1/customers`,
    key: `legacy-${tag}`,
    fingerprint: 'f',
    state: 'completed',
    statusCode: 201,
    responseBody: '{}',
    ...stamp,
  });
  // A payment lease: not a tenant record; the migration leaves it alone.
  await t.db.collection('payment_locks').insertOne({ _id: `legacy-lock-${tag}` as never, expiresAt: at(11) });

  return {
    users: users as LegacyUser[],
    developer: users[0] as LegacyUser,
    owner: users[1] as LegacyUser,
    otherAdmin: users[2] as LegacyUser,
    manager: users[3] as LegacyUser,
    clientIds: clientIds.map(String),
    channelId: String(channelId),
    contentProjectId: String(contentProjectId),
    collectionId: String(collectionId),
    customerIds: customerIds.map(String),
    cardId: String(cardId),
    paymentId: String(paymentId),
  };
}

/** The single-tenant build's indexes, as an upgraded database still has them. */
async function createLegacyIndexes(t: TestApp): Promise<void> {
  await t.db.collection('channels').createIndex({ usernameKey: 1 }, { unique: true });
  await t.db.collection('idempotency_keys').createIndex({ scope: 1, key: 1 }, { unique: true });
  await t.db.collection('clients').createIndex({ deletedAt: 1, _id: -1 });
}

describe('migration of single-tenant data (npm run migrate)', () => {
  let t: TestApp;
  let migration: SingleTenantMigration;
  let seeded: Awaited<ReturnType<typeof seedSingleTenantData>>;
  /** Signed up with the multi-tenant build before the migration ran. */
  let newcomer: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    migration = t.app.get(SingleTenantMigration);
    newcomer = await createFirstAdmin(t.http);
  });
  afterAll(() => t.close());

  it('finds nothing to do in a database without single-tenant data, and creates no account', async () => {
    const report = await migration.run();
    expect(report).toMatchObject({ changed: false, accountId: null, accountCreated: false, membersAdded: 0 });
    expect(describeMigration(report)).toEqual([
      'Nothing to migrate: no records or users of a single-tenant build were found.',
    ]);
    expect(await t.db.collection('accounts').countDocuments({ migrated: true })).toBe(0);
    expect(await t.app.get(UnmigratedDataCheck).check()).toBeNull();
  });

  it('enables the events and webhooks APIs on projects made before them, once: a later choice to disable them stands', async () => {
    const projects = t.db.collection('platform_projects');
    const earlier = ['customers', 'cards', 'payments', 'channels', 'projects', 'collections', 'clients'];
    await projects.updateOne(
      { _id: new Types.ObjectId(newcomer.projectId) },
      { $set: { enabledApis: earlier }, $unset: { eventApisOffered: 1 } },
    );
    const report = await migration.run();
    expect(report.eventApisEnabled).toBe(1);
    expect(describeMigration(report)[0]).toBe(
      'The events and webhooks APIs enabled on 1 platform project(s) made before them.',
    );
    expect((await projects.findOne({ _id: new Types.ObjectId(newcomer.projectId) }))?.enabledApis).toEqual([
      ...earlier,
      'events',
      'webhooks',
    ]);
    expect((await t.http.get('/v1/events', { token: newcomer.token })).status).toBe(200);

    await projects.updateOne({ _id: new Types.ObjectId(newcomer.projectId) }, { $set: { enabledApis: earlier } });
    expect((await migration.run()).eventApisEnabled).toBe(0);
    expect((await projects.findOne({ _id: new Types.ObjectId(newcomer.projectId) }))?.enabledApis).toEqual(earlier);
    await projects.updateOne(
      { _id: new Types.ObjectId(newcomer.projectId) },
      { $set: { enabledApis: [...earlier, 'events', 'webhooks'] } },
    );
  });

  it('names the object of events recorded before events named it, once', async () => {
    const events = t.db.collection('events');
    const objectId = new Types.ObjectId().toHexString();
    const _id = `evt_${new Types.ObjectId().toHexString()}`;
    // As an earlier build stored it: no objectId beside the body.
    await events.insertOne({
      _id: _id as unknown as Types.ObjectId,
      projectId: new Types.ObjectId(newcomer.projectId),
      type: 'customer.created',
      createdAt: new Date(),
      body: JSON.stringify({ id: _id, type: 'customer.created', data: { object: { id: objectId } } }),
    });
    const naming = t.app.get(EventObjectsMigration);
    try {
      expect(await naming.run()).toBe('Events given the id of the object they are about: 1.');
      expect((await events.findOne({ _id: _id as unknown as Types.ObjectId }))?.objectId).toBe(objectId);
      expect(await naming.run()).toBe('Every event already names the object it is about.');
    } finally {
      await events.deleteOne({ _id: _id as unknown as Types.ObjectId });
    }
  });

  it('drops the collection where earlier builds kept webhook attempt claims, once, and leaves the deliveries they claimed to the dispatcher', async () => {
    const projectId = new Types.ObjectId(newcomer.projectId);
    const deliveryId = new Types.ObjectId();
    const endpointId = new Types.ObjectId();
    const claimedUntil = new Date(Date.now() + 3_600_000);
    // As an earlier build left an attempt under way: its claim document, and the delivery moved to it (no token).
    await t.db
      .collection(RETIRED_WEBHOOK_CLAIMS)
      .insertOne({ projectId, deliveryId, endpointId, attempt: 1, claimedUntil, createdAt: new Date() });
    const delivery = {
      _id: deliveryId,
      projectId,
      endpointId,
      eventId: 'evt_claimed_before',
      eventType: 'customer.created',
      payload: '{}',
      status: 'pending',
      attempt: 1,
      nextAttemptAt: claimedUntil,
      claimedUntil,
      claimedAt: new Date(),
      attempts: [],
      firstAttemptAt: new Date(),
      createdAt: new Date(),
      updatedAt: new Date(),
    };
    await t.db.collection('webhook_deliveries').insertOne(delivery);
    const claims = t.app.get(WebhookClaimsMigration);
    const collections = async () => (await t.db.db!.listCollections().toArray()).map((collection) => collection.name);
    try {
      expect(await claims.run()).toBe(
        'Webhook attempt claims are kept in their delivery: webhook_attempt_claims dropped.',
      );
      expect(await collections()).not.toContain(RETIRED_WEBHOOK_CLAIMS);
      expect(await claims.run()).toBe(
        'Webhook attempt claims are kept in their delivery: no webhook_attempt_claims left to drop.',
      );
      // Its sender may still be at work: the claim stands, for the dispatcher to take over once it has watched it lapse.
      expect(await t.db.collection('webhook_deliveries').findOne({ _id: deliveryId })).toEqual(delivery);
    } finally {
      await t.db.collection('webhook_deliveries').deleteOne({ _id: deliveryId });
    }
  });

  it("converts a card's customer stored as a hex string (the single-tenant type) to an ObjectId, without making an account", async () => {
    const customer = await t.http.post('/v1/customers', { email: 'early@example.com' }, { token: newcomer.token });
    const card = await t.http.post(
      '/v1/cards',
      { customer: customer.body.data.id, cardNumber: '4242424242424242', expMonth: '12', expYear: '2040', cvc: '123' },
      { token: newcomer.token },
    );
    expect(card.status).toBe(201);
    const cardId = new Types.ObjectId(card.body.data.id as string);
    await t.db.collection('cards').updateOne({ _id: cardId }, { $set: { customer: customer.body.data.id } });
    const list = () => t.http.get(`/v1/cards?customer=${customer.body.data.id}`, { token: newcomer.token });
    expect((await list()).body.data).toEqual([]);

    const report = await migration.run();
    expect(report).toMatchObject({ changed: true, accountId: null, accountCreated: false, cardCustomersConverted: 1 });
    expect(describeMigration(report)).toEqual([
      'No records or users of a single-tenant build: no account was made.',
      'Cards whose customer id was a string, now an ObjectId: 1.',
    ]);
    expect(typeof (await t.db.collection('cards').findOne({ _id: cardId }))!.customer).toBe('object');
    expect((await list()).body.data.map((listed: { id: string }) => listed.id)).toEqual([String(cardId)]);
    expect(await t.db.collection('accounts').countDocuments({ migrated: true })).toBe(0);
    expect((await migration.run()).changed).toBe(false);
  });

  describe('before the migration', () => {
    beforeAll(async () => {
      seeded = await seedSingleTenantData(t, 'one');
      await createLegacyIndexes(t);
    });

    it('the start-up check names every collection that holds records without a project, and says to run npm run migrate', async () => {
      const check = t.app.get(UnmigratedDataCheck);
      expect((await check.findUnmigrated()).sort()).toEqual([...TENANT_COLLECTIONS].sort());
      expect(await check.check()).toMatch(/no platform project.*customers.*Run `npm run migrate`/);
    });

    it('the service logs that warning when it starts on such a database', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn');
      try {
        const second = await createTestApp({ MONGODB_URI: testDatabaseUri(t.db.name) });
        await second.app.close(); // not second.close(): that would drop the shared database
        const warnings = warn.mock.calls.map((call) => String(call[0]));
        expect(warnings).toContainEqual(expect.stringContaining('Run `npm run migrate`'));
      } finally {
        warn.mockRestore();
      }
    });

    it('the records are invisible and their users belong to no account', async () => {
      const session = await login(t.http, seeded.owner.email, PASSWORD);
      expect(session.body.data.account).toBeNull();
      expectError(await t.http.get('/clients', { token: session.body.accessToken }), 403, NO_ACCOUNT);
      expect((await t.http.get('/clients', { token: newcomer.token })).body).toEqual([]);
      expect(
        (await t.http.get('/v1/customers', { token: newcomer.token })).body.data.map(
          (customer: { email: string }) => customer.email,
        ),
      ).toEqual(['early@example.com']);
    });
  });

  describe('the first run', () => {
    let report: Awaited<ReturnType<SingleTenantMigration['run']>>;
    let accountId: string;
    let projectId: string;

    beforeAll(async () => {
      report = await migration.run();
      accountId = report.accountId!;
      projectId = report.defaultProjectId!;
    });

    it('reports what it did', () => {
      expect(report).toMatchObject({
        changed: true,
        accountCreated: true,
        ownerId: String(seeded.owner._id),
        defaultProjectCreated: true,
        membersAdded: 4,
        defaultCompaniesSet: 4,
        recordsMoved: {
          customers: 2,
          cards: 1,
          payments: 1,
          idempotency_keys: 1,
          channels: 1,
          projects: 1,
          collections: 1,
          clients: 2,
        },
        cardCustomersConverted: 1,
      });
      expect(report.legacyIndexesDropped.sort()).toEqual([
        'channels.usernameKey_1',
        'clients.deletedAt_1__id_-1',
        'idempotency_keys.scope_1_key_1',
      ]);
      const lines = describeMigration(report).join('\n');
      expect(lines).toContain(`Created "${MIGRATED_ACCOUNT_NAME}" ${accountId}, owned by user ${seeded.owner._id}`);
      expect(lines).toContain(
        'customers 2, cards 1, payments 1, idempotency_keys 1, channels 1, projects 1, collections 1, clients 2',
      );
      expect(lines).toContain('Cards whose customer id was a string, now an ObjectId: 1.');
    });

    it('creates one company account owned by the earliest admin, with its default project holding every API', async () => {
      const account = await t.db.collection('accounts').findOne({ migrated: true });
      expect(account).toMatchObject({
        name: MIGRATED_ACCOUNT_NAME,
        type: 'company',
        migrated: true,
        ownerId: seeded.owner._id,
      });
      expect(String(account!._id)).toBe(accountId);
      expect(String(account!.defaultProjectId)).toBe(projectId);
      const project = await t.db.collection('platform_projects').findOne({ accountId: account!._id });
      expect(Object.keys(project!).sort()).toEqual([
        '_id',
        'accountId',
        'createdAt',
        'enabledApis',
        'eventApisOffered',
        'isDefault',
        'name',
        'updatedAt',
      ]);
      expect(project).toMatchObject({ name: 'Default project', isDefault: true });
      expect(String(project!._id)).toBe(projectId);
      expect([...project!.enabledApis].sort()).toEqual([...API_NAMES].sort());
    });

    it('makes every user of the single-tenant build a member with their old role; the owner flag on the owner only', async () => {
      const memberships = await t.db
        .collection('memberships')
        .find({ accountId: new Types.ObjectId(accountId) })
        .toArray();
      const byUser = new Map(memberships.map((membership) => [String(membership.userId), membership]));
      expect(byUser.size).toBe(4);
      for (const user of seeded.users) {
        expect(byUser.get(String(user._id))).toMatchObject({ role: user.role, owner: user === seeded.owner });
        expect((await t.db.collection('users').findOne({ _id: user._id }))!.defaultCompany).toBe(accountId);
      }
      // The user who signed up with the multi-tenant build keeps only their own account.
      expect(byUser.has(newcomer.id)).toBe(false);
      expect((await t.db.collection('users').findOne({ _id: new Types.ObjectId(newcomer.id) }))!.defaultCompany).toBe(
        newcomer.accountId,
      );
    });

    it('gives every record the default project, leaves payment leases alone, and the start-up check is quiet', async () => {
      for (const name of TENANT_COLLECTIONS) {
        expect(await t.db.collection(name).countDocuments({ projectId: { $exists: false } })).toBe(0);
        expect(
          await t.db.collection(name).countDocuments({ projectId: new Types.ObjectId(projectId) }),
        ).toBeGreaterThan(0);
      }
      expect(await t.db.collection('payment_locks').findOne({ _id: 'legacy-lock-one' as never })).not.toHaveProperty(
        'projectId',
      );
      expect(await t.app.get(UnmigratedDataCheck).check()).toBeNull();
    });

    it('the earliest admin logs in as owner and finds every record through the API', async () => {
      const session = await login(t.http, seeded.owner.email, PASSWORD);
      const token = session.body.accessToken as string;
      expect(tokenAccount(token)).toBe(accountId);
      expect(session.body.data.user.role).toBe('admin');
      expect(session.body.data.account).toMatchObject({
        id: accountId,
        name: MIGRATED_ACCOUNT_NAME,
        type: 'company',
        owner: true,
        defaultProjectId: projectId,
      });

      const customers = await t.http.get('/v1/customers', { token });
      expect(customers.body.data.map((customer: { id: string }) => customer.id).sort()).toEqual(
        [...seeded.customerIds].sort(),
      );
      const cards = await t.http.get(`/v1/cards?customer=${seeded.customerIds[0]}`, { token });
      expect(cards.body.data.map((card: { id: string }) => card.id)).toEqual([seeded.cardId]);
      const payment = await t.http.get(`/api/v1/payments/${seeded.paymentId}`, { token });
      expect(payment.status).toBe(200);
      expect(payment.body).toMatchObject({ id: seeded.paymentId, amount: 12.5, status: 'succeeded' });
      const clients = await t.http.get('/clients', { token });
      expect(clients.body.map((client: { _id: string }) => client._id).sort()).toEqual([...seeded.clientIds].sort());
      expect((await t.http.get(`/collections/${seeded.collectionId}`, { token })).status).toBe(200);
      expect((await t.http.get(`/channels/${seeded.channelId}`, { token })).status).toBe(200);
      const contentProjects = await t.http.get(`/channels/${seeded.channelId}/projects`, { token });
      expect(contentProjects.status).toBe(200);
      expect(JSON.stringify(contentProjects.body)).toContain(seeded.contentProjectId);

      const members = await t.http.get(`/api/v1/accounts/${accountId}/members`, { token });
      expect(
        members.body.data.map((member: { email: string; role: string; owner: boolean }) => [
          member.email,
          member.role,
          member.owner,
        ]),
      ).toEqual(expect.arrayContaining(seeded.users.map((user) => [user.email, user.role, user === seeded.owner])));
    });

    it('a migrated developer sees the records too, with developer rights', async () => {
      const session = await login(t.http, seeded.developer.email, PASSWORD);
      const token = session.body.accessToken as string;
      expect(session.body.data.user.role).toBe('developer');
      expect(session.body.data.account).toMatchObject({ id: accountId, role: 'developer', owner: false });
      expect((await t.http.get('/v1/customers', { token })).body.data).toHaveLength(2);
      expect((await t.http.get('/clients', { token })).body).toHaveLength(2);
      expectError(await t.http.delete(`/clients/${seeded.clientIds[1]}`, { token }), 403);
      expectError(await t.http.delete(`/v1/customers/${seeded.customerIds[1]}`, { token }), 403);
    });

    it('another account still sees none of it, and channel usernames are unique per project again', async () => {
      expect((await t.http.get('/clients', { token: newcomer.token })).body).toEqual([]);
      expect(
        (await t.http.get('/v1/customers', { token: newcomer.token })).body.data.map(
          (customer: { email: string }) => customer.email,
        ),
      ).toEqual(['early@example.com']);
      // The single-tenant unique index on usernameKey would have refused this: same username, another project.
      const client = await t.http.post(
        '/clients',
        { name: 'Newcomer Media', email: 'n@example.com' },
        { token: newcomer.token },
      );
      const channel = await t.http.post(
        '/channels',
        {
          clientId: client.body.id,
          name: 'Ada Too',
          username: 'ada_one',
          avatarUrl: 'https://cdn.example.com/a.png',
          role: 'creator',
        },
        { token: newcomer.token },
      );
      expect(channel.status).toBe(200);
    });
  });

  describe('channel owners (collaborators came after the channels)', () => {
    it("makes the owner of each channel's account its owner, once, leaving channels that have collaborators alone", async () => {
      const account = await t.db.collection('accounts').findOne({ migrated: true });
      const owners = t.app.get(ChannelOwnersMigration);
      // A channel of today's build, stored before collaborators existed: no collaborator at all.
      const todays = new Types.ObjectId();
      const newcomerChannel = await t.db
        .collection('channels')
        .findOne({ projectId: new Types.ObjectId(newcomer.projectId) });
      await t.db
        .collection('channels')
        .insertOne({ ...newcomerChannel, _id: todays, username: 'todays', usernameKey: 'todays' });
      const staffedBefore = await t.db.collection('channel_collaborators').find({}).sort({ _id: 1 }).toArray();

      expect(await owners.run()).toBe(2);
      const ownerOf = async (channel: Types.ObjectId | string) =>
        (
          await t.db
            .collection('channel_collaborators')
            .find({ channelId: new Types.ObjectId(String(channel)) })
            .toArray()
        ).map((c) => [String(c.userId), c.role]);
      expect(await ownerOf(seeded.channelId)).toEqual([[String(account!.ownerId), 'owner']]);
      expect(await ownerOf(todays)).toEqual([[newcomer.id, 'owner']]);
      // The channel made through the API had its creator as owner already: untouched.
      expect(await ownerOf(newcomerChannel!._id)).toEqual([[newcomer.id, 'owner']]);
      expect(await t.db.collection('channel_collaborators').countDocuments()).toBe(staffedBefore.length + 2);

      const after = await t.db.collection('channel_collaborators').find({}).sort({ _id: 1 }).toArray();
      expect(await owners.run()).toBe(0);
      expect(describeChannelOwners(0)).toEqual(['Every channel has its collaborators already.']);
      expect(await t.db.collection('channel_collaborators').find({}).sort({ _id: 1 }).toArray()).toEqual(after);

      // The owner writes the channel's projects; a migrated developer, who holds no channel role, does not.
      const ownerToken = (await login(t.http, seeded.owner.email, PASSWORD)).body.accessToken as string;
      const created = await t.http.post(
        `/channels/${seeded.channelId}/projects`,
        { primaryTitle: 'After', projectTypeId: 'album' },
        { token: ownerToken },
      );
      expect(created.status).toBe(201);
      const devToken = (await login(t.http, seeded.developer.email, PASSWORD)).body.accessToken as string;
      expectError(
        await t.http.put(`/projects/${seeded.contentProjectId}`, { primaryTitle: 'Mine' }, { token: devToken }),
        403,
        'This needs the channel role editor or above, or the platform role admin',
      );
    });
  });

  describe('later runs', () => {
    const snapshot = async () => ({
      accounts: (await t.db.collection('accounts').find({}).sort({ _id: 1 }).toArray()).map((account) =>
        String(account._id),
      ),
      projects: (await t.db.collection('platform_projects').find({}).sort({ _id: 1 }).toArray()).map((project) =>
        String(project._id),
      ),
      memberships: (await t.db.collection('memberships').find({}).sort({ _id: 1 }).toArray()).map(
        (m) => `${m._id}:${m.userId}:${m.role}:${m.owner}`,
      ),
      users: (await t.db.collection('users').find({}).sort({ _id: 1 }).toArray()).map(
        (user) => `${user._id}:${user.defaultCompany}`,
      ),
      records: await Promise.all(
        TENANT_COLLECTIONS.map(async (name) =>
          (await t.db.collection(name).find({}).sort({ _id: 1 }).toArray()).map((doc) => `${doc._id}:${doc.projectId}`),
        ),
      ),
    });

    it('a second run changes nothing and says so', async () => {
      const before = await snapshot();
      const first = await t.db.collection('accounts').findOne({ migrated: true });
      const report = await migration.run();
      expect(report).toMatchObject({
        changed: false,
        accountId: String(first!._id),
        accountCreated: false,
        defaultProjectCreated: false,
        membersAdded: 0,
        defaultCompaniesSet: 0,
        cardCustomersConverted: 0,
        legacyIndexesDropped: [],
      });
      expect(Object.values(report.recordsMoved)).toEqual(TENANT_COLLECTIONS.map(() => 0));
      expect(describeMigration(report)).toEqual([
        `Nothing to migrate: every record already belongs to a platform project ("${MIGRATED_ACCOUNT_NAME}" ${first!._id}).`,
      ]);
      expect(await snapshot()).toEqual(before);
      expect(await t.db.collection('accounts').countDocuments({ migrated: true })).toBe(1);
    });

    it('a migrated member who left is not brought back by a later run', async () => {
      const account = await t.db.collection('accounts').findOne({ migrated: true });
      const session = await login(t.http, seeded.manager.email, PASSWORD);
      const left = await t.http.delete(`/api/v1/accounts/${account!._id}/members/${seeded.manager._id}`, {
        token: session.body.accessToken,
      });
      expect(left.status).toBe(200);
      const report = await migration.run();
      expect(report.changed).toBe(false);
      expect(await t.db.collection('memberships').countDocuments({ userId: seeded.manager._id })).toBe(0);
    });

    it('records written without a project after the migration (an old instance still running) are moved by the next run', async () => {
      const account = await t.db.collection('accounts').findOne({ migrated: true });
      const { insertedId } = await t.db
        .collection('clients')
        .insertOne({ name: 'Straggler', email: 's@example.com', phone: null, projectIds: [], deletedAt: null });
      expect(await t.app.get(UnmigratedDataCheck).findUnmigrated()).toEqual(['clients']);
      const report = await migration.run();
      expect(report).toMatchObject({ changed: true, accountCreated: false, membersAdded: 0 });
      expect(report.recordsMoved.clients).toBe(1);
      expect(String((await t.db.collection('clients').findOne({ _id: insertedId }))!.projectId)).toBe(
        String(account!.defaultProjectId),
      );
    });

    it('finishes a run that stopped halfway: the missing default project, membership and defaultCompany are made', async () => {
      const account = await t.db.collection('accounts').findOne({ migrated: true });
      // As if the run had stopped after creating the account, before the project and the last member.
      await t.db.collection('platform_projects').deleteOne({ _id: account!.defaultProjectId });
      await t.db.collection('memberships').deleteOne({ accountId: account!._id, userId: seeded.otherAdmin._id });
      await t.db.collection('users').updateOne({ _id: seeded.otherAdmin._id }, { $set: { defaultCompany: null } });
      const report = await migration.run();
      expect(report).toMatchObject({
        changed: true,
        accountCreated: false,
        defaultProjectCreated: true,
        membersAdded: 1,
        defaultCompaniesSet: 1,
      });
      expect(
        await t.db.collection('platform_projects').countDocuments({ _id: account!.defaultProjectId, isDefault: true }),
      ).toBe(1);
      expect(
        await t.db.collection('memberships').findOne({ accountId: account!._id, userId: seeded.otherAdmin._id }),
      ).toMatchObject({ role: 'admin', owner: false });
      expect(await t.db.collection('accounts').countDocuments({ migrated: true })).toBe(1);
      expect((await migration.run()).changed).toBe(false);
    });
  });
});

describe('npm run migrate (the built command)', () => {
  const command = join(__dirname, '..', '..', 'dist', 'migrations', 'migrate.js');

  function runCommand(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
    if (!existsSync(command)) throw new Error(`${command} is missing: run "npm run build" first (npm test does it)`);
    return new Promise((done, fail) => {
      const child = spawn(process.execPath, [command], {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', fail);
      child.on('exit', (code) => done({ code, output }));
    });
  }

  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('migrates the database MONGODB_URI names, prints the counts, and a second run says there is nothing to do', async () => {
    const seeded = await seedSingleTenantData(t, 'cli');
    // Development needs no secrets; production needs the service's own environment (JWT_SECRET and the like).
    const env = { NODE_ENV: 'development', MONGODB_URI: testDatabaseUri(t.db.name) };
    const first = await runCommand(env);
    expect(first.output).toContain(`Created "${MIGRATED_ACCOUNT_NAME}"`);
    expect(first.code).toBe(0);
    expect(first.output).toContain(`owned by user ${seeded.owner._id}`);
    expect(first.output).toContain('customers 2, cards 1, payments 1');
    expect(first.output).toContain('Cards whose customer id was a string, now an ObjectId: 1.');
    expect(await t.db.collection('customers').countDocuments({ projectId: { $exists: false } })).toBe(0);
    expect(first.output).toContain("Channels given their account's owner as their owner: 1.");
    // Users from before email verification count as verified, so none is kept from inviting or paying.
    expect(first.output).toMatch(/Users made before email verification, now counted as verified: [1-9]\d*\./);
    expect(await t.db.collection('users').countDocuments({ emailVerifiedAt: { $not: { $type: 'date' } } })).toBe(0);

    const second = await runCommand(env);
    expect(second.code).toBe(0);
    expect(second.output).toContain('Nothing to migrate');
    expect(second.output).toContain('Every channel has its collaborators already.');
    expect(second.output).toContain('Every user already has an email verification state.');
    expect(second.output).toContain('Every event already names the object it is about.');
    expect(second.output).toContain('no webhook_attempt_claims left to drop');
    expect(await t.db.collection('accounts').countDocuments({ migrated: true })).toBe(1);
  });

  it('without MONGODB_URI uses the embedded database under DATA_DIR', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'migrate-embedded-'));
    try {
      const run = await runCommand({
        NODE_ENV: 'development',
        DATA_DIR: dataDir,
        ...(process.env.FERRETDB_BIN ? { FERRETDB_BIN: process.env.FERRETDB_BIN } : {}),
      });
      expect(run.code).toBe(0);
      expect(run.output).toMatch(/MONGODB_URI is not set: using the embedded \w+ database under/);
      expect(run.output).toContain('Nothing to migrate');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('fails with a message and exit code 1 when the environment is invalid', async () => {
    const run = await runCommand({ MONGODB_URI: 'postgres://nowhere' });
    expect(run.code).toBe(1);
    expect(run.output).toContain('MONGODB_URI must start with mongodb://');
  });
});
