import { Types } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { EventRelay } from '../../src/events/event-relay';
import { EventsRepository } from '../../src/events/events.repository';
import { createFirstAdmin, createUser, TestUser } from '../support/auth';
import { commandsOf, monitoredDatabaseUri } from '../support/commands';
import { expectError, expectNotFound, expectUnauthorized, expectValidationError } from '../support/expect-error';
import { pollUntil } from '../support/deadline';
import { createTestApp, TestApp } from '../support/test-app';

const UNKNOWN_ID = '6650c0ffee0000000000ffff';
const ISO_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const PROJECT_FIELDS = [
  '_id',
  'access',
  'categoryId',
  'channelId',
  'contentUploadType',
  'createdAt',
  'description',
  'landscapeImg',
  'parentId',
  'portraitImg',
  'primaryLanguageId',
  'primaryTitle',
  'projectTypeId',
  'status',
  'subCategoryId',
  'subTypeId',
  'supportedFeatures',
  'supportedFormats',
  'supportedModes',
  'topicIds',
  'updatedAt',
];

describe('projects', () => {
  let t: TestApp;
  let admin: TestUser;
  let developer: TestUser;
  let clientId: string;
  let channelId: string;

  const auth = () => ({ token: developer.token });

  const createChannel = async (): Promise<string> => {
    const res = await t.http.post(
      '/channels',
      {
        clientId,
        name: 'Studio',
        username: `studio_${randomBytes(5).toString('hex')}`,
        avatarUrl: 'https://cdn.example.com/studio.png',
        role: 'creator',
      },
      auth(),
    );
    if (res.status !== 200) throw new Error(`channel create failed: ${res.status} ${res.text}`);
    return res.body.id;
  };

  const createProject = async (channel: string, overrides: Record<string, unknown> = {}) => {
    const res = await t.http.post(
      `/channels/${channel}/projects`,
      { primaryTitle: 'Blue Hours', projectTypeId: 'album', ...overrides },
      auth(),
    );
    if (res.status !== 201) throw new Error(`project create failed: ${res.status} ${res.text}`);
    return res.body as Record<string, any>;
  };

  const channelProjectIds = async (channel: string): Promise<string[]> => {
    const res = await t.http.get(`/channels/${channel}`, auth());
    expect(res.status).toBe(200);
    return res.body.projectIds;
  };

  const storedProjectIds = async (channel: string): Promise<string[]> => {
    const stored = await t.db.collection('channels').findOne({ _id: new Types.ObjectId(channel) });
    return (stored?.projectIds ?? []).map(String);
  };

  beforeAll(async () => {
    // Command monitoring on the service's own client, for the cost test of DELETE.
    t = await createTestApp({ MONGODB_URI: monitoredDatabaseUri(`test_${randomBytes(6).toString('hex')}`) });
    admin = await createFirstAdmin(t.http);
    // Invited into the admin's account: both act in its default platform project.
    developer = await createUser(t.http, 'developer', admin.token);
    const client = await t.http.post(
      '/clients',
      { name: 'Acme Media', email: 'acme@example.com' },
      { token: admin.token },
    );
    clientId = client.body.id;
    channelId = await createChannel();
  });
  afterAll(() => t.close());

  describe('POST /channels/:channelId/projects', () => {
    it('creates a project with 201, the defaults, and links it to the channel', async () => {
      const res = await t.http.post(
        `/channels/${channelId}/projects`,
        { primaryTitle: 'Blue Hours', projectTypeId: 'album' },
        auth(),
      );
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(PROJECT_FIELDS);
      expect(res.body).toEqual({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        channelId,
        parentId: null,
        projectTypeId: 'album',
        subTypeId: null,
        primaryTitle: 'Blue Hours',
        description: null,
        portraitImg: null,
        landscapeImg: null,
        contentUploadType: null,
        access: 'public',
        status: 'draft',
        primaryLanguageId: null,
        categoryId: null,
        subCategoryId: null,
        topicIds: [],
        supportedFormats: [],
        supportedModes: [],
        supportedFeatures: [],
        createdAt: expect.stringMatching(ISO_DATE),
        updatedAt: expect.stringMatching(ISO_DATE),
      });
      expect(await channelProjectIds(channelId)).toContain(res.body._id);
      expect(await storedProjectIds(channelId)).toContain(res.body._id);
      const stored = await t.db.collection('projects').findOne({ _id: new Types.ObjectId(res.body._id) });
      expect(stored).toMatchObject({
        channelId: new Types.ObjectId(channelId),
        primaryTitle: 'Blue Hours',
        status: 'draft',
      });
    });

    it('stores every field, lists without duplicates', async () => {
      const body = {
        channelId,
        projectTypeId: 'podcasts',
        subTypeId: 'interview',
        primaryTitle: 'Talks',
        description: 'Weekly conversations',
        portraitImg: 'https://cdn.example.com/p.jpg',
        landscapeImg: 'http://cdn.example.com/l.jpg',
        contentUploadType: 'externalUrl',
        access: 'linkPrivate',
        status: 'published',
        primaryLanguageId: 'pt-BR',
        categoryId: 'talk',
        subCategoryId: 'tech',
        topicIds: ['ai', 'ai', 'web'],
        supportedFormats: ['audio', 'video', 'text'],
        supportedModes: ['read', 'listen', 'watch', 'chat', 'go', 'go'],
        supportedFeatures: [
          'comments',
          'remix',
          'like',
          'likeDislikeVotes',
          'polls',
          'download',
          'translate',
          'entTranscribe',
          'voiceover',
        ],
      };
      const res = await t.http.post(`/channels/${channelId}/projects`, body, auth());
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        ...body,
        topicIds: ['ai', 'web'],
        supportedModes: ['read', 'listen', 'watch', 'chat', 'go'],
      });
      const read = await t.http.get(`/projects/${res.body._id}`, auth());
      expect(read.body).toEqual(res.body);
    });

    it('takes null as "none" on the optional text fields', async () => {
      const project = await createProject(channelId, { description: null, contentUploadType: null, portraitImg: null });
      expect(project).toMatchObject({ description: null, contentUploadType: null, portraitImg: null });
    });

    it('a channelId in the body must equal the path', async () => {
      const other = await createChannel();
      const res = await t.http.post(
        `/channels/${channelId}/projects`,
        { channelId: other, primaryTitle: 'X', projectTypeId: 'show' },
        auth(),
      );
      expectError(res, 400, 'channelId in the body must match the channel in the path');
      expect(await t.db.collection('projects').countDocuments({ primaryTitle: 'X' })).toBe(0);
      expectValidationError(
        await t.http.post(
          `/channels/${channelId}/projects`,
          { channelId: 'nope', primaryTitle: 'X', projectTypeId: 'show' },
          auth(),
        ),
        'channelId',
      );
      const same = await t.http.post(
        `/channels/${channelId}/projects`,
        { channelId: channelId.toUpperCase(), primaryTitle: 'Y', projectTypeId: 'show' },
        auth(),
      );
      expect(same.status).toBe(201);
    });

    it('unknown channel is 404, malformed is 400, no token is 401', async () => {
      const body = { primaryTitle: 'Orphan', projectTypeId: 'show' };
      expectNotFound(await t.http.post(`/channels/${UNKNOWN_ID}/projects`, body, auth()), 'Channel not found');
      expectError(await t.http.post('/channels/bad-id/projects', body, auth()), 400, /channelId must be a valid id/);
      expectUnauthorized(await t.http.post(`/channels/${channelId}/projects`, body));
      expect(await t.db.collection('projects').countDocuments({ primaryTitle: 'Orphan' })).toBe(0);
    });

    it.each(['primaryTitle', 'projectTypeId'])('requires %s', async (field) => {
      const body: Record<string, unknown> = { primaryTitle: 'T', projectTypeId: 'show' };
      delete body[field];
      expectValidationError(await t.http.post(`/channels/${channelId}/projects`, body, auth()), field);
    });

    it.each([
      ['projectTypeId', 'movie', 'projectTypeId must be one of: project, show, album, podcasts, playlist'],
      ['projectTypeId', 'Album', undefined],
      ['contentUploadType', 'vimeo', 'contentUploadType must be one of: serverVideo, externalUrl, youtube'],
      ['access', 'private', 'access must be one of: public, permissions, linkPrivate'],
      ['access', null, undefined],
      ['status', 'deleted', 'status must be one of: draft, published, archived'],
      ['status', null, undefined],
      ['supportedFormats', ['audio', 'image'], 'each value in supportedFormats must be one of: audio, video, text'],
      ['supportedFormats', 'audio', undefined],
      ['supportedModes', ['fly'], 'each value in supportedModes must be one of: read, listen, watch, chat, go'],
      ['supportedFeatures', ['share'], /supportedFeatures must be one of: comments, remix/],
      ['topicIds', [1, 2], undefined],
      ['topicIds', null, undefined],
      ['portraitImg', 'not a url', 'portraitImg must be an http(s) URL'],
      ['portraitImg', 'ftp://cdn.example.com/p.jpg', 'portraitImg must be an http(s) URL'],
      ['landscapeImg', 'data:image/png;base64,AAAA', 'landscapeImg must be an http(s) URL'],
      ['primaryTitle', '', undefined],
      ['primaryTitle', ' ', 'primaryTitle must not be empty'],
      ['primaryTitle', null, undefined],
      ['primaryLanguageId', 'english language', undefined],
      ['primaryLanguageId', '', undefined],
      ['topicIds', ['t'.repeat(101)], undefined],
      ['description', 42, undefined],
    ])('rejects %s = %j', async (field, value, message) => {
      const body = { primaryTitle: 'T', projectTypeId: 'show', [field]: value };
      expectValidationError(await t.http.post(`/channels/${channelId}/projects`, body, auth()), field, message);
    });

    it.each(['_id', 'createdAt', 'views', 'ownerId'])('rejects the unknown field %s', async (field) => {
      const body = { primaryTitle: 'Unknown field', projectTypeId: 'show', [field]: 'x' };
      expectValidationError(await t.http.post(`/channels/${channelId}/projects`, body, auth()), field);
    });
  });

  describe('sub-projects (parentId)', () => {
    it('creates a sub-project of a project of the same channel; a top-level project has parentId null', async () => {
      const parent = await createProject(channelId, { primaryTitle: 'Season' });
      expect(parent.parentId).toBeNull();
      const child = await createProject(channelId, { primaryTitle: 'Episode', parentId: parent._id });
      expect(child.parentId).toBe(parent._id);
      const stored = await t.db.collection('projects').findOne({ _id: new Types.ObjectId(child._id) });
      expect(String(stored?.parentId)).toBe(parent._id);
      expect((await t.http.get(`/projects/${child._id}`, auth())).body.parentId).toBe(parent._id);
    });

    it('refuses an unknown parent (404), a parent of another channel (422) and a malformed one (400), writing nothing', async () => {
      const other = await createChannel();
      const foreign = await createProject(other, { primaryTitle: 'Elsewhere' });
      const before = await t.db.collection('projects').countDocuments();
      expectNotFound(
        await t.http.post(
          `/channels/${channelId}/projects`,
          { primaryTitle: 'Lost', projectTypeId: 'show', parentId: UNKNOWN_ID },
          auth(),
        ),
        'Parent project not found',
      );
      expectError(
        await t.http.post(
          `/channels/${channelId}/projects`,
          { primaryTitle: 'Lost', projectTypeId: 'show', parentId: foreign._id },
          auth(),
        ),
        422,
        /another channel/,
      );
      expectValidationError(
        await t.http.post(
          `/channels/${channelId}/projects`,
          { primaryTitle: 'Lost', projectTypeId: 'show', parentId: 'nope' },
          auth(),
        ),
        'parentId',
      );
      expect(await t.db.collection('projects').countDocuments()).toBe(before);
    });
  });

  describe('GET /projects/:project_id', () => {
    it('returns the project', async () => {
      const project = await createProject(channelId, { primaryTitle: 'Readable' });
      const res = await t.http.get(`/projects/${project._id}`, auth());
      expect(res.status).toBe(200);
      expect(res.body).toEqual(project);
    });

    it('unknown is 404, malformed is 400, no token is 401', async () => {
      expectNotFound(await t.http.get(`/projects/${UNKNOWN_ID}`, auth()), 'Project not found');
      expectError(await t.http.get('/projects/123', auth()), 400, /project_id must be a valid id/);
      expectUnauthorized(await t.http.get(`/projects/${UNKNOWN_ID}`));
    });
  });

  describe('PUT /projects/:projectId', () => {
    it('updates a subset and returns the updated project', async () => {
      const project = await createProject(channelId, { description: 'old', topicIds: ['a'] });
      const res = await t.http.put(
        `/projects/${project._id}`,
        { status: 'published', primaryTitle: 'New title', supportedFeatures: ['polls'] },
        auth(),
      );
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...project,
        status: 'published',
        primaryTitle: 'New title',
        supportedFeatures: ['polls'],
        updatedAt: expect.stringMatching(ISO_DATE),
      });
      expect((await t.http.get(`/projects/${project._id}`, auth())).body).toEqual(res.body);
    });

    it('null clears an optional text field; an empty body changes nothing', async () => {
      const project = await createProject(channelId, { description: 'to clear', categoryId: 'music' });
      const cleared = await t.http.put(`/projects/${project._id}`, { description: null }, auth());
      expect(cleared.status).toBe(200);
      expect(cleared.body).toMatchObject({ description: null, categoryId: 'music' });
      const same = await t.http.put(`/projects/${project._id}`, {}, auth());
      expect(same.status).toBe(200);
      expect(same.body).toMatchObject({ description: null, categoryId: 'music', primaryTitle: project.primaryTitle });
    });

    it.each([
      ['primaryTitle', null],
      ['primaryTitle', '   '],
      ['projectTypeId', null],
      ['projectTypeId', 'movie'],
      ['status', 'gone'],
      ['access', null],
      ['supportedModes', ['sing']],
      ['landscapeImg', 'nope'],
      ['channelId', 'nope'],
      ['channelId', null],
      ['updatedAt', '2020-01-01T00:00:00.000Z'],
    ])('rejects %s = %j and changes nothing', async (field, value) => {
      const project = await createProject(channelId);
      expectValidationError(await t.http.put(`/projects/${project._id}`, { [field]: value }, auth()), field);
      expect((await t.http.get(`/projects/${project._id}`, auth())).body).toEqual(project);
    });

    it('unknown is 404, malformed is 400, no token is 401', async () => {
      expectNotFound(await t.http.put(`/projects/${UNKNOWN_ID}`, { status: 'archived' }, auth()), 'Project not found');
      expectError(
        await t.http.put('/projects/xyz', { status: 'archived' }, auth()),
        400,
        /projectId must be a valid id/,
      );
      expectUnauthorized(await t.http.put(`/projects/${UNKNOWN_ID}`, { status: 'archived' }));
    });

    it("moving to another channel moves its id between the channels' projectIds", async () => {
      const from = await createChannel();
      const to = await createChannel();
      const project = await createProject(from);
      expect(await channelProjectIds(from)).toEqual([project._id]);

      const res = await t.http.put(`/projects/${project._id}`, { channelId: to, status: 'archived' }, auth());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ channelId: to, status: 'archived' });
      expect(await channelProjectIds(from)).toEqual([]);
      expect(await channelProjectIds(to)).toEqual([project._id]);
      expect(await storedProjectIds(from)).toEqual([]);
      expect(await storedProjectIds(to)).toEqual([project._id]);
      expect((await t.http.get(`/channels/${from}/projects`, auth())).body).toEqual([]);
      expect((await t.http.get(`/channels/${to}/projects`, auth())).body.map((p: { _id: string }) => p._id)).toEqual([
        project._id,
      ]);

      const stay = await t.http.put(`/projects/${project._id}`, { channelId: to }, auth());
      expect(stay.status).toBe(200);
      expect(await channelProjectIds(to)).toEqual([project._id]);
    });

    it('moving to an unknown channel is 404 and changes nothing', async () => {
      const project = await createProject(channelId);
      const res = await t.http.put(`/projects/${project._id}`, { channelId: UNKNOWN_ID, status: 'published' }, auth());
      expectNotFound(res, 'Channel not found');
      expect((await t.http.get(`/projects/${project._id}`, auth())).body).toEqual(project);
      expect(await channelProjectIds(channelId)).toContain(project._id);
    });
  });

  describe('DELETE /projects/:projectId', () => {
    it('deletes the project and removes its id from the channel', async () => {
      const project = await createProject(channelId);
      const res = await t.http.delete(`/projects/${project._id}`, auth());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Project deleted' });
      expectNotFound(await t.http.get(`/projects/${project._id}`, auth()), 'Project not found');
      expect(await t.db.collection('projects').countDocuments({ _id: new Types.ObjectId(project._id as string) })).toBe(
        0,
      );
      expect(await channelProjectIds(channelId)).not.toContain(project._id);
      expect(await storedProjectIds(channelId)).not.toContain(project._id);
      expectNotFound(await t.http.delete(`/projects/${project._id}`, auth()), 'Project not found');
    });

    it('costs the database commands it needs: the tree lease, the children and assets checks, a read of the project for its channel role and one for its delete', async () => {
      const project = await createProject(channelId);
      const { count, names } = await commandsOf(t, () => t.http.delete(`/projects/${project._id}`, auth()));
      const times = (name: string) => names.filter((sent) => sent === name).length;
      // The project read by the access guard (where it sits: the channel role a delete of it needs), read again before the
      // lease, its children under it, and the read its recorded delete makes (no empty batch after it).
      expect(times('find projects')).toBe(4);
      expect(times('delete projects')).toBe(1);
      expect([times('insert leases'), times('delete leases')]).toEqual([1, 1]);
      // Whether it holds assets (409 without cascade), and the assets of what was deleted.
      expect(times('find assets')).toBe(2);
      // Tenancy 2, the token's user read fresh 1 (a reset ends it at once), the developer's channel role 1, the project 4 + 1,
      // the lease 2, assets 2, sharing 2, the channel 2, the outbox's own 4 and the deletion's settle 1.
      expect(count).toBeLessThanOrEqual(22);
    });

    it('malformed is 400, no token is 401', async () => {
      expectError(await t.http.delete('/projects/not-an-id', auth()), 400);
      expectUnauthorized(await t.http.delete(`/projects/${UNKNOWN_ID}`));
    });
  });

  describe('deleting a channel', () => {
    it('deletes its projects and only its projects', async () => {
      const doomed = await createChannel();
      const survivor = await createChannel();
      const projects = [await createProject(doomed), await createProject(doomed), await createProject(doomed)];
      const kept = await createProject(survivor);

      expect((await t.http.delete(`/channels/${doomed}`, auth())).status).toBe(200);
      for (const project of projects) {
        expectNotFound(await t.http.get(`/projects/${project._id}`, auth()), 'Project not found');
      }
      expect(await t.db.collection('projects').countDocuments({ channelId: new Types.ObjectId(doomed) })).toBe(0);
      expect((await t.http.get(`/projects/${kept._id}`, auth())).status).toBe(200);
      expectNotFound(await t.http.get(`/channels/${doomed}/projects`, auth()), 'Channel not found');
    });
  });

  describe("a channel's projectIds in its events", () => {
    /**
     * What adding one project writes for events: the outboxes it leaves when its process stops before
     * publishing (the project's and the channel's, as stored), then the events the sweep lists.
     */
    async function addOne(channel: string): Promise<{ outboxBytes: number; eventBytes: number; types: string[] }> {
      const before = new Set(
        (
          await t.db
            .collection('events')
            .find({}, { projection: { _id: 1 } })
            .toArray()
        ).map((e) => String(e._id)),
      );
      jest.spyOn(EventsRepository.prototype, 'recordMany').mockRejectedValueOnce(new Error('process stopped here'));
      const project = await createProject(channel, { primaryTitle: 'Same title' });
      jest.restoreAllMocks();
      const outboxOf = async (collection: string, id: string) =>
        JSON.stringify((await t.db.collection(collection).findOne({ _id: new Types.ObjectId(id) }))?.outbox ?? [])
          .length;
      const outboxBytes = (await outboxOf('projects', project._id)) + (await outboxOf('channels', channel));
      await t.app.get(EventRelay).sweep(0);
      const written = (await t.db.collection('events').find({}).toArray()).filter((e) => !before.has(String(e._id)));
      return {
        outboxBytes,
        eventBytes: written.reduce((sum, event) => sum + (event.body as string).length, 0),
        types: written.map((event) => event.type as string),
      };
    }

    it('adding the 50th project writes no more event or outbox bytes than adding the 1st: the list is in no event', async () => {
      const channel = await createChannel();
      const first = await addOne(channel);
      // The project's own event says it joined the channel; no channel.updated copies the list.
      expect(first.types).toEqual(['project.created']);
      for (let i = 2; i < 50; i++) await createProject(channel, { primaryTitle: 'Same title' });
      const fiftieth = await addOne(channel);
      expect(fiftieth.types).toEqual(['project.created']);
      expect(fiftieth.eventBytes).toBeLessThanOrEqual(first.eventBytes);
      expect(fiftieth.outboxBytes).toBeLessThanOrEqual(first.outboxBytes);
      // The channel's answer still lists them all.
      expect(await channelProjectIds(channel)).toHaveLength(50);
      // Its own outbox (channel.created) is emptied off the request, within a second of being recorded.
      const read = () => t.db.collection('channels').findOne({ _id: new Types.ObjectId(channel) });
      expect(await pollUntil(async () => !(await read())?.outbox, 10_000, 100)).toBe(true);
    });

    it("a channel's own change still records channel.updated, with the list as its GET answers it", async () => {
      const channel = await createChannel();
      const project = await createProject(channel);
      const renamed = await t.http.put(`/channels/${channel}`, { name: 'Renamed studio' }, auth());
      expect(renamed.status).toBe(200);
      const listed = await t.http.get('/v1/events?type=channel.updated&limit=100', { token: admin.token });
      const updated = (
        listed.body.data as { data: { object: Record<string, unknown>; previousAttributes: object } }[]
      ).filter((event) => event.data.object._id === channel);
      expect(updated).toHaveLength(1);
      expect(updated[0].data.object).toMatchObject({ name: 'Renamed studio', projectIds: [project._id] });
      expect(Object.keys(updated[0].data.previousAttributes).sort()).toEqual(['name', 'updatedAt']);
    });
  });

  describe('the tree', () => {
    let treeChannel: string;

    const child = (parent: Record<string, any>, title = 'Child') =>
      createProject(String(parent.channelId), { parentId: parent._id, primaryTitle: title });
    /** A chain of `levels` projects in a fresh channel, the top first. */
    const chain = async (levels: number, channel?: string): Promise<Record<string, any>[]> => {
      const projects = [await createProject(channel ?? (await createChannel()), { primaryTitle: 'L1' })];
      for (let level = 2; level <= levels; level++)
        projects.push(await child(projects[projects.length - 1], `L${level}`));
      return projects;
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
      treeChannel = await createChannel();
    });

    it('creates a sub-project under a parent of the same channel; the channel lists it too', async () => {
      const top = await createProject(treeChannel, { primaryTitle: 'Top' });
      const res = await t.http.post(
        `/channels/${treeChannel}/projects`,
        { primaryTitle: 'Sub', projectTypeId: 'show', parentId: top._id },
        auth(),
      );
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ parentId: top._id, channelId: treeChannel, primaryTitle: 'Sub' });
      const stored = await t.db.collection('projects').findOne({ _id: new Types.ObjectId(res.body._id) });
      expect(stored?.parentId).toEqual(new Types.ObjectId(top._id));
      expect(await channelProjectIds(treeChannel)).toEqual(expect.arrayContaining([top._id, res.body._id]));
      expect((await t.http.get(`/projects/${res.body._id}`, auth())).body.parentId).toBe(top._id);
    });

    it('refuses a parent of another channel (422), an unknown parent (404), a malformed one (400)', async () => {
      const elsewhere = await createProject(await createChannel());
      const before = await t.db.collection('projects').countDocuments();
      expectError(
        await t.http.post(
          `/channels/${treeChannel}/projects`,
          { primaryTitle: 'X', projectTypeId: 'album', parentId: elsewhere._id },
          auth(),
        ),
        422,
        'The parent project is in another channel',
      );
      expectNotFound(
        await t.http.post(
          `/channels/${treeChannel}/projects`,
          { primaryTitle: 'X', projectTypeId: 'album', parentId: UNKNOWN_ID },
          auth(),
        ),
        'Parent project not found',
      );
      expectValidationError(
        await t.http.post(
          `/channels/${treeChannel}/projects`,
          { primaryTitle: 'X', projectTypeId: 'album', parentId: 'nope' },
          auth(),
        ),
        'parentId',
      );
      expect(await t.db.collection('projects').countDocuments()).toBe(before);
    });

    it('allows 4 levels and refuses a fifth with 422', async () => {
      const [, , , fourth] = await chain(4);
      expect(fourth.primaryTitle).toBe('L4');
      const res = await t.http.post(
        `/channels/${fourth.channelId}/projects`,
        { primaryTitle: 'L5', projectTypeId: 'album', parentId: fourth._id },
        auth(),
      );
      expectError(res, 422, 'A project tree has at most 4 levels');
      expect(
        await t.db.collection('projects').countDocuments({ parentId: new Types.ObjectId(fourth._id as string) }),
      ).toBe(0);
    });

    it('lists the children, paged with X-Total-Count and filtered', async () => {
      const top = await createProject(treeChannel, { primaryTitle: 'Parent' });
      const kids = [await child(top, 'A'), await child(top, 'B'), await child(top, 'C')];
      await t.http.put(`/projects/${kids[1]._id}`, { status: 'published' }, auth());
      await child(kids[0], 'Grandchild');

      const all = await t.http.get(`/projects/${top._id}/children`, auth());
      expect(all.status).toBe(200);
      expect(all.headers.get('x-total-count')).toBe('3');
      expect(all.body.map((p: { _id: string }) => p._id)).toEqual(kids.map((p) => p._id));
      const page = await t.http.get(`/projects/${top._id}/children?limit=1&skip=1`, auth());
      expect(page.headers.get('x-total-count')).toBe('3');
      expect(page.body.map((p: { _id: string }) => p._id)).toEqual([kids[1]._id]);
      const published = await t.http.get(`/projects/${top._id}/children?status=published`, auth());
      expect(published.body.map((p: { _id: string }) => p._id)).toEqual([kids[1]._id]);
      expect(published.headers.get('x-total-count')).toBe('1');
      const leaf = await t.http.get(`/projects/${kids[2]._id}/children`, auth());
      expect(leaf.body).toEqual([]);
      expect(leaf.headers.get('x-total-count')).toBe('0');
      expectNotFound(await t.http.get(`/projects/${UNKNOWN_ID}/children`, auth()), 'Project not found');
      expectError(await t.http.get('/projects/nope/children', auth()), 400);
      expectUnauthorized(await t.http.get(`/projects/${top._id}/children`));
    });

    it('reads the tree to the bottom, the project first, then level by level', async () => {
      const [l1, l2, l3, l4] = await chain(4);
      const side = await child(l1, 'Side');
      const res = await t.http.get(`/projects/${l1._id}/tree`, auth());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        nodes: [
          { _id: l1._id, parentId: null, depth: 0, primaryTitle: 'L1', projectTypeId: 'album', status: 'draft' },
          { _id: l2._id, parentId: l1._id, depth: 1, primaryTitle: 'L2', projectTypeId: 'album', status: 'draft' },
          { _id: side._id, parentId: l1._id, depth: 1, primaryTitle: 'Side', projectTypeId: 'album', status: 'draft' },
          { _id: l3._id, parentId: l2._id, depth: 2, primaryTitle: 'L3', projectTypeId: 'album', status: 'draft' },
          { _id: l4._id, parentId: l3._id, depth: 3, primaryTitle: 'L4', projectTypeId: 'album', status: 'draft' },
        ],
      });
      const sub = await t.http.get(`/projects/${l3._id}/tree`, auth());
      expect(sub.body.nodes.map((node: { _id: string; depth: number }) => [node._id, node.depth])).toEqual([
        [l3._id, 0],
        [l4._id, 1],
      ]);
      expectNotFound(await t.http.get(`/projects/${UNKNOWN_ID}/tree`, auth()), 'Project not found');
    });

    it('answers 422 for a tree over 1,000 projects, telling to page the children', async () => {
      const top = await createProject(await createChannel(), { primaryTitle: 'Big' });
      const parentId = new Types.ObjectId(top._id as string);
      const stored = await t.db.collection('projects').findOne({ _id: parentId });
      const { _id, ...fields } = stored!;
      // Inserted straight into the collection: 1,000 requests would only make the test slow.
      await t.db
        .collection('projects')
        .insertMany(Array.from({ length: 1000 }, (_, i) => ({ ...fields, parentId, primaryTitle: `N${i}` })));
      const res = await t.http.get(`/projects/${top._id}/tree`, auth());
      expectError(
        res,
        422,
        'The tree holds more than 1000 projects; read it level by level with GET /projects/{projectId}/children',
      );
      const page = await t.http.get(`/projects/${top._id}/children?limit=5`, auth());
      expect(page.headers.get('x-total-count')).toBe('1000');
    });

    it('moves a subtree under another parent, and back to the top with null', async () => {
      const a = await createProject(treeChannel, { primaryTitle: 'A' });
      const b = await createProject(treeChannel, { primaryTitle: 'B' });
      const bChild = await child(b, 'B1');
      const moved = await t.http.put(`/projects/${b._id}`, { parentId: a._id, primaryTitle: 'B moved' }, auth());
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ parentId: a._id, primaryTitle: 'B moved' });
      const tree = await t.http.get(`/projects/${a._id}/tree`, auth());
      expect(tree.body.nodes.map((node: { _id: string }) => node._id)).toEqual([a._id, b._id, bChild._id]);
      expect(await eventTypesOf(b._id)).toContain('project.updated');

      const top = await t.http.put(`/projects/${b._id}`, { parentId: null }, auth());
      expect(top.status).toBe(200);
      expect(top.body.parentId).toBeNull();
      expect(
        (await t.db.collection('projects').findOne({ _id: new Types.ObjectId(b._id as string) }))?.parentId,
      ).toBeNull();
    });

    it('refuses a move that makes a cycle, goes deeper than 4 levels, or to a parent of another channel (422), changing nothing', async () => {
      const [l1, l2, l3] = await chain(3);
      expectError(
        await t.http.put(`/projects/${l1._id}`, { parentId: l1._id }, auth()),
        422,
        'A project cannot move under itself or one of its sub-projects',
      );
      expectError(
        await t.http.put(`/projects/${l1._id}`, { parentId: l3._id }, auth()),
        422,
        'A project cannot move under itself or one of its sub-projects',
      );
      // l2's subtree is 2 levels: under a project at level 3 it would reach level 5.
      const [, , deep] = await chain(3, String(l1.channelId));
      expectError(
        await t.http.put(`/projects/${l2._id}`, { parentId: deep._id }, auth()),
        422,
        'A project tree has at most 4 levels',
      );
      const elsewhere = await createProject(await createChannel());
      expectError(
        await t.http.put(`/projects/${l3._id}`, { parentId: elsewhere._id }, auth()),
        422,
        'The parent project is in another channel',
      );
      expectNotFound(
        await t.http.put(`/projects/${l3._id}`, { parentId: UNKNOWN_ID }, auth()),
        'Parent project not found',
      );
      const stored = await t.db
        .collection('projects')
        .find({ _id: { $in: [l1, l2, l3].map((p) => new Types.ObjectId(p._id as string)) } })
        .toArray();
      expect(stored.map((p) => (p.parentId ? String(p.parentId) : null)).sort()).toEqual([null, l1._id, l2._id].sort());
    });

    it('moving to another channel makes a leaf top-level there; one with sub-projects stays (422)', async () => {
      const [l1, l2] = await chain(2);
      const other = await createChannel();
      expectError(
        await t.http.put(`/projects/${l1._id}`, { channelId: other }, auth()),
        422,
        'A project with sub-projects does not move to another channel; move or delete its sub-projects first',
      );
      const moved = await t.http.put(`/projects/${l2._id}`, { channelId: other }, auth());
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ channelId: other, parentId: null });
      expect(await channelProjectIds(other)).toContain(l2._id);
      expect(await channelProjectIds(String(l1.channelId))).not.toContain(l2._id);
    });

    it('two crossing moves never make a cycle', async () => {
      for (let round = 0; round < 4; round++) {
        const a = await createProject(treeChannel, { primaryTitle: `X${round}` });
        const b = await createProject(treeChannel, { primaryTitle: `Y${round}` });
        const [ab, ba] = await Promise.all([
          t.http.put(`/projects/${a._id}`, { parentId: b._id }, auth()),
          t.http.put(`/projects/${b._id}`, { parentId: a._id }, auth()),
        ]);
        // The second move is refused: as a cycle once the first has landed (422), or, on a machine so
        // slow that the first holds the channel's tree lease past the wait, as busy (409).
        const [won, lost] = ab.status === 200 ? [ab, ba] : [ba, ab];
        expect(won.status).toBe(200);
        expect([422, 409]).toContain(lost.status);
        if (lost.status === 409)
          expect(lost.body.message).toBe(
            "Another change of this channel's project tree is in progress; retry the request",
          );
        const stored = await t.db
          .collection('projects')
          .find({ _id: { $in: [a, b].map((p) => new Types.ObjectId(p._id as string)) } })
          .toArray();
        expect(stored.filter((p) => p.parentId === null)).toHaveLength(1);
      }
    });

    it("archiving a project keeps its sub-projects' own statuses", async () => {
      const [l1, l2, l3] = await chain(3);
      await t.http.put(`/projects/${l2._id}`, { status: 'published' }, auth());
      expect((await t.http.put(`/projects/${l1._id}`, { status: 'archived' }, auth())).body.status).toBe('archived');
      const tree = await t.http.get(`/projects/${l1._id}/tree`, auth());
      expect(tree.body.nodes.map((node: { status: string }) => node.status)).toEqual([
        'archived',
        'published',
        'draft',
      ]);
      expect((await t.http.get(`/projects/${l3._id}`, auth())).body.status).toBe('draft');
    });

    it('a project with sub-projects answers 409 to DELETE; cascade=true deletes the subtree, one project.deleted each', async () => {
      const [l1, l2, l3, l4] = await chain(4);
      const side = await child(l2, 'Side');
      const channel = String(l1.channelId);
      expectError(
        await t.http.delete(`/projects/${l2._id}`, auth()),
        409,
        'The project has sub-projects; delete with ?cascade=true to delete them with it',
      );
      expect((await t.http.get(`/projects/${l2._id}`, auth())).status).toBe(200);
      expectValidationError(await t.http.delete(`/projects/${l2._id}?cascade=yes`, auth()), 'cascade');

      const res = await t.http.delete(`/projects/${l2._id}?cascade=true`, auth());
      expect(res.status).toBe(200);
      for (const gone of [l2, l3, l4, side]) {
        expectNotFound(await t.http.get(`/projects/${gone._id}`, auth()), 'Project not found');
        expect(await eventTypesOf(gone._id)).toEqual(expect.arrayContaining(['project.deleted']));
        expect((await eventTypesOf(gone._id)).filter((type) => type === 'project.deleted')).toHaveLength(1);
      }
      expect((await t.http.get(`/projects/${l1._id}`, auth())).status).toBe(200);
      expect(await channelProjectIds(channel)).toEqual([l1._id]);
      // A leaf needs no cascade.
      expect((await t.http.delete(`/projects/${l1._id}`, auth())).status).toBe(200);
    });

    it('deleting a channel still deletes its whole tree', async () => {
      const [l1, l2, l3] = await chain(3);
      expect((await t.http.delete(`/channels/${l1.channelId}`, auth())).status).toBe(200);
      for (const gone of [l1, l2, l3])
        expectNotFound(await t.http.get(`/projects/${gone._id}`, auth()), 'Project not found');
    });
  });

  describe('GET /channels/:channelId/projects', () => {
    let listChannel: string;
    let all: Record<string, any>[];

    beforeAll(async () => {
      listChannel = await createChannel();
      all = [
        await createProject(listChannel, { primaryTitle: 'Morning Show', projectTypeId: 'show', status: 'published' }),
        await createProject(listChannel, {
          primaryTitle: 'Evening',
          description: 'A calm SHOW for night owls',
          projectTypeId: 'podcasts',
        }),
        await createProject(listChannel, {
          primaryTitle: 'C++ (live) sessions',
          projectTypeId: 'playlist',
          access: 'permissions',
          status: 'archived',
        }),
        await createProject(listChannel, {
          primaryTitle: 'Album One',
          projectTypeId: 'album',
          access: 'linkPrivate',
          status: 'published',
        }),
        await createProject(listChannel, { primaryTitle: 'Draft idea', projectTypeId: 'project' }),
      ];
      await createProject(channelId, { primaryTitle: 'Another channel show', projectTypeId: 'show' });
    });

    const ids = (res: { body: { _id: string }[] }) => res.body.map((project) => project._id);
    const list = (query = '') => t.http.get(`/channels/${listChannel}/projects${query}`, auth());

    it("returns the channel's projects as a plain array with X-Total-Count", async () => {
      const res = await list();
      expect(res.status).toBe(200);
      expect(res.body).toEqual(all);
      expect(res.headers.get('x-total-count')).toBe('5');
    });

    it.each([
      ['?status=published', [0, 3]],
      ['?status=draft', [1, 4]],
      ['?projectTypeId=show', [0]],
      ['?access=public', [0, 1, 4]],
      ['?access=permissions&status=archived', [2]],
      ['?q=show', [0, 1]],
      ['?q=SHOW&status=published', [0]],
      ['?q=c%2B%2B%20(', [2]],
      ['?q=.*', []],
      ['?q=%5E', []],
      ['?q=night%20owls', [1]],
    ])('filters %s', async (query, expected) => {
      const res = await list(query);
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(expected.map((index) => all[index]._id));
      expect(res.headers.get('x-total-count')).toBe(String(expected.length));
    });

    it('pages with limit and skip, the total unchanged', async () => {
      const res = await list('?limit=2&skip=2');
      expect(ids(res)).toEqual([all[2]._id, all[3]._id]);
      expect(res.headers.get('x-total-count')).toBe('5');
      const filtered = await list('?status=published&limit=1&skip=1');
      expect(ids(filtered)).toEqual([all[3]._id]);
      expect(filtered.headers.get('x-total-count')).toBe('2');
    });

    it.each([
      ['status', 'live'],
      ['projectTypeId', 'movie'],
      ['access', 'secret'],
      ['limit', '0'],
      ['limit', '501'],
      ['skip', '-5'],
      ['skip', 'x'],
      ['owner', 'me'],
    ])('rejects %s=%s', async (field, value) => {
      expectValidationError(await list(`?${field}=${value}`), field);
    });

    it('rejects a repeated filter', async () => {
      expectValidationError(await list('?status=draft&status=published'), 'status');
    });

    it('unknown channel is 404, malformed is 400, no token is 401', async () => {
      expectNotFound(await t.http.get(`/channels/${UNKNOWN_ID}/projects`, auth()), 'Channel not found');
      expectError(await t.http.get('/channels/xyz/projects', auth()), 400);
      expectUnauthorized(await t.http.get(`/channels/${listChannel}/projects`));
    });
  });

  it('documents every project route with its operation id', async () => {
    const doc = (await t.http.get('/docs-json')).body;
    const operations = [
      ['/channels/{channelId}/projects', 'post', 'createProject', '201'],
      ['/channels/{channelId}/projects', 'get', 'listChannelProjects', '200'],
      ['/projects/{projectId}', 'get', 'getProject', '200'],
      ['/projects/{projectId}', 'put', 'updateProject', '200'],
      ['/projects/{projectId}', 'delete', 'deleteProject', '200'],
    ];
    for (const [path, method, operationId, success] of operations) {
      const operation = doc.paths[path]?.[method];
      expect(operation?.operationId).toBe(operationId);
      expect(Object.keys(operation.responses)).toEqual(
        expect.arrayContaining([success, '400', '401', '404', '500', '503']),
      );
    }
    expect(doc.paths['/channels/{channelId}/projects'].get.responses['200'].headers['X-Total-Count']).toBeDefined();
    const statusParam = doc.paths['/channels/{channelId}/projects'].get.parameters.find(
      (p: { name: string }) => p.name === 'status',
    );
    expect(statusParam.schema.enum).toEqual(['draft', 'published', 'archived']);
  });
});
