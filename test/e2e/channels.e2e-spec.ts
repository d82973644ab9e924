import { Types } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { createFirstAdmin, createUser, TestUser } from '../support/auth';
import { expectError, expectNotFound, expectUnauthorized, expectValidationError } from '../support/expect-error';
import { createContentProject } from '../support/content';
import { createTestApp, TestApp } from '../support/test-app';

const UNKNOWN_ID = '6650c0ffee0000000000ffff';
const CHANNEL_FIELDS = [
  '_id',
  'avatarUrl',
  'clientId',
  'createdAt',
  'membershipTiers',
  'membershipsEnabled',
  'monetizationEnabled',
  'name',
  'projectIds',
  'revenue',
  'role',
  'updatedAt',
  'username',
];

const uniqueUsername = (prefix = 'chan') => `${prefix}_${randomBytes(5).toString('hex')}`;

describe('channels', () => {
  let t: TestApp;
  let admin: TestUser;
  let developer: TestUser;
  let clientId: string;

  const createClient = async (name = 'Acme Media'): Promise<string> => {
    const res = await t.http.post(
      '/clients',
      { name, email: `${uniqueUsername('c')}@example.com` },
      { token: admin.token },
    );
    if (res.status !== 201) throw new Error(`client create failed: ${res.status} ${res.text}`);
    return res.body.id;
  };

  const channelBody = (overrides: Record<string, unknown> = {}) => ({
    clientId,
    name: 'Ada Sings',
    username: uniqueUsername(),
    avatarUrl: 'https://cdn.example.com/avatars/ada.png',
    role: 'creator',
    ...overrides,
  });

  const createChannel = async (overrides: Record<string, unknown> = {}): Promise<string> => {
    const res = await t.http.post('/channels', channelBody(overrides), { token: developer.token });
    if (res.status !== 200) throw new Error(`channel create failed: ${res.status} ${res.text}`);
    return res.body.id;
  };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await createFirstAdmin(t.http);
    // Invited into the admin's account: both act in its default platform project.
    developer = await createUser(t.http, 'developer', admin.token);
    clientId = await createClient();
  });
  afterAll(() => t.close());

  describe('POST /channels', () => {
    it('creates a channel with 200 and the defaults', async () => {
      const body = channelBody();
      const res = await t.http.post('/channels', body, { token: developer.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Channel created', id: expect.stringMatching(/^[0-9a-f]{24}$/) });

      const read = await t.http.get(`/channels/${res.body.id}`, { token: developer.token });
      expect(read.status).toBe(200);
      expect(Object.keys(read.body).sort()).toEqual(CHANNEL_FIELDS);
      expect(read.body).toEqual({
        _id: res.body.id,
        clientId,
        name: body.name,
        username: body.username,
        avatarUrl: body.avatarUrl,
        role: 'creator',
        projectIds: [],
        membershipsEnabled: false,
        membershipTiers: [],
        monetizationEnabled: false,
        revenue: 0,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });

      const stored = await t.db.collection('channels').findOne({ _id: new Types.ObjectId(res.body.id) });
      expect(stored).toMatchObject({ username: body.username, clientId: new Types.ObjectId(clientId), revenue: 0 });
    });

    it('stores every optional field, tiers with and without description and features', async () => {
      const projectId = await createContentProject(t.http, developer.token);
      const tiers = [
        { name: 'Basic', price: 0 },
        { name: 'Supporter', description: 'Early access', price: 4.99, features: ['Early access', 'Badge'] },
      ];
      const id = await createChannel({
        role: 'moderator',
        projectIds: [projectId, projectId],
        membershipsEnabled: true,
        membershipTiers: tiers,
        monetizationEnabled: true,
        revenue: 1250.5,
      });
      const read = await t.http.get(`/channels/${id}`, { token: developer.token });
      expect(read.body).toMatchObject({
        role: 'moderator',
        projectIds: [projectId],
        membershipsEnabled: true,
        membershipTiers: tiers,
        monetizationEnabled: true,
        revenue: 1250.5,
      });
    });

    it('any authenticated role may create; no token is 401', async () => {
      const res = await t.http.post('/channels', channelBody(), { token: admin.token });
      expect(res.status).toBe(200);
      expectUnauthorized(await t.http.post('/channels', channelBody()));
      expectUnauthorized(await t.http.post('/channels', channelBody(), { token: 'not-a-token' }));
    });

    it.each(['clientId', 'name', 'username', 'avatarUrl', 'role'])('requires %s', async (field) => {
      const body: Record<string, unknown> = channelBody();
      delete body[field];
      expectValidationError(await t.http.post('/channels', body, { token: developer.token }), field);
    });

    it.each([
      ['clientId', 'not-an-id'],
      ['clientId', 42],
      ['name', ''],
      ['name', '   '],
      ['name', 7],
      ['username', ''],
      ['username', ' \t '],
      ['role', ''],
      ['role', '  '],
      ['avatarUrl', 'not a url'],
      ['avatarUrl', 'ftp://cdn.example.com/a.png'],
      ['avatarUrl', 'javascript:alert(1)'],
      ['projectIds', ['nope']],
      ['projectIds', 'not-a-list'],
      ['membershipsEnabled', 'yes'],
      ['membershipsEnabled', null],
      ['monetizationEnabled', 1],
      ['revenue', -0.01],
      ['revenue', 1_000_000_000_000.5],
      ['revenue', 1e300],
      ['revenue', '10'],
      ['revenue', null],
      ['membershipTiers', 'gold'],
      ['membershipTiers', null],
    ])('rejects %s = %j', async (field, value) => {
      const res = await t.http.post('/channels', channelBody({ [field]: value }), { token: developer.token });
      expectValidationError(res, field);
    });

    it.each([
      ['membershipTiers.0.name', { price: 1 }],
      ['membershipTiers.0.name', { name: '', price: 1 }],
      ['membershipTiers.0.name', { name: '  ', price: 1 }],
      ['membershipTiers.0.price', { name: 'Gold' }],
      ['membershipTiers.0.price', { name: 'Gold', price: -1 }],
      ['membershipTiers.0.price', { name: 'Gold', price: 1_000_000.01 }],
      ['membershipTiers.0.features', { name: 'Gold', price: 5, features: ['f'.repeat(201)] }],
      ['membershipTiers.0.price', { name: 'Gold', price: '5' }],
      ['membershipTiers.0.features', { name: 'Gold', price: 5, features: [1] }],
      ['membershipTiers.0.currency', { name: 'Gold', price: 5, currency: 'usd' }],
    ])('rejects a tier with a bad %s', async (field, tier) => {
      const res = await t.http.post('/channels', channelBody({ membershipTiers: [tier] }), { token: developer.token });
      expectValidationError(res, field);
    });

    it.each(['_id', 'usernameKey', 'createdAt', 'deletedAt'])('rejects the unknown field %s', async (field) => {
      const res = await t.http.post('/channels', channelBody({ [field]: 'x' }), { token: developer.token });
      expectValidationError(res, field);
      expect(await t.db.collection('channels').countDocuments({ [field]: 'x' })).toBe(0);
    });

    it('rejects a well-formed clientId that matches no client', async () => {
      const username = uniqueUsername();
      const res = await t.http.post('/channels', channelBody({ clientId: UNKNOWN_ID, username }), {
        token: developer.token,
      });
      expectError(res, 400, 'clientId does not match an existing client');
      expect(await t.db.collection('channels').countDocuments({ username })).toBe(0);
    });

    it('rejects a soft-deleted client', async () => {
      const softDeleted = await createClient('Gone Media');
      expect(
        (await t.http.patch(`/clients/${softDeleted}/soft-delete`, undefined, { token: admin.token })).status,
      ).toBe(200);
      const res = await t.http.post('/channels', channelBody({ clientId: softDeleted }), { token: developer.token });
      expectError(res, 400, 'clientId does not match an existing client');
    });

    it('a taken username is 409, also in another case', async () => {
      const username = uniqueUsername('Taken');
      await createChannel({ username });
      expectError(
        await t.http.post('/channels', channelBody({ username }), { token: developer.token }),
        409,
        'Channel username already taken',
      );
      const folded = await t.http.post('/channels', channelBody({ username: username.toLowerCase() }), {
        token: developer.token,
      });
      expectError(folded, 409, 'Channel username already taken');
      expect(await t.db.collection('channels').countDocuments({ usernameKey: username.toLowerCase() })).toBe(1);
    });

    it('20 concurrent creates with one username: exactly one wins, 19 get 409', async () => {
      const username = uniqueUsername('race');
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          t.http.post('/channels', channelBody({ username }), { token: developer.token }),
        ),
      );
      const statuses = responses.map((res) => res.status).sort();
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(19);
      responses
        .filter((res) => res.status === 409)
        .forEach((res) => expectError(res, 409, 'Channel username already taken'));
      expect(await t.db.collection('channels').countDocuments({ username })).toBe(1);
    });
  });

  describe('GET /channels/client/:clientId', () => {
    let listClient: string;
    let ids: string[];

    beforeAll(async () => {
      listClient = await createClient('Lister');
      ids = [];
      for (let i = 0; i < 5; i += 1) ids.push(await createChannel({ clientId: listClient, name: `List ${i}` }));
      await createChannel(); // another client's channel, never listed here
    });

    it("returns the client's channels as a plain array with X-Total-Count", async () => {
      const res = await t.http.get(`/channels/client/${listClient}`, { token: developer.token });
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      expect(res.body.map((channel: { _id: string }) => channel._id)).toEqual(ids);
      expect(res.headers.get('x-total-count')).toBe('5');
      for (const channel of res.body) {
        expect(Object.keys(channel).sort()).toEqual(CHANNEL_FIELDS);
        expect(channel.clientId).toBe(listClient);
      }
    });

    it('pages with limit and skip, the total unchanged', async () => {
      const res = await t.http.get(`/channels/client/${listClient}?limit=2&skip=1`, { token: developer.token });
      expect(res.status).toBe(200);
      expect(res.body.map((channel: { _id: string }) => channel._id)).toEqual(ids.slice(1, 3));
      expect(res.headers.get('x-total-count')).toBe('5');
      const past = await t.http.get(`/channels/client/${listClient}?skip=10`, { token: developer.token });
      expect(past.body).toEqual([]);
      expect(past.headers.get('x-total-count')).toBe('5');
    });

    it.each([
      ['limit', '0'],
      ['limit', '501'],
      ['limit', 'many'],
      ['limit', '1.5'],
      ['skip', '-1'],
    ])('rejects %s=%s', async (field, value) => {
      expectValidationError(
        await t.http.get(`/channels/client/${listClient}?${field}=${value}`, { token: developer.token }),
        field,
      );
    });

    it('rejects an unknown query parameter', async () => {
      expectValidationError(
        await t.http.get(`/channels/client/${listClient}?sort=name`, { token: developer.token }),
        'sort',
      );
    });

    it("an unknown client is 404; a client without channels, or a soft-deleted client's, lists them", async () => {
      expectNotFound(
        await t.http.get(`/channels/client/${UNKNOWN_ID}`, { token: developer.token }),
        'Client not found',
      );
      const empty = await createClient('No channels yet');
      const none = await t.http.get(`/channels/client/${empty}`, { token: developer.token });
      expect(none.status).toBe(200);
      expect(none.body).toEqual([]);
      expect(none.headers.get('x-total-count')).toBe('0');
      const before = await t.http.get(`/channels/client/${listClient}`, { token: developer.token });
      await t.http.patch(`/clients/${listClient}/soft-delete`, undefined, { token: admin.token });
      const after = await t.http.get(`/channels/client/${listClient}`, { token: developer.token });
      expect(after.status).toBe(200);
      expect(after.body).toEqual(before.body);
      await t.http.patch(`/clients/${listClient}/restore`, undefined, { token: admin.token });
    });

    it('a malformed client id is 400; no token is 401', async () => {
      expectError(
        await t.http.get('/channels/client/nope', { token: developer.token }),
        400,
        /clientId must be a valid id/,
      );
      expectUnauthorized(await t.http.get(`/channels/client/${listClient}`));
    });
  });

  describe('GET /channels/:id', () => {
    it('unknown is 404, malformed is 400, no token is 401', async () => {
      expectNotFound(await t.http.get(`/channels/${UNKNOWN_ID}`, { token: developer.token }), 'Channel not found');
      expectError(await t.http.get('/channels/12345', { token: developer.token }), 400, /id must be a valid id/);
      expectUnauthorized(await t.http.get(`/channels/${UNKNOWN_ID}`));
    });
  });

  describe('PUT /channels/:id', () => {
    it('updates any subset and answers Channel updated', async () => {
      const id = await createChannel();
      const before = (await t.http.get(`/channels/${id}`, { token: developer.token })).body;
      const projectId = await createContentProject(t.http, developer.token);
      const changes = {
        name: 'Renamed',
        username: uniqueUsername('renamed'),
        avatarUrl: 'http://cdn.example.com/new.png',
        role: 'admin',
        projectIds: [projectId],
        membershipsEnabled: true,
        membershipTiers: [{ name: 'Gold', price: 9 }],
        monetizationEnabled: true,
        revenue: 3.5,
      };
      const res = await t.http.put(`/channels/${id}`, changes, { token: developer.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Channel updated' });
      const after = (await t.http.get(`/channels/${id}`, { token: developer.token })).body;
      expect(after).toMatchObject({ ...changes, _id: id, clientId, createdAt: before.createdAt });
      expect(Date.parse(after.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
    });

    it('leaves the fields it is not given alone', async () => {
      const id = await createChannel({ revenue: 7, membershipTiers: [{ name: 'Gold', price: 9 }] });
      expect((await t.http.put(`/channels/${id}`, { name: 'Only the name' }, { token: developer.token })).status).toBe(
        200,
      );
      expect((await t.http.put(`/channels/${id}`, {}, { token: developer.token })).status).toBe(200);
      const after = (await t.http.get(`/channels/${id}`, { token: developer.token })).body;
      expect(after).toMatchObject({
        name: 'Only the name',
        revenue: 7,
        membershipTiers: [{ name: 'Gold', price: 9 }],
        role: 'creator',
      });
    });

    it('keeping its own username is fine; taking another channel’s is 409', async () => {
      const mine = uniqueUsername('mine');
      const theirs = uniqueUsername('theirs');
      const id = await createChannel({ username: mine });
      await createChannel({ username: theirs });
      expect((await t.http.put(`/channels/${id}`, { username: mine }, { token: developer.token })).status).toBe(200);
      expectError(
        await t.http.put(`/channels/${id}`, { username: theirs.toUpperCase() }, { token: developer.token }),
        409,
        'Channel username already taken',
      );
      expect((await t.http.get(`/channels/${id}`, { token: developer.token })).body.username).toBe(mine);
    });

    it('concurrent renames to one username: exactly one wins', async () => {
      const ids = await Promise.all(Array.from({ length: 8 }, () => createChannel()));
      const username = uniqueUsername('rename_race');
      const responses = await Promise.all(
        ids.map((id) => t.http.put(`/channels/${id}`, { username }, { token: developer.token })),
      );
      expect(responses.filter((res) => res.status === 200)).toHaveLength(1);
      expect(responses.filter((res) => res.status === 409)).toHaveLength(7);
      expect(await t.db.collection('channels').countDocuments({ username })).toBe(1);
    });

    it.each([
      ['clientId', UNKNOWN_ID],
      ['name', ''],
      ['name', null],
      ['username', null],
      ['avatarUrl', 'ftp://x.example.com/a.png'],
      ['role', null],
      ['revenue', -1],
      ['projectIds', ['bad']],
      ['membershipTiers', [{ name: 'No price' }]],
      ['createdAt', '2020-01-01T00:00:00.000Z'],
    ])('rejects %s = %j', async (field, value) => {
      const id = await createChannel();
      const res = await t.http.put(`/channels/${id}`, { [field]: value }, { token: developer.token });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.errors)).toContain(field);
    });

    it('unknown is 404, malformed is 400, no token is 401', async () => {
      expectNotFound(
        await t.http.put(`/channels/${UNKNOWN_ID}`, { name: 'x' }, { token: developer.token }),
        'Channel not found',
      );
      expectError(await t.http.put('/channels/xyz', { name: 'x' }, { token: developer.token }), 400);
      expectUnauthorized(await t.http.put(`/channels/${UNKNOWN_ID}`, { name: 'x' }));
    });
  });

  describe('DELETE /channels/:id', () => {
    it('deletes the channel', async () => {
      const id = await createChannel();
      const res = await t.http.delete(`/channels/${id}`, { token: developer.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Channel deleted' });
      expectNotFound(await t.http.get(`/channels/${id}`, { token: developer.token }), 'Channel not found');
      expect(await t.db.collection('channels').countDocuments({ _id: new Types.ObjectId(id) })).toBe(0);
      expectNotFound(await t.http.delete(`/channels/${id}`, { token: developer.token }), 'Channel not found');
    });

    it('frees the username for reuse', async () => {
      const username = uniqueUsername('reuse');
      const id = await createChannel({ username });
      await t.http.delete(`/channels/${id}`, { token: developer.token });
      expect((await t.http.post('/channels', channelBody({ username }), { token: developer.token })).status).toBe(200);
    });

    it('unknown is 404, malformed is 400, no token is 401', async () => {
      expectNotFound(await t.http.delete(`/channels/${UNKNOWN_ID}`, { token: developer.token }), 'Channel not found');
      expectError(await t.http.delete('/channels/zzz', { token: developer.token }), 400);
      expectUnauthorized(await t.http.delete(`/channels/${UNKNOWN_ID}`));
    });
  });

  describe('hard-deleting a client', () => {
    it('is 409 while the client owns channels, and removes nothing', async () => {
      const owner = await createClient('Owner');
      const channelId = await createChannel({ clientId: owner });
      expectError(await t.http.delete(`/clients/${owner}`, { token: admin.token }), 409, 'Client still owns channels');
      expect((await t.http.get(`/clients/${owner}`, { token: admin.token })).status).toBe(200);
      expect((await t.http.get(`/channels/${channelId}`, { token: developer.token })).status).toBe(200);
    });

    it('also while the client is soft-deleted', async () => {
      const owner = await createClient('Soft owner');
      await createChannel({ clientId: owner });
      await t.http.patch(`/clients/${owner}/soft-delete`, undefined, { token: admin.token });
      expectError(await t.http.delete(`/clients/${owner}`, { token: admin.token }), 409, 'Client still owns channels');
      expect(await t.db.collection('clients').countDocuments({ _id: new Types.ObjectId(owner) })).toBe(1);
    });

    it('goes through once its channels are gone', async () => {
      const owner = await createClient('Former owner');
      const channelId = await createChannel({ clientId: owner });
      await t.http.delete(`/channels/${channelId}`, { token: developer.token });
      const res = await t.http.delete(`/clients/${owner}`, { token: admin.token });
      expect(res.status).toBe(200);
      expect(await t.db.collection('clients').countDocuments({ _id: new Types.ObjectId(owner) })).toBe(0);
    });
  });

  it('documents every channel route with its operation id', async () => {
    const doc = (await t.http.get('/docs-json')).body;
    const operations = [
      ['/channels', 'post', 'createChannel'],
      ['/channels/client/{clientId}', 'get', 'listClientChannels'],
      ['/channels/{id}', 'get', 'getChannel'],
      ['/channels/{id}', 'put', 'updateChannel'],
      ['/channels/{id}', 'delete', 'deleteChannel'],
    ];
    for (const [path, method, operationId] of operations) {
      const operation = doc.paths[path]?.[method];
      expect(operation?.operationId).toBe(operationId);
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '500', '503']));
    }
    expect(doc.paths['/channels'].post.responses['409']).toBeDefined();
    expect(doc.paths['/channels/{id}'].get.responses['404']).toBeDefined();
    expect(doc.paths['/channels/client/{clientId}'].get.responses['200'].headers['X-Total-Count']).toBeDefined();
  });
});
