import { createFirstAdmin, createStaff, TestUser } from '../support/auth';
import { expectError, expectNotFound, expectValidationError } from '../support/expect-error';
import type { RequestOptions } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

const ALL_APIS = [
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
const PROJECT_FIELDS = ['createdAt', 'enabledApis', 'id', 'isDefault', 'name', 'updatedAt'];
const PROJECTS = '/api/v1/platform/projects';
const UNKNOWN_ID = '6650c0ffee00000000000bad';

describe('platform projects', () => {
  let t: TestApp;
  let admin: TestUser;
  let manager: TestUser;
  let developer: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = await createTestApp({ LOGIN_MAX_FAILURES: '1000' });
    ({ admin, manager, developer } = await createStaff(t.http));
    stranger = await createFirstAdmin(t.http);
  });
  afterAll(() => t.close());

  async function createProject(
    body: Record<string, unknown> = { name: 'Side project' },
    as: TestUser = admin,
  ): Promise<string> {
    const res = await t.http.post(PROJECTS, body, { token: as.token });
    if (res.status !== 201) throw new Error(`project create failed: ${res.status} ${res.text}`);
    return res.body.data.id;
  }

  /** The user's token, acting in `projectId`. */
  function inProject(user: TestUser, projectId: string): RequestOptions {
    return { token: user.token, headers: { 'x-project-id': projectId } };
  }

  describe('list and read', () => {
    it("lists the account's projects to any member, the default first, in the contract's shape", async () => {
      for (const member of [admin, manager, developer]) {
        const res = await t.http.get(PROJECTS, { token: member.token });
        expect(res.status).toBe(200);
        expect(Object.keys(res.body)).toEqual(['data']);
        const [first] = res.body.data;
        expect(Object.keys(first).sort()).toEqual(PROJECT_FIELDS);
        expect(first).toMatchObject({
          id: admin.projectId,
          name: 'Default project',
          enabledApis: ALL_APIS,
          isDefault: true,
        });
        expect(new Date(first.createdAt).toISOString()).toBe(first.createdAt);
      }
    });

    it('gets one project to any member', async () => {
      const res = await t.http.get(`${PROJECTS}/${admin.projectId}`, { token: developer.token });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: admin.projectId, isDefault: true });
    });

    it("answers another account's project exactly as an unknown id: 404 Platform project not found", async () => {
      for (const [method, body] of [['GET'], ['PATCH', { name: 'Taken' }], ['DELETE']] as const) {
        const foreign = await t.http.request(method, `${PROJECTS}/${stranger.projectId}`, body, { token: admin.token });
        const unknown = await t.http.request(method, `${PROJECTS}/${UNKNOWN_ID}`, body, { token: admin.token });
        expectNotFound(foreign, 'Platform project not found');
        expect(foreign.body).toEqual(unknown.body);
      }
      const list = await t.http.get(PROJECTS, { token: admin.token });
      expect(list.text).not.toContain(stranger.projectId);
      const stillThere = await t.http.get(`${PROJECTS}/${stranger.projectId}`, { token: stranger.token });
      expect(stillThere.body.data).toMatchObject({ name: 'Default project' });
    });

    it('refuses a malformed id with 400', async () => {
      expectError(await t.http.get(`${PROJECTS}/not-an-id`, { token: admin.token }), 400);
    });
  });

  describe('create and update', () => {
    it('creates a project with every API enabled by default (admin)', async () => {
      const res = await t.http.post(PROJECTS, { name: '  Mobile app  ' }, { token: admin.token });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body.data).sort()).toEqual(PROJECT_FIELDS);
      expect(res.body.data).toMatchObject({ name: 'Mobile app', enabledApis: ALL_APIS, isDefault: false });
      const stored = await t.db.collection('platform_projects').findOne({ name: 'Mobile app' });
      expect(String(stored?.accountId)).toBe(admin.accountId);
    });

    it('keeps the enabled APIs asked for, in the fixed order', async () => {
      const res = await t.http.post(
        PROJECTS,
        { name: 'Finance only', enabledApis: ['payments', 'customers'] },
        { token: admin.token },
      );
      expect(res.status).toBe(201);
      expect(res.body.data.enabledApis).toEqual(['customers', 'payments']);
    });

    it('refuses unknown API names, repeats, a blank name and unknown fields with 400', async () => {
      expectValidationError(
        await t.http.post(PROJECTS, { name: 'X', enabledApis: ['customers', 'invoices'] }, { token: admin.token }),
        'enabledApis',
      );
      expectValidationError(
        await t.http.post(PROJECTS, { name: 'X', enabledApis: ['cards', 'cards'] }, { token: admin.token }),
        'enabledApis',
      );
      expectValidationError(
        await t.http.post(PROJECTS, { name: 'X', enabledApis: 'cards' }, { token: admin.token }),
        'enabledApis',
      );
      expectValidationError(await t.http.post(PROJECTS, { name: '   ' }, { token: admin.token }), 'name');
      expectValidationError(
        await t.http.post(PROJECTS, { name: 'X', isDefault: true }, { token: admin.token }),
        'isDefault',
      );
      expectValidationError(
        await t.http.post(PROJECTS, { name: 'X', accountId: stranger.accountId }, { token: admin.token }),
        'accountId',
      );
      const id = await createProject();
      expectValidationError(
        await t.http.patch(`${PROJECTS}/${id}`, { enabledApis: ['nope'] }, { token: admin.token }),
        'enabledApis',
      );
    });

    it('renames a project and changes its enabled APIs (admin)', async () => {
      const id = await createProject();
      const res = await t.http.patch(
        `${PROJECTS}/${id}`,
        { name: 'Renamed', enabledApis: ['clients'] },
        { token: admin.token },
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id, name: 'Renamed', enabledApis: ['clients'], isDefault: false });
      const read = await t.http.get(`${PROJECTS}/${id}`, { token: developer.token });
      expect(read.body.data).toEqual(res.body.data);
    });

    it('lets only admins and the owner create, update and delete (developer and manager: 403)', async () => {
      const id = await createProject();
      for (const member of [developer, manager]) {
        expectError(
          await t.http.post(PROJECTS, { name: 'Nope' }, { token: member.token }),
          403,
          'This operation needs the role admin',
        );
        expectError(
          await t.http.patch(`${PROJECTS}/${id}`, { name: 'Nope' }, { token: member.token }),
          403,
          'This operation needs the role admin',
        );
        expectError(
          await t.http.delete(`${PROJECTS}/${id}`, { token: member.token }),
          403,
          'This operation needs the role admin',
        );
      }
      expect((await t.http.get(`${PROJECTS}/${id}`, { token: admin.token })).body.data.name).toBe('Side project');
    });
  });

  describe('delete', () => {
    it('refuses to delete the default project (409)', async () => {
      expectError(
        await t.http.delete(`${PROJECTS}/${admin.projectId}`, { token: admin.token }),
        409,
        'The default project cannot be deleted',
      );
      expect((await t.http.get(`${PROJECTS}/${admin.projectId}`, { token: admin.token })).status).toBe(200);
    });

    it('deletes an empty project (200); it is then 404 and its API keys stop working', async () => {
      const id = await createProject();
      const key = (await t.http.post(`${PROJECTS}/${id}/keys`, { name: 'doomed' }, { token: admin.token })).body.data
        .key;
      expect((await t.http.get('/v1/customers', { token: key })).status).toBe(200);

      const res = await t.http.delete(`${PROJECTS}/${id}`, { token: admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Platform project deleted' });
      expectNotFound(await t.http.get(`${PROJECTS}/${id}`, { token: admin.token }), 'Platform project not found');
      expectNotFound(await t.http.get('/v1/customers', inProject(admin, id)), 'Platform project not found');
      expectError(await t.http.get('/v1/customers', { token: key }), 401, 'Invalid API key');
      expect(await t.db.collection('api_keys').countDocuments({ name: 'doomed' })).toBe(0);
    });

    it.each([
      ['a customer', '/v1/customers', { email: 'payer@example.com' }],
      ['a client', '/clients', { name: 'Acme', email: 'acme@example.com' }],
      ['a collection', '/collections', { name: 'Weather' }],
    ])('refuses to delete a project that holds %s: 409 Platform project is not empty', async (_what, path, body) => {
      const id = await createProject();
      expect((await t.http.post(path, body, inProject(admin, id))).status).toBe(201);
      expectError(
        await t.http.delete(`${PROJECTS}/${id}`, { token: admin.token }),
        409,
        'Platform project is not empty',
      );
      expect((await t.http.get(`${PROJECTS}/${id}`, { token: admin.token })).status).toBe(200);
    });

    it('counts records of a disabled API and soft-deleted records; empty again, the delete goes through', async () => {
      const id = await createProject();
      const customer = (await t.http.post('/v1/customers', { email: 'kept@example.com' }, inProject(admin, id))).body
        .data.id;
      const collection = (await t.http.post('/collections', { name: 'Archive' }, inProject(admin, id))).body.id;
      expect(
        (await t.http.patch(`/collections/${collection}/soft-delete`, undefined, inProject(admin, id))).status,
      ).toBe(200);
      await t.http.patch(`${PROJECTS}/${id}`, { enabledApis: ['collections'] }, { token: admin.token });
      expectError(
        await t.http.delete(`${PROJECTS}/${id}`, { token: admin.token }),
        409,
        'Platform project is not empty',
      );

      await t.http.patch(`${PROJECTS}/${id}`, { enabledApis: ALL_APIS }, { token: admin.token });
      expect((await t.http.delete(`/v1/customers/${customer}`, inProject(admin, id))).status).toBe(200);
      expectError(
        await t.http.delete(`${PROJECTS}/${id}`, { token: admin.token }),
        409,
        'Platform project is not empty',
      );
      expect((await t.http.delete(`/collections/${collection}`, inProject(admin, id))).status).toBe(200);
      expect((await t.http.delete(`${PROJECTS}/${id}`, { token: admin.token })).status).toBe(200);
    });
  });

  describe('enabled APIs', () => {
    it('a disabled API is 403 for users and keys, keeps its data, and shows it again once enabled', async () => {
      const id = await createProject();
      const key = (await t.http.post(`${PROJECTS}/${id}/keys`, { name: 'toggle' }, { token: admin.token })).body.data
        .key;
      const customer = (await t.http.post('/v1/customers', { email: 'toggle@example.com' }, inProject(admin, id))).body
        .data.id;
      const client = (await t.http.post('/clients', { name: 'Kept', email: 'kept@example.com' }, { token: key })).body
        .id;

      await t.http.patch(
        `${PROJECTS}/${id}`,
        { enabledApis: ['cards', 'payments', 'channels', 'projects', 'collections'] },
        { token: admin.token },
      );
      for (const options of [inProject(developer, id), { token: key }]) {
        expectError(
          await t.http.get('/v1/customers', options),
          403,
          'The customers API is not enabled for this project',
        );
        expectError(
          await t.http.get(`/v1/customers/${customer}`, options),
          403,
          'The customers API is not enabled for this project',
        );
        expectError(
          await t.http.post('/v1/customers', { email: 'x@example.com' }, options),
          403,
          'The customers API is not enabled for this project',
        );
        expectError(
          await t.http.get(`/clients/${client}`, options),
          403,
          'The clients API is not enabled for this project',
        );
        expect((await t.http.get('/collections', options)).status).toBe(200);
      }
      // The default project is untouched.
      expect((await t.http.get('/v1/customers', { token: developer.token })).status).toBe(200);

      await t.http.patch(`${PROJECTS}/${id}`, { enabledApis: ALL_APIS }, { token: admin.token });
      for (const options of [inProject(developer, id), { token: key }]) {
        const list = await t.http.get('/v1/customers', options);
        expect(list.status).toBe(200);
        expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([customer]);
        const read = await t.http.get(`/clients/${client}`, options);
        expect(read.status).toBe(200);
        expect(read.body).toMatchObject({ name: 'Kept' });
      }
    });
  });

  describe('acting in a project (X-Project-Id)', () => {
    it("creates records in the named project only; the account's default does not see them", async () => {
      const id = await createProject();
      const created = await t.http.post('/v1/customers', { email: 'second@example.com' }, inProject(developer, id));
      expect(created.status).toBe(201);
      const customer = created.body.data.id;
      expect((await t.http.get(`/v1/customers/${customer}`, inProject(manager, id))).status).toBe(200);
      expectNotFound(await t.http.get(`/v1/customers/${customer}`, { token: developer.token }));
      expect((await t.http.get('/v1/customers', { token: developer.token })).text).not.toContain(customer);
    });

    it("answers another account's project or an unknown id in X-Project-Id with 404", async () => {
      expectNotFound(
        await t.http.get('/v1/customers', inProject(admin, stranger.projectId)),
        'Platform project not found',
      );
      expectNotFound(await t.http.get('/v1/customers', inProject(admin, UNKNOWN_ID)), 'Platform project not found');
      expectNotFound(await t.http.get('/v1/customers', inProject(admin, 'garbage')), 'Platform project not found');
    });
  });

  it('documents the routes, X-Project-Id and both security schemes on data routes', async () => {
    const document = (await t.http.get('/docs-json')).body;
    expect(document.components.securitySchemes.apiKey).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'sk_test_...',
    });
    // A user's bearer token, or the dashboard's session cookie.
    expect(document.security).toEqual([{ bearer: [] }, { session: [] }]);
    const ids = [
      'listPlatformProjects',
      'createPlatformProject',
      'getPlatformProject',
      'updatePlatformProject',
      'deletePlatformProject',
    ];
    const operations = Object.values(document.paths as Record<string, Record<string, any>>).flatMap((item) =>
      Object.values(item),
    );
    for (const operationId of ids) {
      const operation = operations.find((candidate) => candidate.operationId === operationId);
      expect(operation?.tags).toEqual(['platform projects']);
      expect(operation?.security).toBeUndefined();
      expect(operation?.responses['401']).toBeDefined();
    }
    const listCustomers = document.paths['/v1/customers'].get;
    expect(listCustomers.security).toEqual([{ bearer: [] }, { session: [] }, { apiKey: [] }]);
    const header = listCustomers.parameters.find((parameter: { name: string }) => parameter.name === 'X-Project-Id');
    expect(header).toMatchObject({ in: 'header', required: false, schema: { pattern: '^[0-9a-fA-F]{24}$' } });
    expect(header.description).toMatch(/an API key acts only in its own/);
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const operation of Object.values(item)) {
        const isData = (operation.security ?? []).some((requirement: object) => 'apiKey' in requirement);
        const hasHeader = (operation.parameters ?? []).some(
          (parameter: { name: string }) => parameter.name === 'X-Project-Id',
        );
        expect({ path, operationId: operation.operationId, hasHeader }).toEqual({
          path,
          operationId: operation.operationId,
          hasHeader: isData,
        });
        if (isData) expect(operation.security).toEqual([{ bearer: [] }, { session: [] }, { apiKey: [] }]);
      }
    }
  });
});
