import { Types } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { createFirstAdmin, createUser, invite, TestUser } from '../support/auth';
import { expectError, expectNotFound, expectUnauthorized, expectValidationError } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';

const UNKNOWN_ID = '6650c0ffee0000000000ffff';
const NEEDS = (role: string) => `This needs the channel role ${role} or above, or the platform role admin`;

describe('channel collaborators and who may change content', () => {
  let t: TestApp;
  let admin: TestUser;
  let platformManager: TestUser;
  let dev: TestUser;
  let other: TestUser;
  let clientId: string;

  const as = (user: TestUser) => ({ token: user.token });

  const createChannel = async (by: TestUser): Promise<string> => {
    const res = await t.http.post(
      '/channels',
      {
        clientId,
        name: 'Studio',
        username: `studio_${randomBytes(5).toString('hex')}`,
        avatarUrl: 'https://cdn.example.com/s.png',
        role: 'creator',
      },
      as(by),
    );
    if (res.status !== 200) throw new Error(`channel create failed: ${res.status} ${res.text}`);
    return res.body.id;
  };
  const createProject = async (by: TestUser, channel: string, fields: Record<string, unknown> = {}) =>
    t.http.post(
      `/channels/${channel}/projects`,
      { primaryTitle: 'Blue Hours', projectTypeId: 'album', ...fields },
      as(by),
    );
  const grant = async (channel: string, user: TestUser, role: string) => {
    const res = await t.http.post(`/channels/${channel}/collaborators`, { userId: user.id, role }, as(admin));
    if (res.status !== 201) throw new Error(`grant failed: ${res.status} ${res.text}`);
  };
  const eventTypesOf = async (id: string): Promise<string[]> => {
    const events = await t.db
      .collection('events')
      .find({ body: { $regex: id } })
      .toArray();
    return events
      .filter((event) => JSON.parse(event.body as string).data.object._id === id)
      .map((event) => event.type as string);
  };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await createFirstAdmin(t.http);
    platformManager = await createUser(t.http, 'manager', admin.token);
    dev = await createUser(t.http, 'developer', admin.token);
    // The owner of another account: no member of the admin's.
    other = await createFirstAdmin(t.http);
    clientId = (await t.http.post('/clients', { name: 'Acme Media', email: 'acme@example.com' }, as(admin))).body.id;
  });
  afterAll(() => t.close());

  describe('the collaborators routes', () => {
    it("make the channel's creator its owner", async () => {
      const channel = await createChannel(dev);
      const res = await t.http.get(`/channels/${channel}/collaborators`, as(admin));
      expect(res.status).toBe(200);
      expect(res.headers.get('x-total-count')).toBe('1');
      expect(res.body).toEqual([
        {
          _id: expect.stringMatching(/^[0-9a-f]{24}$/),
          channelId: channel,
          userId: dev.id,
          role: 'owner',
          expiresAt: null,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      ]);
      expect(await eventTypesOf(res.body[0]._id)).toEqual(['collaborator.added']);
    });

    it('add, change and remove a member of the account, each recorded', async () => {
      const channel = await createChannel(admin);
      const added = await t.http.post(
        `/channels/${channel}/collaborators`,
        { userId: dev.id, role: 'viewer', expiresAt: '2099-01-01T00:00:00.000Z' },
        as(admin),
      );
      expect(added.status).toBe(201);
      expect(added.body).toMatchObject({
        channelId: channel,
        userId: dev.id,
        role: 'viewer',
        expiresAt: '2099-01-01T00:00:00.000Z',
      });
      const stored = await t.db
        .collection('channel_collaborators')
        .findOne({ _id: new Types.ObjectId(added.body._id as string) });
      expect(stored).toMatchObject({
        role: 'viewer',
        userId: new Types.ObjectId(dev.id),
        channelId: new Types.ObjectId(channel),
      });

      const changed = await t.http.patch(
        `/channels/${channel}/collaborators/${dev.id}`,
        { role: 'editor', expiresAt: null },
        as(admin),
      );
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ role: 'editor', expiresAt: null });

      const removed = await t.http.delete(`/channels/${channel}/collaborators/${dev.id}`, as(admin));
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ message: 'Collaborator removed' });
      expect(
        await t.db
          .collection('channel_collaborators')
          .countDocuments({ _id: new Types.ObjectId(added.body._id as string) }),
      ).toBe(0);
      expect(await eventTypesOf(added.body._id)).toEqual([
        'collaborator.added',
        'collaborator.changed',
        'collaborator.removed',
      ]);
      expectNotFound(
        await t.http.delete(`/channels/${channel}/collaborators/${dev.id}`, as(admin)),
        'Collaborator not found',
      );
      expectNotFound(
        await t.http.patch(`/channels/${channel}/collaborators/${dev.id}`, { role: 'viewer' }, as(admin)),
        'Collaborator not found',
      );
    });

    it('refuse a user outside the account or unknown (404), a present one (409), a bad role or a past end (400)', async () => {
      const channel = await createChannel(admin);
      const url = `/channels/${channel}/collaborators`;
      expectNotFound(await t.http.post(url, { userId: other.id, role: 'editor' }, as(admin)), 'User not found');
      expectNotFound(await t.http.post(url, { userId: UNKNOWN_ID, role: 'editor' }, as(admin)), 'User not found');
      expectError(
        await t.http.post(url, { userId: admin.id, role: 'editor' }, as(admin)),
        409,
        'The user is a collaborator of this channel already; change their role instead',
      );
      expectValidationError(await t.http.post(url, { userId: dev.id, role: 'boss' }, as(admin)), 'role');
      expectValidationError(await t.http.post(url, { userId: dev.id }, as(admin)), 'role');
      expectValidationError(await t.http.post(url, { userId: 'x', role: 'editor' }, as(admin)), 'userId');
      expectValidationError(
        await t.http.post(url, { userId: dev.id, role: 'editor', expiresAt: '2001-01-01T00:00:00.000Z' }, as(admin)),
        'expiresAt',
        'expiresAt must be in the future',
      );
      expectValidationError(await t.http.patch(`${url}/${admin.id}`, { role: null }, as(admin)), 'role');
      expect(
        await t.db.collection('channel_collaborators').countDocuments({ channelId: new Types.ObjectId(channel) }),
      ).toBe(1);
      expectNotFound(
        await t.http.post(`/channels/${UNKNOWN_ID}/collaborators`, { userId: dev.id, role: 'editor' }, as(admin)),
        'Channel not found',
      );
      expectNotFound(await t.http.get(`/channels/${UNKNOWN_ID}/collaborators`, as(admin)), 'Channel not found');
      expectUnauthorized(await t.http.get(url));
    });

    it('are managed by the channel owner or a platform admin only (403 naming the role)', async () => {
      const channel = await createChannel(admin);
      await grant(channel, dev, 'manager');
      const member = await createUser(t.http, 'developer', admin.token);
      expectError(
        await t.http.post(`/channels/${channel}/collaborators`, { userId: member.id, role: 'viewer' }, as(dev)),
        403,
        NEEDS('owner'),
      );
      expectError(
        await t.http.patch(`/channels/${channel}/collaborators/${admin.id}`, { role: 'viewer' }, as(dev)),
        403,
        NEEDS('owner'),
      );
      await t.http.patch(`/channels/${channel}/collaborators/${dev.id}`, { role: 'owner' }, as(admin));
      expect(
        (await t.http.post(`/channels/${channel}/collaborators`, { userId: member.id, role: 'viewer' }, as(dev)))
          .status,
      ).toBe(201);
    });

    it("leave with a member who leaves the account; a channel only they owned passes to the account's owner", async () => {
      const member = await createUser(t.http, 'developer', admin.token);
      const theirs = await createChannel(member);
      const shared = await createChannel(admin);
      await grant(shared, member, 'editor');
      // A channel with another lasting owner keeps that owner alone.
      const coOwned = await createChannel(member);
      await grant(coOwned, platformManager, 'owner');
      const rolesIn = async (channel: string) =>
        Object.fromEntries(
          (
            (await t.http.get(`/channels/${channel}/collaborators`, as(admin))).body as {
              userId: string;
              role: string;
            }[]
          ).map((row) => [row.userId, row.role]),
        );

      const removed = await t.http.delete(`/api/v1/accounts/${admin.accountId}/members/${member.id}`, as(admin));
      expect(removed.status).toBe(200);
      expect(await rolesIn(theirs)).toEqual({ [admin.id]: 'owner' });
      expect(await rolesIn(shared)).toEqual({ [admin.id]: 'owner' });
      expect(await rolesIn(coOwned)).toEqual({ [platformManager.id]: 'owner' });
      expect(
        await t.db.collection('channel_collaborators').countDocuments({ userId: new Types.ObjectId(member.id) }),
      ).toBe(0);
      // Each of those changes is in the account's audit log, by the admin who removed the member.
      const audited = async (action: string) =>
        (
          (
            await t.http.get(
              `/api/v1/accounts/${admin.accountId}/audit-log?action=${action}&actorId=${admin.id}&limit=100`,
              as(admin),
            )
          ).body.data as { changes: Record<string, [unknown, unknown]> | null }[]
        ).map((entry) => entry.changes);
      const removedRoles = (await audited('collaborator.removed')).filter(
        (changes) => changes?.userId?.[0] === member.id,
      );
      expect(removedRoles.map((changes) => changes!.role[0]).sort()).toEqual(['editor', 'owner', 'owner']);
      expect(await audited('collaborator.added')).toContainEqual({ userId: [null, admin.id], role: [null, 'owner'] });

      // Invited back, they start with no channel role: the old owner's record did not wait for them.
      const token = await invite(t.http, admin.token, member.email, 'developer');
      const accepted = await t.http.post('/api/v1/invitations/accept', { token }, as(member));
      expect(accepted.status).toBe(200);
      const back = await t.http.post('/api/v1/login', {
        email: member.email,
        password: member.password,
        accountId: admin.accountId,
      });
      expectError(
        await t.http.put(`/channels/${theirs}`, { name: 'Taken back' }, { token: back.body.accessToken }),
        403,
        NEEDS('manager'),
      );
    });

    it('go with their channel', async () => {
      const channel = await createChannel(admin);
      await grant(channel, dev, 'editor');
      expect((await t.http.delete(`/channels/${channel}`, as(admin))).status).toBe(200);
      expect(
        await t.db.collection('channel_collaborators').countDocuments({ channelId: new Types.ObjectId(channel) }),
      ).toBe(0);
    });
  });

  describe('creating, editing and deleting projects', () => {
    let channel: string;

    beforeAll(async () => {
      channel = await createChannel(admin);
    });

    it('a member without a channel role, or a viewer, is refused with 403 naming editor', async () => {
      const before = await t.db.collection('projects').countDocuments();
      expectError(await createProject(dev, channel), 403, NEEDS('editor'));
      expectError(await createProject(platformManager, channel), 403, NEEDS('editor'));
      const viewer = await createUser(t.http, 'developer', admin.token);
      await grant(channel, viewer, 'viewer');
      expectError(await createProject(viewer, channel), 403, NEEDS('editor'));
      const project = (await createProject(admin, channel)).body;
      expectError(
        await t.http.put(`/projects/${project._id}`, { primaryTitle: 'Mine' }, as(viewer)),
        403,
        NEEDS('editor'),
      );
      expectError(await t.http.delete(`/projects/${project._id}`, as(viewer)), 403, NEEDS('manager'));
      expect(await t.db.collection('projects').countDocuments()).toBe(before + 1);
      expect((await t.http.get(`/projects/${project._id}`, as(viewer))).body.primaryTitle).toBe('Blue Hours');
    });

    it('an editor creates and edits, deletes a sub-project, not a top-level one (manager)', async () => {
      const editor = await createUser(t.http, 'developer', admin.token);
      await grant(channel, editor, 'editor');
      const top = await createProject(editor, channel);
      expect(top.status).toBe(201);
      const sub = await createProject(editor, channel, { parentId: top.body._id });
      expect(sub.status).toBe(201);
      expect((await t.http.put(`/projects/${top.body._id}`, { primaryTitle: 'Edited' }, as(editor))).status).toBe(200);
      expect((await t.http.delete(`/projects/${sub.body._id}`, as(editor))).status).toBe(200);
      expectError(await t.http.delete(`/projects/${top.body._id}`, as(editor)), 403, NEEDS('manager'));

      const manager = await createUser(t.http, 'developer', admin.token);
      await grant(channel, manager, 'manager');
      expect((await t.http.delete(`/projects/${top.body._id}`, as(manager))).status).toBe(200);
    });

    it('an expired role counts as none', async () => {
      const editor = await createUser(t.http, 'developer', admin.token);
      await grant(channel, editor, 'editor');
      expect((await createProject(editor, channel)).status).toBe(201);
      await t.db
        .collection('channel_collaborators')
        .updateOne(
          { channelId: new Types.ObjectId(channel), userId: new Types.ObjectId(editor.id) },
          { $set: { expiresAt: new Date(Date.now() - 1000) } },
        );
      expectError(await createProject(editor, channel), 403, NEEDS('editor'));
    });

    it('a role in one channel is no role in another; a move between channels needs manager in the source and editor in the target', async () => {
      const second = await createChannel(admin);
      const editor = await createUser(t.http, 'developer', admin.token);
      await grant(channel, editor, 'editor');
      expectError(await createProject(editor, second), 403, NEEDS('editor'));
      const project = (await createProject(editor, channel)).body;
      // Taking a project out of its channel is a manager's, even for an editor of both.
      expectError(
        await t.http.put(`/projects/${project._id}`, { channelId: second }, as(editor)),
        403,
        NEEDS('manager'),
      );
      await grant(second, editor, 'editor');
      expectError(
        await t.http.put(`/projects/${project._id}`, { channelId: second }, as(editor)),
        403,
        NEEDS('manager'),
      );
      const mover = await createUser(t.http, 'developer', admin.token);
      await grant(channel, mover, 'manager');
      expectError(await t.http.put(`/projects/${project._id}`, { channelId: second }, as(mover)), 403, NEEDS('editor'));
      await grant(second, mover, 'editor');
      expect((await t.http.put(`/projects/${project._id}`, { channelId: second }, as(mover))).body.channelId).toBe(
        second,
      );
    });

    it('platform admins and API keys need no channel role', async () => {
      const key = (
        await t.http.post(`/api/v1/platform/projects/${admin.projectId}/keys`, { name: 'content' }, as(admin))
      ).body.data.key as string;
      const byKey = await t.http.post(
        `/channels/${channel}/projects`,
        { primaryTitle: 'By key', projectTypeId: 'album' },
        { token: key },
      );
      expect(byKey.status).toBe(201);
      expect((await t.http.delete(`/projects/${byKey.body._id}`, { token: key })).status).toBe(200);
      const secondAdmin = await createUser(t.http, 'admin', admin.token);
      expect((await createProject(secondAdmin, channel)).status).toBe(201);
    });

    it('another tenant sees the channel as unknown, not forbidden', async () => {
      expectNotFound(await createProject(other, channel), 'Channel not found');
      expectNotFound(await t.http.get(`/channels/${channel}/collaborators`, as(other)), 'Channel not found');
      // Changing or removing a collaborator of it too, or of an unknown channel, whatever the caller's
      // role: 404 before any role is asked (never a 403 that says it exists).
      expectNotFound(
        await t.http.patch(`/channels/${channel}/collaborators/${other.id}`, { role: 'viewer' }, as(other)),
        'Channel not found',
      );
      expectNotFound(
        await t.http.delete(`/channels/${channel}/collaborators/${other.id}`, as(other)),
        'Channel not found',
      );
      const noRole = await createUser(t.http, 'developer', admin.token);
      const unknown = '6650c0ffee0000000000ffff';
      expectNotFound(
        await t.http.patch(`/channels/${unknown}/collaborators/${noRole.id}`, { role: 'viewer' }, as(noRole)),
        'Channel not found',
      );
      expectNotFound(
        await t.http.delete(`/channels/${unknown}/collaborators/${noRole.id}`, as(noRole)),
        'Channel not found',
      );
    });
  });
});
