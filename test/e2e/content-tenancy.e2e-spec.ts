import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { Types } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { Channel } from '../../src/channels/channel.schema';
import { Client } from '../../src/clients/client.schema';
import { Collection } from '../../src/collections/collection.schema';
import { Project } from '../../src/projects/project.schema';
import { UnscopedQueryError } from '../../src/tenancy/tenant-owned.plugin';
import { createFirstAdmin, createUser, TestUser } from '../support/auth';
import { expectError, expectNotFound, expectValidationError } from '../support/expect-error';
import type { RequestOptions } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

/** Who acts, and in which platform project (none: the account's default project). */
interface Tenant {
  user: TestUser;
  project?: string;
}

const unique = (prefix: string) => `${prefix}_${randomBytes(5).toString('hex')}`;

describe('content tenancy: every record lives in one platform project', () => {
  let t: TestApp;
  /** Owner of account A, acting in A's default project. */
  let a: Tenant;
  /** A developer invited into account A: same default project as `a`. */
  let aDeveloper: Tenant;
  /** Owner of account B, acting in B's default project. */
  let b: Tenant;
  /** A's owner, acting in a second platform project of account A. */
  let a2: Tenant;
  /** Every tenant that must not see A's records: another account, and another project of A's account. */
  let others: Tenant[];

  const as = (tenant: Tenant): RequestOptions => ({
    token: tenant.user.token,
    ...(tenant.project ? { headers: { 'x-project-id': tenant.project } } : {}),
  });

  const projectOf = (tenant: Tenant) => new Types.ObjectId(tenant.project ?? tenant.user.projectId);

  const createdId = (
    res: { status: number; text: string; body: { id?: string; _id?: string } },
    status: number,
  ): string => {
    if (res.status !== status) throw new Error(`create failed: ${res.status} ${res.text}`);
    return (res.body.id ?? res.body._id) as string;
  };

  const newClient = async (tenant: Tenant, name = 'Acme Media') =>
    createdId(await t.http.post('/clients', { name, email: 'contact@acme.example' }, as(tenant)), 201);
  const newCollection = async (tenant: Tenant, name = 'Starter') =>
    createdId(await t.http.post('/collections', { name, pricing: 10 }, as(tenant)), 201);
  const channelBody = (clientId: string, username = unique('chan')) => ({
    clientId,
    name: 'Ada Sings',
    username,
    avatarUrl: 'https://cdn.example.com/ada.png',
    role: 'creator',
  });
  const newChannel = async (tenant: Tenant, clientId: string, username?: string) =>
    createdId(await t.http.post('/channels', channelBody(clientId, username), as(tenant)), 200);
  const newProject = async (tenant: Tenant, channelId: string, primaryTitle = 'Blue Hours') =>
    createdId(
      await t.http.post(`/channels/${channelId}/projects`, { primaryTitle, projectTypeId: 'album' }, as(tenant)),
      201,
    );

  const newPlatformProject = async (owner: TestUser, enabledApis?: string[]): Promise<string> => {
    const body = { name: unique('Project'), ...(enabledApis ? { enabledApis } : {}) };
    const res = await t.http.post('/api/v1/platform/projects', body, { token: owner.token });
    if (res.status !== 201) throw new Error(`platform project create failed: ${res.status} ${res.text}`);
    return res.body.data.id;
  };

  /** The record as stored, without its outbox: the relay empties that on its own, a second after a change. */
  const stored = (collection: string, id: string) =>
    t.db.collection(collection).findOne({ _id: new Types.ObjectId(id) }, { projection: { outbox: 0 } });

  beforeAll(async () => {
    t = await createTestApp();
    const ownerA = await createFirstAdmin(t.http);
    const ownerB = await createFirstAdmin(t.http);
    a = { user: ownerA };
    b = { user: ownerB };
    aDeveloper = { user: await createUser(t.http, 'developer', ownerA.token) };
    a2 = { user: ownerA, project: await newPlatformProject(ownerA) };
    others = [b, a2];
  });
  afterAll(() => t.close());

  it('the tenants are two accounts and two projects of one account; an invited developer shares the default project', async () => {
    expect(a.user.accountId).not.toBe(b.user.accountId);
    expect(new Set([a.user.projectId, b.user.projectId, a2.project]).size).toBe(3);
    expect(aDeveloper.user.projectId).toBe(a.user.projectId);
  });

  describe.each([
    ['clients', 'Client not found', newClient, { name: 'Sneaky', email: 'sneaky@example.com' }],
    ['collections', 'Collection not found', newCollection, { name: 'Sneaky' }],
  ] as const)('/%s', (path, notFound, create, validBody) => {
    it('stores the record in the caller’s project and never shows projectId', async () => {
      const id = await create(a);
      expect((await stored(path, id))?.projectId).toEqual(projectOf(a));
      const read = await t.http.get(`/${path}/${id}`, as(aDeveloper));
      expect(read.status).toBe(200);
      expect(read.body).not.toHaveProperty('projectId');
      const list = await t.http.get(`/${path}`, as(a));
      expect(list.body.length).toBeGreaterThan(0);
      for (const item of list.body) expect(item).not.toHaveProperty('projectId');
    });

    it.each([
      ['another account', () => b],
      ['another project of the same account', () => a2],
    ])('from %s, a record answers exactly as an unknown id, and stays unchanged', async (_case, other) => {
      const id = await create(a);
      const before = await stored(path, id);
      const unknown = new Types.ObjectId().toHexString();
      for (const target of [id, unknown]) {
        expectNotFound(await t.http.get(`/${path}/${target}`, as(other())), notFound);
        expectNotFound(await t.http.get(`/${path}/${target}?includeDeleted=true`, as(other())), notFound);
        expectNotFound(await t.http.put(`/${path}/${target}`, { name: 'Taken over' }, as(other())), notFound);
        expectNotFound(await t.http.patch(`/${path}/${target}/soft-delete`, undefined, as(other())), notFound);
        expectNotFound(await t.http.delete(`/${path}/${target}`, as(other())), notFound);
      }
      expect(await stored(path, id)).toEqual(before);

      expect((await t.http.patch(`/${path}/${id}/soft-delete`, undefined, as(a))).status).toBe(200);
      const softDeleted = await stored(path, id);
      expectNotFound(await t.http.patch(`/${path}/${id}/restore`, undefined, as(other())), notFound);
      expectNotFound(await t.http.delete(`/${path}/${id}`, as(other())), notFound);
      expect(await stored(path, id)).toEqual(softDeleted);
      expect((await t.http.patch(`/${path}/${id}/restore`, undefined, as(a))).status).toBe(200);
    });

    it('lists and X-Total-Count see only the project’s records', async () => {
      const fresh: Tenant = { user: await createFirstAdmin(t.http) };
      await create(a);
      const deleted = await create(a);
      await t.http.patch(`/${path}/${deleted}/soft-delete`, undefined, as(a));
      for (const query of ['', '?includeDeleted=true']) {
        const empty = await t.http.get(`/${path}${query}`, as(fresh));
        expect(empty.status).toBe(200);
        expect(empty.body).toEqual([]);
        expect(empty.headers.get('x-total-count')).toBe('0');
      }

      const mine = await create(fresh, 'Mine');
      const list = await t.http.get(`/${path}?includeDeleted=true`, as(fresh));
      expect(list.body.map((item: { _id: string }) => item._id)).toEqual([mine]);
      expect(list.headers.get('x-total-count')).toBe('1');

      const live = await t.db.collection(path).countDocuments({ projectId: projectOf(a), deletedAt: null });
      const ofA = await t.http.get(`/${path}?limit=500`, as(a));
      expect(ofA.headers.get('x-total-count')).toBe(String(live));
      expect(ofA.body.map((item: { _id: string }) => item._id)).not.toContain(mine);
    });

    it.each(['projectId', 'accountId'])('refuses %s in a body as an unknown field', async (field) => {
      const before = await t.db.collection(path).countDocuments();
      const foreign = b.user.projectId;
      expectValidationError(await t.http.post(`/${path}`, { ...validBody, [field]: foreign }, as(a)), field);
      expect(await t.db.collection(path).countDocuments()).toBe(before);
      const id = await create(a);
      expectValidationError(await t.http.put(`/${path}/${id}`, { [field]: foreign }, as(a)), field);
      expect((await stored(path, id))?.projectId).toEqual(projectOf(a));
    });
  });

  describe('channels', () => {
    it('a clientId of another account or project is 400 like an unknown one, and nothing is written', async () => {
      const clientOfA = await newClient(a);
      for (const other of others) {
        const username = unique('foreign');
        const res = await t.http.post('/channels', channelBody(clientOfA, username), as(other));
        expectError(res, 400, 'clientId does not match an existing client');
        expect(await t.db.collection('channels').countDocuments({ username })).toBe(0);
      }
      const unknown = await t.http.post('/channels', channelBody(new Types.ObjectId().toHexString()), as(b));
      expectError(unknown, 400, 'clientId does not match an existing client');
    });

    it('a channel of another tenant is 404 Channel not found for read, update and delete, and stays unchanged', async () => {
      const channel = await newChannel(a, await newClient(a));
      const before = await stored('channels', channel);
      for (const other of others) {
        expectNotFound(await t.http.get(`/channels/${channel}`, as(other)), 'Channel not found');
        expectNotFound(
          await t.http.put(`/channels/${channel}`, { name: 'Taken over' }, as(other)),
          'Channel not found',
        );
        expectNotFound(await t.http.delete(`/channels/${channel}`, as(other)), 'Channel not found');
      }
      expect(await stored('channels', channel)).toEqual(before);
      const read = await t.http.get(`/channels/${channel}`, as(aDeveloper));
      expect(read.status).toBe(200);
      expect(read.body).not.toHaveProperty('projectId');
    });

    it("a client's channels list is 404 from another tenant, as an unknown client's", async () => {
      const client = await newClient(a);
      await newChannel(a, client);
      await newChannel(a, client);
      const own = await t.http.get(`/channels/client/${client}`, as(a));
      expect(own.body).toHaveLength(2);
      expect(own.headers.get('x-total-count')).toBe('2');
      for (const other of others)
        expectNotFound(await t.http.get(`/channels/client/${client}`, as(other)), 'Client not found');
    });

    it('one username in two accounts and in two projects of one account: all succeed; inside one project it is still 409', async () => {
      const username = unique('Shared');
      const ids = [];
      for (const tenant of [a, ...others]) ids.push(await newChannel(tenant, await newClient(tenant), username));
      expect(new Set(ids).size).toBe(1 + others.length);
      const again = await t.http.post('/channels', channelBody(await newClient(b), username.toLowerCase()), as(b));
      expectError(again, 409, 'Channel username already taken');
      expect(await t.db.collection('channels').countDocuments({ usernameKey: username.toLowerCase() })).toBe(
        1 + others.length,
      );
    });

    it('renaming to a username taken in another project only is fine', async () => {
      const taken = unique('elsewhere');
      await newChannel(b, await newClient(b), taken);
      const mine = await newChannel(a, await newClient(a));
      expect((await t.http.put(`/channels/${mine}`, { username: taken }, as(a))).status).toBe(200);
    });

    it('20 concurrent creates of one username in each of two projects: one winner per project', async () => {
      const username = unique('race');
      const clients = { a: await newClient(a), b: await newClient(b) };
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? t.http.post('/channels', channelBody(clients.a, username), as(a))
            : t.http.post('/channels', channelBody(clients.b, username), as(b)),
        ),
      );
      expect(responses.filter((res) => res.status === 200)).toHaveLength(2);
      expect(responses.filter((res) => res.status === 409)).toHaveLength(18);
      expect(await t.db.collection('channels').countDocuments({ username })).toBe(2);
    });

    it('hard-deleting a client counts only its own project’s channels', async () => {
      const client = await newClient(a);
      // A channel of another project naming this client (the API cannot make one; a stray record can exist).
      await t.db.collection('channels').insertOne({
        projectId: projectOf(b),
        clientId: new Types.ObjectId(client),
        name: 'Stray',
        username: unique('stray'),
        usernameKey: unique('stray'),
        avatarUrl: 'https://cdn.example.com/stray.png',
        role: 'creator',
        projectIds: [],
        membershipTiers: [],
      });
      expect((await t.http.delete(`/clients/${client}`, as(a))).status).toBe(200);

      const owner = await newClient(a);
      await newChannel(a, owner);
      expectError(await t.http.delete(`/clients/${owner}`, as(a)), 409, 'Client still owns channels');
    });

    it.each(['projectId', 'accountId'])('refuses %s in a body as an unknown field', async (field) => {
      const username = unique('sneaky');
      const body = { ...channelBody(await newClient(a), username), [field]: new Types.ObjectId().toHexString() };
      const res = await t.http.post('/channels', body, as(a));
      expectValidationError(res, field);
      expect(await t.db.collection('channels').countDocuments({ username })).toBe(0);
    });
  });

  describe('content projects', () => {
    let channelOfA: string;
    let projectOfA: string;

    beforeAll(async () => {
      channelOfA = await newChannel(a, await newClient(a));
      projectOfA = await newProject(a, channelOfA, 'Secret Blue');
    });

    it('a project of another tenant is 404 Project not found for read, update and delete, and stays unchanged', async () => {
      const before = await stored('projects', projectOfA);
      for (const other of others) {
        expectNotFound(await t.http.get(`/projects/${projectOfA}`, as(other)), 'Project not found');
        expectNotFound(
          await t.http.put(`/projects/${projectOfA}`, { primaryTitle: 'Taken over' }, as(other)),
          'Project not found',
        );
        expectNotFound(await t.http.delete(`/projects/${projectOfA}`, as(other)), 'Project not found');
      }
      expect(await stored('projects', projectOfA)).toEqual(before);
      const read = await t.http.get(`/projects/${projectOfA}`, as(aDeveloper));
      expect(read.status).toBe(200);
      expect(read.body).not.toHaveProperty('projectId');
      expect((await stored('projects', projectOfA))?.projectId).toEqual(projectOf(a));
    });

    it("a channel or a client naming another tenant's content project in projectIds is 400, exactly as an unknown id, and nothing is written", async () => {
      const UNKNOWN = 'each value in projectIds must match an existing project';
      const unknownId = new Types.ObjectId().toHexString();
      for (const other of others) {
        const client = await newClient(other);
        const channel = await newChannel(other, client);
        for (const projectIds of [[projectOfA], [unknownId]]) {
          const username = unique('foreign');
          expectError(
            await t.http.post('/channels', { ...channelBody(client, username), projectIds }, as(other)),
            400,
            UNKNOWN,
          );
          expect(await t.db.collection('channels').countDocuments({ username })).toBe(0);
          expectError(await t.http.put(`/channels/${channel}`, { projectIds }, as(other)), 400, UNKNOWN);
          expect((await stored('channels', channel))?.projectIds).toEqual([]);

          const name = unique('Foreign');
          expectError(
            await t.http.post('/clients', { name, email: 'foreign@example.com', projectIds }, as(other)),
            400,
            UNKNOWN,
          );
          expect(await t.db.collection('clients').countDocuments({ name })).toBe(0);
          expectError(await t.http.put(`/clients/${client}`, { projectIds }, as(other)), 400, UNKNOWN);
          expect((await stored('clients', client))?.projectIds).toEqual([]);
        }
      }
      // A's own project is accepted, for a channel and a client alike.
      const client = await newClient(a);
      const channel = await newChannel(a, client);
      // The channel's owner (its creator): a member with no channel role may not change it.
      expect((await t.http.put(`/channels/${channel}`, { projectIds: [projectOfA] }, as(a))).status).toBe(200);
      expect((await t.http.put(`/clients/${client}`, { projectIds: [projectOfA] }, as(aDeveloper))).status).toBe(200);
      expect((await stored('clients', client))?.projectIds).toEqual([projectOfA]);
    });

    it("another tenant's channel is 404 Channel not found for create and list, and nothing is written", async () => {
      for (const other of others) {
        const res = await t.http.post(
          `/channels/${channelOfA}/projects`,
          { primaryTitle: 'Intruder', projectTypeId: 'show' },
          as(other),
        );
        expectNotFound(res, 'Channel not found');
        expectNotFound(await t.http.get(`/channels/${channelOfA}/projects?q=blue`, as(other)), 'Channel not found');
      }
      expect(await t.db.collection('projects').countDocuments({ primaryTitle: 'Intruder' })).toBe(0);
      expect((await stored('channels', channelOfA))?.projectIds.map(String)).toEqual([projectOfA]);
    });

    it("moving a project to another tenant's channel is 404 Channel not found, and nothing moves", async () => {
      const channelOfB = await newChannel(b, await newClient(b));
      const projectOfB = await newProject(b, channelOfB);
      const res = await t.http.put(`/projects/${projectOfB}`, { channelId: channelOfA }, as(b));
      expectNotFound(res, 'Channel not found');
      expect(String((await stored('projects', projectOfB))?.channelId)).toBe(channelOfB);
      expect((await stored('channels', channelOfA))?.projectIds.map(String)).toEqual([projectOfA]);
    });

    it('a project body naming projectId or accountId is 400 as an unknown field', async () => {
      for (const field of ['projectId', 'accountId']) {
        const body = { primaryTitle: 'X', projectTypeId: 'show', [field]: new Types.ObjectId().toHexString() };
        const res = await t.http.post(`/channels/${channelOfA}/projects`, body, as(a));
        expectValidationError(res, field);
        expectValidationError(
          await t.http.put(`/projects/${projectOfA}`, { [field]: new Types.ObjectId().toHexString() }, as(a)),
          field,
        );
      }
    });

    it('deleting a channel removes only its own project’s projects', async () => {
      const channel = await newChannel(a, await newClient(a));
      await newProject(a, channel, 'Goes with it');
      // A stray project of another platform project naming the same channel id.
      const stray = await t.db.collection('projects').insertOne({
        projectId: projectOf(b),
        channelId: new Types.ObjectId(channel),
        projectTypeId: 'show',
        primaryTitle: 'Stays',
        access: 'public',
        status: 'draft',
      });
      expect((await t.http.delete(`/channels/${channel}`, as(a))).status).toBe(200);
      expect(await t.db.collection('projects').countDocuments({ primaryTitle: 'Goes with it' })).toBe(0);
      expect(await t.db.collection('projects').countDocuments({ _id: stray.insertedId })).toBe(1);
    });
  });

  it('a project whose content APIs are off answers 403 on each content route family', async () => {
    const financeOnly: Tenant = { user: a.user, project: await newPlatformProject(a.user, ['customers']) };
    const unknown = new Types.ObjectId().toHexString();
    const routes: [string, string][] = [
      ['/clients', 'clients'],
      ['/collections', 'collections'],
      [`/channels/client/${unknown}`, 'channels'],
      [`/projects/${unknown}`, 'projects'],
    ];
    for (const [path, api] of routes) {
      expectError(await t.http.get(path, as(financeOnly)), 403, `The ${api} API is not enabled for this project`);
    }
  });

  describe('deleting a platform project', () => {
    const deleteProject = (id: string) => t.http.delete(`/api/v1/platform/projects/${id}`, { token: a.user.token });

    it.each([
      [
        'a soft-deleted client',
        async (tenant: Tenant) => {
          const id = await newClient(tenant);
          await t.http.patch(`/clients/${id}/soft-delete`, undefined, as(tenant));
        },
      ],
      [
        'a soft-deleted collection',
        async (tenant: Tenant) => {
          const id = await newCollection(tenant);
          await t.http.patch(`/collections/${id}/soft-delete`, undefined, as(tenant));
        },
      ],
      [
        'a channel',
        async (tenant: Tenant) => {
          await newChannel(tenant, await newClient(tenant));
          await t.db.collection('clients').deleteMany({ projectId: projectOf(tenant) });
        },
      ],
      [
        'a content project',
        async (tenant: Tenant) => {
          await newProject(tenant, await newChannel(tenant, await newClient(tenant)));
          await t.db.collection('channels').deleteMany({ projectId: projectOf(tenant) });
          await t.db.collection('clients').deleteMany({ projectId: projectOf(tenant) });
        },
      ],
    ])('is 409 while it holds %s', async (_case, fill) => {
      const tenant: Tenant = { user: a.user, project: await newPlatformProject(a.user) };
      await fill(tenant);
      expectError(await deleteProject(tenant.project as string), 409, 'Platform project is not empty');
    });

    it('goes through once its content is gone', async () => {
      const tenant: Tenant = { user: a.user, project: await newPlatformProject(a.user) };
      const client = await newClient(tenant);
      const channel = await newChannel(tenant, client);
      await newProject(tenant, channel);
      const collection = await newCollection(tenant);
      expectError(await deleteProject(tenant.project as string), 409, 'Platform project is not empty');
      expect((await t.http.delete(`/channels/${channel}`, as(tenant))).status).toBe(200);
      expect((await t.http.delete(`/clients/${client}`, as(tenant))).status).toBe(200);
      expect((await t.http.delete(`/collections/${collection}`, as(tenant))).status).toBe(200);
      expect((await deleteProject(tenant.project as string)).status).toBe(200);
    });
  });

  describe('the tenantOwned backstop refuses unscoped queries on every content model', () => {
    it.each([Client.name, Collection.name, Channel.name, Project.name])('%s', async (name) => {
      const model = t.app.get<Model<unknown>>(getModelToken(name));
      await expect(model.find({}).exec()).rejects.toBeInstanceOf(UnscopedQueryError);
      await expect(model.findOne({ _id: new Types.ObjectId() }).exec()).rejects.toBeInstanceOf(UnscopedQueryError);
      await expect(model.countDocuments({}).exec()).rejects.toBeInstanceOf(UnscopedQueryError);
      await expect(model.updateMany({}, { $set: { updatedAt: new Date() } }).exec()).rejects.toBeInstanceOf(
        UnscopedQueryError,
      );
      await expect(model.deleteMany({}).exec()).rejects.toBeInstanceOf(UnscopedQueryError);
      await expect(model.aggregate([{ $match: {} }]).exec()).rejects.toBeInstanceOf(UnscopedQueryError);
    });
  });
});
