import { Types } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { createFirstAdmin, createUser, TestUser } from '../support/auth';
import { expectError, expectNotFound, expectUnauthorized, expectValidationError } from '../support/expect-error';
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
    const res = await t.http.post(`/channels/${channel}/projects`, { primaryTitle: 'Blue Hours', projectTypeId: 'album', ...overrides }, auth());
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
    t = await createTestApp();
    admin = await createFirstAdmin(t.http);
    // Invited into the admin's account: both act in its default platform project.
    developer = await createUser(t.http, 'developer', admin.token);
    const client = await t.http.post('/clients', { name: 'Acme Media', email: 'acme@example.com' }, { token: admin.token });
    clientId = client.body.id;
    channelId = await createChannel();
  });
  afterAll(() => t.close());

  describe('POST /channels/:channelId/projects', () => {
    it('creates a project with 201, the defaults, and links it to the channel', async () => {
      const res = await t.http.post(`/channels/${channelId}/projects`, { primaryTitle: 'Blue Hours', projectTypeId: 'album' }, auth());
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
      expect(stored).toMatchObject({ channelId: new Types.ObjectId(channelId), primaryTitle: 'Blue Hours', status: 'draft' });
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
        supportedFeatures: ['comments', 'remix', 'like', 'likeDislikeVotes', 'polls', 'download', 'translate', 'entTranscribe', 'voiceover'],
      };
      const res = await t.http.post(`/channels/${channelId}/projects`, body, auth());
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ ...body, topicIds: ['ai', 'web'], supportedModes: ['read', 'listen', 'watch', 'chat', 'go'] });
      const read = await t.http.get(`/projects/${res.body._id}`, auth());
      expect(read.body).toEqual(res.body);
    });

    it('takes null as "none" on the optional text fields', async () => {
      const project = await createProject(channelId, { description: null, contentUploadType: null, portraitImg: null });
      expect(project).toMatchObject({ description: null, contentUploadType: null, portraitImg: null });
    });

    it('a channelId in the body must equal the path', async () => {
      const other = await createChannel();
      const res = await t.http.post(`/channels/${channelId}/projects`, { channelId: other, primaryTitle: 'X', projectTypeId: 'show' }, auth());
      expectError(res, 400, 'channelId in the body must match the channel in the path');
      expect(await t.db.collection('projects').countDocuments({ primaryTitle: 'X' })).toBe(0);
      expectValidationError(
        await t.http.post(`/channels/${channelId}/projects`, { channelId: 'nope', primaryTitle: 'X', projectTypeId: 'show' }, auth()),
        'channelId',
      );
      const same = await t.http.post(`/channels/${channelId}/projects`, { channelId: channelId.toUpperCase(), primaryTitle: 'Y', projectTypeId: 'show' }, auth());
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
      expectNotFound(await t.http.post(`/channels/${channelId}/projects`, { primaryTitle: 'Lost', projectTypeId: 'show', parentId: UNKNOWN_ID }, auth()), 'Parent project not found');
      expectError(await t.http.post(`/channels/${channelId}/projects`, { primaryTitle: 'Lost', projectTypeId: 'show', parentId: foreign._id }, auth()), 422, /another channel/);
      expectValidationError(await t.http.post(`/channels/${channelId}/projects`, { primaryTitle: 'Lost', projectTypeId: 'show', parentId: 'nope' }, auth()), 'parentId');
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
      const res = await t.http.put(`/projects/${project._id}`, { status: 'published', primaryTitle: 'New title', supportedFeatures: ['polls'] }, auth());
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
      expectError(await t.http.put('/projects/xyz', { status: 'archived' }, auth()), 400, /projectId must be a valid id/);
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
      expect((await t.http.get(`/channels/${to}/projects`, auth())).body.map((p: { _id: string }) => p._id)).toEqual([project._id]);

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
    it("deletes the project and removes its id from the channel", async () => {
      const project = await createProject(channelId);
      const res = await t.http.delete(`/projects/${project._id}`, auth());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Project deleted' });
      expectNotFound(await t.http.get(`/projects/${project._id}`, auth()), 'Project not found');
      expect(await t.db.collection('projects').countDocuments({ _id: new Types.ObjectId(project._id as string) })).toBe(0);
      expect(await channelProjectIds(channelId)).not.toContain(project._id);
      expect(await storedProjectIds(channelId)).not.toContain(project._id);
      expectNotFound(await t.http.delete(`/projects/${project._id}`, auth()), 'Project not found');
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

  describe('GET /channels/:channelId/projects', () => {
    let listChannel: string;
    let all: Record<string, any>[];

    beforeAll(async () => {
      listChannel = await createChannel();
      all = [
        await createProject(listChannel, { primaryTitle: 'Morning Show', projectTypeId: 'show', status: 'published' }),
        await createProject(listChannel, { primaryTitle: 'Evening', description: 'A calm SHOW for night owls', projectTypeId: 'podcasts' }),
        await createProject(listChannel, { primaryTitle: 'C++ (live) sessions', projectTypeId: 'playlist', access: 'permissions', status: 'archived' }),
        await createProject(listChannel, { primaryTitle: 'Album One', projectTypeId: 'album', access: 'linkPrivate', status: 'published' }),
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
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining([success, '400', '401', '404', '500', '503']));
    }
    expect(doc.paths['/channels/{channelId}/projects'].get.responses['200'].headers['X-Total-Count']).toBeDefined();
    const statusParam = doc.paths['/channels/{channelId}/projects'].get.parameters.find((p: { name: string }) => p.name === 'status');
    expect(statusParam.schema.enum).toEqual(['draft', 'published', 'archived']);
  });
});
