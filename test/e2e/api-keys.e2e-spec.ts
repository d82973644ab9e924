import { ObjectId } from 'mongodb';
import { createHash, randomBytes } from 'node:crypto';
import { Clock } from '../../src/common/clock/clock';
import { createFirstAdmin, createStaff, signupBody, TestUser, uniqueEmail } from '../support/auth';
import { pollUntil } from '../support/deadline';
import { expectError, expectNotFound, expectValidationError } from '../support/expect-error';
import type { HttpResponse, RequestOptions } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

const KEY_FIELDS = ['createdAt', 'expiresAt', 'id', 'kind', 'lastUsedAt', 'name', 'revokedAt', 'scopes', 'start'];
const PROJECTS = '/api/v1/platform/projects';
const UNKNOWN_ID = '6650c0ffee00000000000bad';
const HOUR = 3_600_000;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

describe('API keys', () => {
  let t: TestApp;
  let admin: TestUser;
  let manager: TestUser;
  let developer: TestUser;
  let stranger: TestUser;
  let secondProject: string;
  /** Every key secret and hash this suite has seen: none may show up in a later answer. */
  const secrets: string[] = [];
  const answers: HttpResponse[] = [];
  let clockOffset = 0;

  beforeAll(async () => {
    t = await createTestApp({ LOGIN_MAX_FAILURES: '1000', SIGNUP_MAX_PER_CLIENT: '1000' });
    ({ admin, manager, developer } = await createStaff(t.http));
    stranger = await createFirstAdmin(t.http);
    secondProject = (await t.http.post(PROJECTS, { name: 'Second' }, { token: admin.token })).body.data.id;
    // Time moves only when a test says so: no sleeping for expiry and grace periods.
    const clock = t.app.get(Clock);
    jest.spyOn(clock, 'now').mockImplementation(() => new Date(Date.now() + clockOffset));
  });
  afterEach(() => {
    clockOffset = 0;
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t.close();
  });

  /** Records the answer, so the last test can check that no key secret ever appeared again. */
  async function seen(response: Promise<HttpResponse>): Promise<HttpResponse> {
    const res = await response;
    answers.push(res);
    return res;
  }

  async function createKey(
    projectId = admin.projectId,
    body: Record<string, unknown> = { name: 'Server' },
    as: TestUser = admin,
  ) {
    const res = await t.http.post(`${PROJECTS}/${projectId}/keys`, body, { token: as.token });
    if (res.status !== 201) throw new Error(`key create failed: ${res.status} ${res.text}`);
    secrets.push(res.body.data.key, sha256(res.body.data.key));
    return res.body.data as {
      id: string;
      key: string;
      name: string;
      start: string;
      scopes: string[] | null;
      expiresAt: string | null;
    };
  }

  function withKey(key: string, headers: Record<string, string> = {}): RequestOptions {
    return { token: key, headers };
  }

  describe('managing keys', () => {
    it('creates a key shown once: sk_test_ and 43 base64url characters, stored only as its SHA-256', async () => {
      const res = await t.http.post(
        `${PROJECTS}/${admin.projectId}/keys`,
        { name: '  Checkout server  ' },
        { token: admin.token },
      );
      expect(res.status).toBe(201);
      const key = res.body.data;
      secrets.push(key.key, sha256(key.key));
      expect(Object.keys(key).sort()).toEqual([...KEY_FIELDS, 'key'].sort());
      expect(key).toMatchObject({
        name: 'Checkout server',
        kind: 'secret',
        scopes: null,
        expiresAt: null,
        revokedAt: null,
        lastUsedAt: null,
      });
      expect(key.key).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/);
      expect(key.start).toBe(key.key.slice(0, 12));

      const stored = await t.db.collection('api_keys').findOne({ name: 'Checkout server' });
      expect(stored).toMatchObject({
        hash: sha256(key.key),
        start: key.start,
        scopes: null,
        expiresAt: null,
        revokedAt: null,
      });
      expect(String(stored?.projectId)).toBe(admin.projectId);
      expect(String(stored?.accountId)).toBe(admin.accountId);
      expect(JSON.stringify(stored)).not.toContain(key.key.slice(12));
      const indexes = await t.db.collection('api_keys').indexes();
      expect(indexes.find((index) => index.key.hash === 1)).toMatchObject({ unique: true });
    });

    it('stores no answer of a key route for Idempotency-Key replays: the secret would sit in the database', async () => {
      const headers = { 'idempotency-key': `key-create-${randomBytes(4).toString('hex')}` };
      const res = await t.http.post(
        `${PROJECTS}/${secondProject}/keys`,
        { name: 'Idempotent' },
        { token: admin.token, headers },
      );
      expect(res.status).toBe(201);
      secrets.push(res.body.data.key, sha256(res.body.data.key));
      const stored = JSON.stringify(await t.db.collection('idempotency_keys').find({}).toArray());
      expect(stored).not.toContain(res.body.data.key);
    });

    it('lists keys newest first, with their start and never the key or its hash (admin only)', async () => {
      const older = await createKey(secondProject, { name: 'Older' });
      const newer = await createKey(secondProject, { name: 'Newer', scopes: ['payments', 'customers'] });
      const res = await seen(t.http.get(`${PROJECTS}/${secondProject}/keys`, { token: admin.token }));
      expect(res.status).toBe(200);
      expect(res.body.data.map((key: { id: string }) => key.id).slice(0, 2)).toEqual([newer.id, older.id]);
      for (const key of res.body.data) expect(Object.keys(key).sort()).toEqual(KEY_FIELDS);
      expect(res.body.data[0]).toMatchObject({ name: 'Newer', start: newer.start, scopes: ['customers', 'payments'] });
      expect(res.text).not.toContain(newer.key);
      expect(res.text).not.toContain(sha256(newer.key));
    });

    it('refuses developers and managers on every key route (403)', async () => {
      const key = await createKey();
      for (const member of [developer, manager]) {
        const as = { token: member.token };
        expectError(
          await t.http.get(`${PROJECTS}/${admin.projectId}/keys`, as),
          403,
          'This operation needs the role admin',
        );
        expectError(
          await t.http.post(`${PROJECTS}/${admin.projectId}/keys`, { name: 'x' }, as),
          403,
          'This operation needs the role admin',
        );
        expectError(
          await t.http.delete(`${PROJECTS}/${admin.projectId}/keys/${key.id}`, as),
          403,
          'This operation needs the role admin',
        );
        expectError(
          await t.http.post(`${PROJECTS}/${admin.projectId}/keys/${key.id}/roll`, {}, as),
          403,
          'This operation needs the role admin',
        );
      }
      expect((await t.http.get('/v1/customers', withKey(key.key))).status).toBe(200);
    });

    it("answers another account's project or key as unknown ids: 404", async () => {
      const foreignKey = await createKey(stranger.projectId, { name: 'Theirs' }, stranger);
      const as = { token: admin.token };
      for (const projectId of [stranger.projectId, UNKNOWN_ID]) {
        expectNotFound(await t.http.get(`${PROJECTS}/${projectId}/keys`, as), 'Platform project not found');
        expectNotFound(
          await t.http.post(`${PROJECTS}/${projectId}/keys`, { name: 'x' }, as),
          'Platform project not found',
        );
        expectNotFound(
          await t.http.delete(`${PROJECTS}/${projectId}/keys/${foreignKey.id}`, as),
          'Platform project not found',
        );
      }
      // A key of another project, even of the same account, is unknown under this project.
      const secondKey = await createKey(secondProject, { name: 'Second' });
      for (const keyId of [secondKey.id, foreignKey.id, UNKNOWN_ID]) {
        expectNotFound(await t.http.delete(`${PROJECTS}/${admin.projectId}/keys/${keyId}`, as), 'API key not found');
        expectNotFound(
          await t.http.post(`${PROJECTS}/${admin.projectId}/keys/${keyId}/roll`, {}, as),
          'API key not found',
        );
      }
      expect((await t.http.get('/v1/customers', withKey(foreignKey.key))).status).toBe(200);
      expect((await t.http.get('/v1/customers', withKey(secondKey.key))).status).toBe(200);
    });

    it('validates scopes (known, enabled in the project, not empty) and expiresAt (a future date-time): 400', async () => {
      const as = { token: admin.token };
      const keys = `${PROJECTS}/${secondProject}/keys`;
      expectValidationError(await t.http.post(keys, { name: 'x', scopes: ['customers', 'invoices'] }, as), 'scopes');
      expectValidationError(await t.http.post(keys, { name: 'x', scopes: [] }, as), 'scopes');
      expectValidationError(await t.http.post(keys, { name: 'x', scopes: ['cards', 'cards'] }, as), 'scopes');
      expectValidationError(await t.http.post(keys, { name: 'x', expiresAt: 'tomorrow' }, as), 'expiresAt');
      expectValidationError(
        await t.http.post(keys, { name: 'x', expiresAt: new Date(Date.now() - 1000).toISOString() }, as),
        'expiresAt',
        'expiresAt must be in the future',
      );
      expectValidationError(await t.http.post(keys, { scopes: ['cards'] }, as), 'name');
      expectValidationError(await t.http.post(keys, { name: 'x', projectId: admin.projectId }, as), 'projectId');

      const narrow = (await t.http.post(PROJECTS, { name: 'Cards only', enabledApis: ['cards'] }, as)).body.data.id;
      const res = await t.http.post(`${PROJECTS}/${narrow}/keys`, { name: 'x', scopes: ['cards', 'payments'] }, as);
      expectValidationError(res, 'scopes', 'scopes must be enabled in the project; not enabled: payments');
      expect(await t.db.collection('api_keys').countDocuments({ name: 'x' })).toBe(0);
    });

    it('revokes a key: 200 API key revoked, 401 from its next request on, revoking again answers the same', async () => {
      const key = await createKey();
      expect((await t.http.get('/v1/customers', withKey(key.key))).status).toBe(200);
      // The use's `lastUsedAt` is written off the request's path. FerretDB applies an update by reading
      // the document and writing it whole, so a revocation crossing that write could be lost there
      // (never on MongoDB, whose single-document updates are atomic): revoke once it has landed.
      expect(
        await pollUntil(
          async () =>
            (await t.db.collection('api_keys').findOne({ _id: { $in: [key.id, new ObjectId(key.id)] } } as object))
              ?.lastUsedAt != null,
          10_000,
        ),
      ).toBe(true);
      const res = await t.http.delete(`${PROJECTS}/${admin.projectId}/keys/${key.id}`, { token: admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'API key revoked' });
      expectError(await t.http.get('/v1/customers', withKey(key.key)), 401, 'Invalid API key');
      expect(
        (await t.http.delete(`${PROJECTS}/${admin.projectId}/keys/${key.id}`, { token: admin.token })).status,
      ).toBe(200);
      const listed = (
        await seen(t.http.get(`${PROJECTS}/${admin.projectId}/keys`, { token: admin.token }))
      ).body.data.find((candidate: { id: string }) => candidate.id === key.id);
      expect(new Date(listed.revokedAt).toISOString()).toBe(listed.revokedAt);
      expectError(
        await t.http.post(`${PROJECTS}/${admin.projectId}/keys/${key.id}/roll`, {}, { token: admin.token }),
        409,
      );
    });
  });

  describe('acting with a key', () => {
    it('creates and reads records in its own project only', async () => {
      const key = await createKey(secondProject, { name: 'Writer' });
      const created = await seen(t.http.post('/v1/customers', { email: 'by-key@example.com' }, withKey(key.key)));
      expect(created.status).toBe(201);
      const customer = created.body.data.id;
      expect((await seen(t.http.get(`/v1/customers/${customer}`, withKey(key.key)))).status).toBe(200);
      const list = await seen(t.http.get('/v1/customers', withKey(key.key)));
      expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([customer]);
      // The record lives in the key's project: users see it there, and not in the default project.
      expect(
        (
          await t.http.get(`/v1/customers/${customer}`, {
            token: developer.token,
            headers: { 'x-project-id': secondProject },
          })
        ).status,
      ).toBe(200);
      expectNotFound(await t.http.get(`/v1/customers/${customer}`, { token: developer.token }));
      const stored = await t.db.collection('customers').findOne({ email: 'by-key@example.com' });
      expect(String(stored?.projectId)).toBe(secondProject);
    });

    it("answers another project's and another account's ids as unknown ones: 404", async () => {
      const key = await createKey(secondProject, { name: 'Reader' });
      const ownDefault = (await t.http.post('/v1/customers', { email: 'default@example.com' }, { token: admin.token }))
        .body.data.id;
      const foreign = (await t.http.post('/v1/customers', { email: 'foreign@example.com' }, { token: stranger.token }))
        .body.data.id;
      const unknown = await t.http.get(`/v1/customers/${UNKNOWN_ID}`, withKey(key.key));
      expectNotFound(unknown);
      for (const id of [ownDefault, foreign]) {
        const res = await t.http.get(`/v1/customers/${id}`, withKey(key.key));
        expect({ status: res.status, body: res.body }).toEqual({ status: unknown.status, body: unknown.body });
        const update = await t.http.post(`/v1/customers/${id}`, { firstName: 'Mallory' }, withKey(key.key));
        expect(update.status).toBe(404);
      }
      expect((await t.http.get(`/v1/customers/${ownDefault}`, { token: admin.token })).body.data.firstName).not.toBe(
        'Mallory',
      );
    });

    it('acts only in its own project: X-Project-Id naming any other is 404, its own is fine', async () => {
      const key = await createKey(secondProject, { name: 'Header' });
      for (const other of [admin.projectId, stranger.projectId, UNKNOWN_ID]) {
        expectNotFound(
          await t.http.get('/v1/customers', withKey(key.key, { 'x-project-id': other })),
          'Platform project not found',
        );
      }
      expect((await t.http.get('/v1/customers', withKey(key.key, { 'x-project-id': secondProject }))).status).toBe(200);
      expect(
        (await t.http.get('/v1/customers', withKey(key.key, { 'x-project-id': secondProject.toUpperCase() }))).status,
      ).toBe(200);
    });

    it("refuses APIs outside the key's scopes with 403", async () => {
      const key = await createKey(secondProject, { name: 'Scoped', scopes: ['customers'] });
      expect((await t.http.get('/v1/customers', withKey(key.key))).status).toBe(200);
      expectError(
        await t.http.get('/v1/cards?customer=' + UNKNOWN_ID, withKey(key.key)),
        403,
        "This API key's scopes do not include the cards API",
      );
      expectError(
        await t.http.get('/api/v1/payments', withKey(key.key)),
        403,
        "This API key's scopes do not include the payments API",
      );
      expectError(
        await t.http.get('/clients', withKey(key.key)),
        403,
        "This API key's scopes do not include the clients API",
      );
    });

    it('acts with admin rights over its scopes (deletes a customer)', async () => {
      const key = await createKey(secondProject, { name: 'Admin rights' });
      const customer = (await t.http.post('/v1/customers', { email: 'gone@example.com' }, withKey(key.key))).body.data
        .id;
      expect((await t.http.delete(`/v1/customers/${customer}`, withKey(key.key))).status).toBe(200);
    });

    it('refuses keys on every route that is not a data route: 403 API keys cannot manage the platform', async () => {
      const key = await createKey();
      const document = (await t.http.get('/docs-json')).body as {
        paths: Record<string, Record<string, { security?: object[]; operationId: string }>>;
      };
      const management = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(
            ([, operation]) => !(operation.security ?? []).some((requirement) => Object.keys(requirement).length === 0),
          )
          .filter(
            ([, operation]) =>
              !(operation.security ?? []).some(
                (requirement) => 'apiKey' in requirement || 'publishableKey' in requirement,
              ),
          )
          .map(([method, operation]) => ({ path, method, operationId: operation.operationId })),
      );
      expect(management.map((route) => route.operationId)).toEqual(
        expect.arrayContaining([
          'getCurrentUser',
          'listAccounts',
          'acceptInvitation',
          'createPlatformProject',
          'createApiKey',
          'rollApiKey',
        ]),
      );
      const collections = ['accounts', 'memberships', 'invitations', 'platform_projects', 'api_keys'];
      const counts = () => Promise.all(collections.map((name) => t.db.collection(name).countDocuments()));
      const before = await counts();
      for (const route of management) {
        const url = route.path
          .replace('{accountId}', admin.accountId)
          .replace('{id}', admin.projectId)
          .replace('{keyId}', key.id)
          .replace(/\{[^}]+\}/g, UNKNOWN_ID);
        const res = await seen(
          t.http.request(
            route.method.toUpperCase(),
            url,
            ['post', 'patch', 'put'].includes(route.method) ? {} : undefined,
            withKey(key.key),
          ),
        );
        expect({ ...route, status: res.status, message: res.body?.message }).toEqual({
          ...route,
          status: 403,
          message: 'API keys cannot manage the platform',
        });
      }
      // Nothing was made, removed or changed through those calls.
      expect(await counts()).toEqual(before);
      expect((await t.http.get('/v1/customers', withKey(key.key))).status).toBe(200);
      expect((await t.http.get(`${PROJECTS}/${admin.projectId}`, { token: admin.token })).body.data.name).toBe(
        'Default project',
      );
    });

    it('records lastUsedAt after use, at most once a minute', async () => {
      const key = await createKey(secondProject, { name: 'Usage' });
      const stored = () => t.db.collection('api_keys').findOne({ _id: new ObjectId(key.id) });
      expect((await stored())?.lastUsedAt).toBeNull();
      expect((await t.http.get('/v1/customers', withKey(key.key))).status).toBe(200);
      expect(await pollUntil(async () => (await stored())?.lastUsedAt instanceof Date, 5_000, 50)).toBe(true);
      const first = (await stored())?.lastUsedAt as Date;

      clockOffset = 30_000;
      await t.http.get('/v1/customers', withKey(key.key));
      await new Promise((done) => setTimeout(done, 300));
      expect(((await stored())?.lastUsedAt as Date).getTime()).toBe(first.getTime());

      clockOffset = 61_000;
      await t.http.get('/v1/customers', withKey(key.key));
      expect(
        await pollUntil(async () => ((await stored())?.lastUsedAt as Date).getTime() > first.getTime(), 5_000, 50),
      ).toBe(true);
      const listed = (
        await seen(t.http.get(`${PROJECTS}/${secondProject}/keys`, { token: admin.token }))
      ).body.data.find((candidate: { id: string }) => candidate.id === key.id);
      expect(listed.lastUsedAt).toBe(((await stored())?.lastUsedAt as Date).toISOString());
    });
  });

  describe('publishable keys', () => {
    it('are made beside secret keys with kind publishable: pk_test_, listed with their kind, stored as a hash', async () => {
      const res = await t.http.post(
        `${PROJECTS}/${secondProject}/keys`,
        { name: 'Mobile app', kind: 'publishable' },
        { token: admin.token },
      );
      expect(res.status).toBe(201);
      const key = res.body.data;
      secrets.push(key.key, sha256(key.key));
      expect(Object.keys(key).sort()).toEqual([...KEY_FIELDS, 'key'].sort());
      expect(key).toMatchObject({ name: 'Mobile app', kind: 'publishable', scopes: null, revokedAt: null });
      expect(key.key).toMatch(/^pk_test_[A-Za-z0-9_-]{43}$/);
      expect(key.start).toBe(key.key.slice(0, 12));
      expect(await t.db.collection('api_keys').findOne({ _id: new ObjectId(key.id) })).toMatchObject({
        kind: 'publishable',
        hash: sha256(key.key),
      });

      const secret = await createKey(secondProject, { name: 'Server beside it' });
      const listed = (await seen(t.http.get(`${PROJECTS}/${secondProject}/keys`, { token: admin.token }))).body
        .data as { id: string; kind: string }[];
      expect(listed.find((candidate) => candidate.id === key.id)?.kind).toBe('publishable');
      expect(listed.find((candidate) => candidate.id === secret.id)?.kind).toBe('secret');
    });

    it('take no scopes, and kind is secret or publishable: 400 otherwise', async () => {
      const url = `${PROJECTS}/${admin.projectId}/keys`;
      expectValidationError(
        await t.http.post(url, { name: 'x', kind: 'publishable', scopes: ['projects'] }, { token: admin.token }),
        'scopes',
        /publishable key takes no scopes/,
      );
      expectValidationError(
        await t.http.post(url, { name: 'x', kind: 'public' }, { token: admin.token }),
        'kind',
        /kind must be one of: secret, publishable/,
      );
      expectValidationError(await t.http.post(url, { name: 'x', kind: null }, { token: admin.token }), 'kind');
    });

    it('call nothing but the /viewer routes: every other route is 403 saying so, and nothing is written', async () => {
      const key = await createKey(admin.projectId, { name: 'Viewer app', kind: 'publishable' });
      const customers = await t.db.collection('customers').countDocuments();
      const message = 'A publishable key (pk_test_...) can call only the /viewer routes';
      for (const [method, url, body] of [
        ['GET', '/v1/customers', undefined],
        ['POST', '/v1/customers', { email: uniqueEmail('pk') }],
        ['GET', '/collections', undefined],
        ['GET', '/v1/events', undefined],
        ['GET', '/api/v1/me', undefined],
        ['GET', `${PROJECTS}/${admin.projectId}/keys`, undefined],
        ['POST', `${PROJECTS}/${admin.projectId}/keys`, { name: 'escalate' }],
      ] as const) {
        expectError(await t.http.request(method, url, body, withKey(key.key)), 403, message);
      }
      expect(await t.db.collection('customers').countDocuments()).toBe(customers);
    });

    it('are rolled (the successor is publishable too) and revoked like secret keys: 401 once stopped', async () => {
      const old = await createKey(admin.projectId, { name: 'Rolled app', kind: 'publishable' });
      const res = await t.http.post(`${PROJECTS}/${admin.projectId}/keys/${old.id}/roll`, {}, { token: admin.token });
      expect(res.status).toBe(201);
      secrets.push(res.body.data.key, sha256(res.body.data.key));
      expect(res.body.data).toMatchObject({ name: 'Rolled app', kind: 'publishable' });
      expect(res.body.data.key).toMatch(/^pk_test_/);
      expectError(await t.http.get('/v1/customers', withKey(old.key)), 401, 'Invalid API key');
      expectError(await t.http.get('/v1/customers', withKey(res.body.data.key)), 403);
      // That use's `lastUsedAt` is written off the request's path: revoke once it has landed (see the revocation test above).
      const successor = { _id: { $in: [res.body.data.id, new ObjectId(res.body.data.id)] } } as object;
      expect(
        await pollUntil(async () => (await t.db.collection('api_keys').findOne(successor))?.lastUsedAt != null, 10_000),
      ).toBe(true);
      expect(
        (await t.http.delete(`${PROJECTS}/${admin.projectId}/keys/${res.body.data.id}`, { token: admin.token })).status,
      ).toBe(200);
      expectError(await t.http.get('/v1/customers', withKey(res.body.data.key)), 401, 'Invalid API key');
    });

    it("refuses a secret key's text passed off as publishable and the reverse: 401", async () => {
      const key = await createKey(admin.projectId, { name: 'Swapped' });
      expectError(
        await t.http.get('/v1/customers', withKey(key.key.replace('sk_test_', 'pk_test_'))),
        401,
        'Invalid API key',
      );
      const publishable = await createKey(admin.projectId, { name: 'Swapped app', kind: 'publishable' });
      expectError(
        await t.http.get('/v1/customers', withKey(publishable.key.replace('pk_test_', 'sk_test_'))),
        401,
        'Invalid API key',
      );
    });

    it('is audited like a secret key when made', async () => {
      const key = await createKey(admin.projectId, { name: 'Audited app', kind: 'publishable' });
      const log = await t.http.get(`/api/v1/accounts/${admin.accountId}/audit-log?action=api_key.created&limit=100`, {
        token: admin.token,
      });
      expect(log.status).toBe(200);
      expect(log.body.data.find((entry: { target: { id: string } }) => entry.target.id === key.id)).toMatchObject({
        action: 'api_key.created',
        target: { type: 'api_key', id: key.id, label: key.start },
      });
    });
  });

  describe('invalid keys: 401 Invalid API key', () => {
    it('refuses a forged key, a key of another prefix and a malformed one', async () => {
      const real = await createKey();
      const forged = `sk_test_${randomBytes(32).toString('base64url')}`;
      for (const token of [
        forged,
        real.key.replace('sk_test_', 'sk_live_'),
        'sk_live_abc',
        'sk_test_short',
        `${real.key}x`,
        'sk_',
      ]) {
        expectError(await t.http.get('/v1/customers', withKey(token)), 401, 'Invalid API key');
      }
    });

    it('refuses an expired key (expiresAt <= now) and accepts it until then', async () => {
      const expiresAt = new Date(Date.now() + 2 * HOUR).toISOString();
      const key = await createKey(admin.projectId, { name: 'Short-lived', expiresAt });
      expect(key.expiresAt).toBe(expiresAt);
      clockOffset = 2 * HOUR - 60_000;
      expect((await t.http.get('/v1/customers', withKey(key.key))).status).toBe(200);
      clockOffset = 2 * HOUR;
      expectError(await t.http.get('/v1/customers', withKey(key.key)), 401, 'Invalid API key');
      expectError(
        await t.http.post(`${PROJECTS}/${admin.projectId}/keys/${key.id}/roll`, {}, { token: admin.token }),
        409,
        /expired/,
      );
    });
  });

  describe('rolling a key', () => {
    it('gives a new key with the same name and scopes; the old one works during its grace and not after', async () => {
      const old = await createKey(secondProject, { name: 'Rolled', scopes: ['customers', 'cards'] });
      const res = await t.http.post(
        `${PROJECTS}/${secondProject}/keys/${old.id}/roll`,
        { expiresInHours: 24 },
        { token: admin.token },
      );
      expect(res.status).toBe(201);
      const rolled = res.body.data;
      secrets.push(rolled.key, sha256(rolled.key));
      expect(Object.keys(rolled).sort()).toEqual([...KEY_FIELDS, 'key'].sort());
      expect(rolled).toMatchObject({
        name: 'Rolled',
        scopes: ['customers', 'cards'],
        expiresAt: null,
        revokedAt: null,
      });
      expect(rolled.id).not.toBe(old.id);
      expect(rolled.key).not.toBe(old.key);

      const stored = await t.db.collection('api_keys').findOne({ hash: sha256(old.key) });
      expect(Math.abs((stored?.expiresAt as Date).getTime() - (Date.now() + 24 * HOUR))).toBeLessThan(60_000);

      clockOffset = 23 * HOUR;
      expect((await t.http.get('/v1/customers', withKey(old.key))).status).toBe(200);
      expect((await t.http.get('/v1/customers', withKey(rolled.key))).status).toBe(200);
      clockOffset = 24 * HOUR + 60_000;
      expectError(await t.http.get('/v1/customers', withKey(old.key)), 401, 'Invalid API key');
      expect((await t.http.get('/v1/customers', withKey(rolled.key))).status).toBe(200);
      expect((await seen(t.http.get(`${PROJECTS}/${secondProject}/keys`, { token: admin.token }))).text).toContain(
        rolled.start,
      );
    });

    it('stops the old key at once by default (expiresInHours 0)', async () => {
      const old = await createKey(secondProject, { name: 'Immediate' });
      const res = await t.http.post(`${PROJECTS}/${secondProject}/keys/${old.id}/roll`, undefined, {
        token: admin.token,
      });
      expect(res.status).toBe(201);
      secrets.push(res.body.data.key, sha256(res.body.data.key));
      expectError(await t.http.get('/v1/customers', withKey(old.key)), 401, 'Invalid API key');
      expect((await t.http.get('/v1/customers', withKey(res.body.data.key))).status).toBe(200);
    });

    it('never extends a key beyond its own expiry, and the new key keeps that expiry', async () => {
      const expiresAt = new Date(Date.now() + 2 * HOUR).toISOString();
      const old = await createKey(secondProject, { name: 'Bounded', expiresAt });
      const res = await t.http.post(
        `${PROJECTS}/${secondProject}/keys/${old.id}/roll`,
        { expiresInHours: 168 },
        { token: admin.token },
      );
      expect(res.status).toBe(201);
      secrets.push(res.body.data.key, sha256(res.body.data.key));
      expect(res.body.data.expiresAt).toBe(expiresAt);
      const stored = await t.db.collection('api_keys').findOne({ hash: sha256(old.key) });
      expect((stored?.expiresAt as Date).toISOString()).toBe(expiresAt);
    });

    /** Rolls a key; its successor (the new key) and the stored end of every key named. */
    async function roll(keyId: string, expiresInHours: number) {
      const res = await t.http.post(
        `${PROJECTS}/${secondProject}/keys/${keyId}/roll`,
        { expiresInHours },
        { token: admin.token },
      );
      if (res.status !== 201) throw new Error(`roll failed: ${res.status} ${res.text}`);
      secrets.push(res.body.data.key, sha256(res.body.data.key));
      return res.body.data as { id: string; key: string; expiresAt: string | null };
    }
    const storedEnd = async (keyId: string) =>
      ((await t.db.collection('api_keys').findOne({ _id: new ObjectId(keyId) }))?.expiresAt as Date | null) ?? null;
    const near = (end: Date | null, at: number) => end !== null && Math.abs(end.getTime() - at) < 60_000;

    it('a key is rolled once: rolling it again is 409, and its end stays the one the first roll gave it', async () => {
      const a = await createKey(secondProject, { name: 'Rolled twice' });
      const b = await roll(a.id, 24);
      expect(b.expiresAt).toBeNull();
      const aEnd = await storedEnd(a.id);
      expect(near(aEnd, Date.now() + 24 * HOUR)).toBe(true);
      for (const expiresInHours of [2, 168]) {
        expectError(
          await t.http.post(
            `${PROJECTS}/${secondProject}/keys/${a.id}/roll`,
            { expiresInHours },
            { token: admin.token },
          ),
          409,
          'API key was already rolled: roll its successor, or create a new key',
        );
      }
      expect(await storedEnd(a.id)).toEqual(aEnd);
      expect(await t.db.collection('api_keys').countDocuments({ rolledFrom: new ObjectId(a.id) })).toBe(1);
      clockOffset = 48 * HOUR;
      expect((await t.http.get('/v1/customers', withKey(b.key))).status).toBe(200);
      expectError(await t.http.get('/v1/customers', withKey(a.key)), 401, 'Invalid API key');
    });

    it('concurrent rolls of one key: one succeeds, the others are 409, one successor, and the old key ends as the winner asked', async () => {
      const a = await createKey(secondProject, { name: 'Rolled at once' });
      const graces = [0, 168, 1, 24, 168];
      const answers = await Promise.all(
        graces.map((expiresInHours) =>
          t.http.post(`${PROJECTS}/${secondProject}/keys/${a.id}/roll`, { expiresInHours }, { token: admin.token }),
        ),
      );
      const won = answers.filter((res) => res.status === 201);
      expect(won).toHaveLength(1);
      // Refused as rolled already, or (waiting longer than the lease allows) as being rolled.
      for (const res of answers.filter((other) => other.status !== 201))
        expectError(res, 409, /^API key (was already rolled|is being rolled)/);
      secrets.push(won[0].body.data.key, sha256(won[0].body.data.key));
      const successors = await t.db
        .collection('api_keys')
        .find({ rolledFrom: new ObjectId(a.id) })
        .toArray();
      expect(successors.map((key) => String(key._id))).toEqual([won[0].body.data.id]);
      const grace = graces[answers.indexOf(won[0])];
      expect(near(await storedEnd(a.id), Date.now() + grace * HOUR)).toBe(true);
    });

    it('a chain of rolls (A -> B -> C): C never expires, B gets the grace asked of it, A keeps its own', async () => {
      const a = await createKey(secondProject, { name: 'Chain' });
      const b = await roll(a.id, 24);
      const aEnd = await storedEnd(a.id);
      expect(near(aEnd, Date.now() + 24 * HOUR)).toBe(true);
      const c = await roll(b.id, 48);
      expect(c.expiresAt).toBeNull();
      expect(await storedEnd(c.id)).toBeNull();
      expect(near(await storedEnd(b.id), Date.now() + 48 * HOUR)).toBe(true);
      expect(await storedEnd(a.id)).toEqual(aEnd);
      // C's successor, in turn, never expires either.
      const d = await roll(c.id, 1);
      expect(d.expiresAt).toBeNull();
      clockOffset = 30 * HOUR;
      expectError(await t.http.get('/v1/customers', withKey(a.key)), 401, 'Invalid API key');
      expect((await t.http.get('/v1/customers', withKey(b.key))).status).toBe(200);
      expect((await t.http.get('/v1/customers', withKey(d.key))).status).toBe(200);
    });

    it('a key issued with an expiry hands that expiry down every roll, however often its predecessors were rolled', async () => {
      const expiresAt = new Date(Date.now() + 100 * HOUR).toISOString();
      const a = await createKey(secondProject, { name: 'Bounded chain', expiresAt });
      const b = await roll(a.id, 1);
      expect(b.expiresAt).toBe(expiresAt);
      const c = await roll(b.id, 0);
      expect(c.expiresAt).toBe(expiresAt);
      expect((await roll(c.id, 3)).expiresAt).toBe(expiresAt);
    });

    it('takes 0 to 168 whole hours (400 otherwise)', async () => {
      const key = await createKey(secondProject, { name: 'Bounds' });
      const roll = (body: unknown) =>
        t.http.post(`${PROJECTS}/${secondProject}/keys/${key.id}/roll`, body, { token: admin.token });
      expectValidationError(await roll({ expiresInHours: 169 }), 'expiresInHours');
      expectValidationError(await roll({ expiresInHours: -1 }), 'expiresInHours');
      expectValidationError(await roll({ expiresInHours: 1.5 }), 'expiresInHours');
      expectValidationError(await roll({ expiresInHours: '2' }), 'expiresInHours');
      expect((await t.http.get('/v1/customers', withKey(key.key))).status).toBe(200);
    });
  });

  describe('public routes ignore keys', () => {
    it('login and signup answer the same with a key, a forged key or a wrong-prefix key in Authorization', async () => {
      const key = await createKey();
      const forged = `sk_test_${randomBytes(32).toString('base64url')}`;
      for (const token of [key.key, forged, 'sk_live_whatever']) {
        const login = await seen(
          t.http.post('/api/v1/login', { email: developer.email, password: developer.password }, { token }),
        );
        expect(login.status).toBe(200);
        expect(login.body.accessToken).toEqual(expect.any(String));
        const body = signupBody({ email: uniqueEmail('keyed') });
        const signup = await seen(t.http.post('/api/v1/signup', body, { token }));
        expect(signup.status).toBe(201);
        expect(signup.body.data.account.owner).toBe(true);
        expect(signup.body.data.account.id).not.toBe(admin.accountId);
      }
      const wrong = await t.http.post(
        '/api/v1/login',
        { email: developer.email, password: 'wrong password!' },
        { token: key.key },
      );
      expectError(wrong, 401);
    });
  });

  it('never shows a key secret or its hash again after the answer that created it', () => {
    expect(secrets.length).toBeGreaterThan(10);
    const leaks = answers.flatMap((res) =>
      secrets.filter((secret) => res.text.includes(secret)).map((secret) => secret.slice(0, 12)),
    );
    expect(answers.length).toBeGreaterThan(10);
    expect(leaks).toEqual([]);
  });
});
