import { ObjectId } from 'mongodb';
import { createHash, randomBytes } from 'node:crypto';
import { createFirstAdmin, signupBody, TestUser, uniqueEmail, verifyEmail } from '../support/auth';
import { expectError, expectNotFound, expectValidationError } from '../support/expect-error';
import type { HttpResponse } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

const UNKNOWN_ID = '6650c0ffee00000000000bad';
const VIEWER_FIELDS = [
  'categoryId',
  'contentUploadType',
  'description',
  'id',
  'landscapeImg',
  'parentId',
  'portraitImg',
  'primaryLanguageId',
  'primaryTitle',
  'projectTypeId',
  'subCategoryId',
  'subTypeId',
  'supportedFeatures',
  'supportedFormats',
  'supportedModes',
  'topicIds',
];
const LINK_FIELDS = ['createdAt', 'expiresAt', 'hasPassword', 'id', 'projectId', 'revokedAt', 'start', 'url', 'views'];
const GRANT_FIELDS = ['createdAt', 'email', 'expiresAt', 'id', 'projectId', 'revokedAt', 'role', 'userId', 'views'];
const PASSWORD = 'correct horse battery';
const ACCESSES = ['public', 'linkPrivate', 'permissions'] as const;
const STATUSES = ['published', 'draft', 'archived'] as const;
const PLACEMENTS = ['ancestor', 'project'] as const;
const LINKS = ['valid', 'expired', 'revoked', 'wrongPassword'] as const;
const GRANTS = ['present', 'expired'] as const;

type Access = (typeof ACCESSES)[number];
type Status = (typeof STATUSES)[number];

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

describe('viewers: publishable keys, share links, grants and the /viewer routes', () => {
  let t: TestApp;
  let owner: TestUser;
  let stranger: TestUser;
  let granted: TestUser;
  let grantedByEmail: TestUser;
  let channel: string;
  let publishable: string;
  let secret: string;
  let strangerPublishable: string;

  const as = () => ({ token: owner.token });
  const viewer = (headers: Record<string, string> = {}, key = publishable) => ({ token: key, headers });

  function ok(res: HttpResponse, status = 200): HttpResponse {
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
    return res;
  }

  async function project(
    fields: Record<string, unknown> = {},
    token = owner.token,
    inChannel = channel,
  ): Promise<string> {
    return ok(
      await t.http.post(
        `/channels/${inChannel}/projects`,
        { primaryTitle: 'Shown', projectTypeId: 'show', status: 'published', ...fields },
        { token },
      ),
      201,
    ).body._id;
  }

  async function shareLink(projectId: string, body: Record<string, unknown> = {}) {
    return ok(await t.http.post(`/projects/${projectId}/share-links`, body, as()), 201).body as {
      id: string;
      token: string;
      url: string;
      start: string;
    };
  }

  async function grant(projectId: string, body: Record<string, unknown>) {
    return ok(await t.http.post(`/projects/${projectId}/grants`, { role: 'viewer', ...body }, as()), 201).body as {
      id: string;
    };
  }

  async function key(user: TestUser, kind: 'secret' | 'publishable'): Promise<string> {
    return ok(
      await t.http.post(
        `/api/v1/platform/projects/${user.projectId}/keys`,
        { name: kind, kind },
        { token: user.token },
      ),
      201,
    ).body.data.key;
  }

  async function channelOf(user: TestUser): Promise<string> {
    const client = ok(
      await t.http.post('/clients', { name: 'Studio owner', email: uniqueEmail('client') }, { token: user.token }),
      201,
    ).body.id;
    const body = {
      clientId: client,
      name: 'Studio',
      username: `studio_${randomBytes(5).toString('hex')}`,
      avatarUrl: 'https://cdn.example.com/a.png',
      role: 'creator',
    };
    return ok(await t.http.post('/channels', body, { token: user.token })).body.id;
  }

  /** Moves an expiry into the past, as time passing would. */
  async function expire(collection: 'share_links' | 'grants', id: string): Promise<void> {
    await t.db
      .collection(collection)
      .updateOne({ _id: new ObjectId(id) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
  }

  beforeAll(async () => {
    t = await createTestApp({ LOGIN_MAX_FAILURES: '1000', SIGNUP_MAX_PER_CLIENT: '1000' });
    owner = await createFirstAdmin(t.http);
    stranger = await createFirstAdmin(t.http);
    granted = await createFirstAdmin(t.http);
    grantedByEmail = await createFirstAdmin(t.http);
    channel = await channelOf(owner);
    publishable = await key(owner, 'publishable');
    secret = await key(owner, 'secret');
    strangerPublishable = await key(stranger, 'publishable');
  });
  afterAll(() => t.close());

  describe('share links', () => {
    it('are made with the token shown once, stored as its SHA-256 and the password as a bcrypt hash', async () => {
      const id = await project({ access: 'linkPrivate' });
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const res = await t.http.post(`/projects/${id}/share-links`, { expiresAt, password: PASSWORD }, as());
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual([...LINK_FIELDS, 'token'].sort());
      expect(res.body).toMatchObject({
        projectId: id,
        url: `/viewer/projects/${id}`,
        hasPassword: true,
        views: 0,
        expiresAt,
        revokedAt: null,
      });
      expect(res.body.token).toMatch(/^shr_[A-Za-z0-9_-]{43}$/);
      expect(res.body.start).toBe(res.body.token.slice(0, 12));

      const stored = await t.db.collection('share_links').findOne({ _id: new ObjectId(res.body.id) });
      expect(stored).toMatchObject({ hash: sha256(res.body.token), revokedAt: null });
      expect(String(stored?.contentProjectId)).toBe(id);
      expect(String(stored?.projectId)).toBe(owner.projectId);
      expect(stored?.passwordHash).toMatch(/^\$2[aby]\$/);
      expect(JSON.stringify(stored)).not.toContain(res.body.token.slice(12));
      expect(JSON.stringify(stored)).not.toContain(PASSWORD);
    });

    it('are listed without tokens, newest first, with views, expiry and revocation; revoked with DELETE (twice answers the same)', async () => {
      const id = await project({ access: 'linkPrivate' });
      const first = await shareLink(id);
      const second = await shareLink(id, { password: PASSWORD });
      const list = await t.http.get(`/projects/${id}/share-links`, as());
      expect(list.status).toBe(200);
      expect(list.headers.get('x-total-count')).toBe('2');
      expect(list.body.map((link: { id: string }) => link.id)).toEqual([second.id, first.id]);
      for (const link of list.body) expect(Object.keys(link).sort()).toEqual(LINK_FIELDS);
      expect(list.text).not.toContain(first.token);
      expect(list.text).not.toContain(sha256(first.token));
      expect(list.body[0]).toMatchObject({ hasPassword: true, views: 0, revokedAt: null });

      const revoked = await t.http.delete(`/projects/${id}/share-links/${first.id}`, as());
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({ message: 'Share link revoked' });
      const at = (await t.db.collection('share_links').findOne({ _id: new ObjectId(first.id) }))?.revokedAt as Date;
      expect(at).toBeInstanceOf(Date);
      expect((await t.http.delete(`/projects/${id}/share-links/${first.id}`, as())).status).toBe(200);
      expect(
        ((await t.db.collection('share_links').findOne({ _id: new ObjectId(first.id) }))?.revokedAt as Date).getTime(),
      ).toBe(at.getTime());
      const after = await t.http.get(`/projects/${id}/share-links`, as());
      expect(after.body.find((link: { id: string }) => link.id === first.id).revokedAt).toBe(at.toISOString());
    });

    it('refuses a past expiry, a short password and unknown fields (400); an unknown project or link is 404; nothing is written', async () => {
      const id = await project();
      const before = await t.db.collection('share_links').countDocuments();
      expectValidationError(
        await t.http.post(`/projects/${id}/share-links`, { expiresAt: '2020-01-01T00:00:00.000Z' }, as()),
        'expiresAt',
        /future/,
      );
      expectValidationError(await t.http.post(`/projects/${id}/share-links`, { password: 'short' }, as()), 'password');
      expectValidationError(await t.http.post(`/projects/${id}/share-links`, { token: 'mine' }, as()), 'token');
      expectNotFound(await t.http.post(`/projects/${UNKNOWN_ID}/share-links`, {}, as()), 'Project not found');
      expectNotFound(await t.http.get(`/projects/${UNKNOWN_ID}/share-links`, as()), 'Project not found');
      expectNotFound(await t.http.delete(`/projects/${id}/share-links/${UNKNOWN_ID}`, as()), 'Share link not found');
      expect(await t.db.collection('share_links').countDocuments()).toBe(before);
    });

    it('a link of one project cannot be revoked through another project (404), nor by another account', async () => {
      const id = await project();
      const other = await project();
      const link = await shareLink(id);
      expectNotFound(await t.http.delete(`/projects/${other}/share-links/${link.id}`, as()), 'Share link not found');
      expectNotFound(
        await t.http.delete(`/projects/${id}/share-links/${link.id}`, { token: stranger.token }),
        'Project not found',
      );
      expect((await t.db.collection('share_links').findOne({ _id: new ObjectId(link.id) }))?.revokedAt).toBeNull();
    });

    it('count each successful viewer read through the link, concurrent reads included (one insert each: none lost)', async () => {
      const id = await project({ access: 'linkPrivate' });
      const link = await shareLink(id);
      const reads = await Promise.all(
        Array.from({ length: 12 }, () => t.http.get(`/viewer/projects/${id}`, viewer({ 'x-share-token': link.token }))),
      );
      expect(reads.map((res) => res.status)).toEqual(Array(12).fill(200));
      // A refused read counts nothing.
      expectNotFound(
        await t.http.get(
          `/viewer/projects/${id}`,
          viewer({ 'x-share-token': `${link.token.slice(0, -1)}${link.token.endsWith('A') ? 'B' : 'A'}` }),
        ),
      );
      expect(await t.db.collection('share_link_views').countDocuments({ shareLinkId: new ObjectId(link.id) })).toBe(12);
      expect((await t.http.get(`/projects/${id}/share-links`, as())).body[0].views).toBe(12);
      // Reads of the children through the link count too.
      expect(
        (await t.http.get(`/viewer/projects/${id}/children`, viewer({ 'x-share-token': link.token }))).status,
      ).toBe(200);
      expect((await t.http.get(`/projects/${id}/share-links`, as())).body[0].views).toBe(13);
    });

    it('record share_link.created and share_link.revoked events, without the token or its hash', async () => {
      const id = await project();
      const link = await shareLink(id, { password: PASSWORD });
      ok(await t.http.delete(`/projects/${id}/share-links/${link.id}`, as()));
      const events = (await t.http.get('/v1/events?limit=100', as())).body.data as {
        type: string;
        data: { object: { id: string } };
      }[];
      const mine = events.filter((event) => event.data.object.id === link.id).map((event) => event.type);
      expect(mine.sort()).toEqual(['share_link.created', 'share_link.revoked']);
      const text = JSON.stringify(events);
      expect(text).not.toContain(link.token);
      expect(text).not.toContain(sha256(link.token));
      expect(text).not.toContain('passwordHash');
    });
  });

  describe('grants', () => {
    it('are made to a user or to an email, listed newest first and revoked', async () => {
      const id = await project({ access: 'permissions' });
      const toUser = await t.http.post(`/projects/${id}/grants`, { userId: granted.id, role: 'editor' }, as());
      expect(toUser.status).toBe(201);
      expect(Object.keys(toUser.body).sort()).toEqual(GRANT_FIELDS);
      expect(toUser.body).toMatchObject({
        projectId: id,
        userId: granted.id,
        email: null,
        role: 'editor',
        expiresAt: null,
        revokedAt: null,
      });
      const toEmail = await t.http.post(
        `/projects/${id}/grants`,
        { email: '  Someone.New@Example.COM ', role: 'viewer' },
        as(),
      );
      expect(toEmail.status).toBe(201);
      expect(toEmail.body).toMatchObject({ userId: null, email: 'someone.new@example.com', role: 'viewer' });

      const list = await t.http.get(`/projects/${id}/grants`, as());
      expect(list.headers.get('x-total-count')).toBe('2');
      expect(list.body.map((one: { id: string }) => one.id)).toEqual([toEmail.body.id, toUser.body.id]);

      expect((await t.http.delete(`/projects/${id}/grants/${toUser.body.id}`, as())).body).toEqual({
        message: 'Grant revoked',
      });
      expect(
        (await t.db.collection('grants').findOne({ _id: new ObjectId(toUser.body.id) }))?.revokedAt,
      ).toBeInstanceOf(Date);
      expect((await t.http.delete(`/projects/${id}/grants/${toUser.body.id}`, as())).status).toBe(200);
      expectNotFound(await t.http.delete(`/projects/${id}/grants/${UNKNOWN_ID}`, as()), 'Grant not found');
    });

    it('take exactly one of userId and email, a known user, a role and a future expiry: 400 otherwise, nothing written', async () => {
      const id = await project();
      const before = await t.db.collection('grants').countDocuments();
      const url = `/projects/${id}/grants`;
      expectValidationError(await t.http.post(url, { role: 'viewer' }, as()), 'userId');
      expectValidationError(
        await t.http.post(url, { userId: granted.id, email: 'a@example.com', role: 'viewer' }, as()),
        'userId',
        /not both/,
      );
      expectValidationError(await t.http.post(url, { userId: UNKNOWN_ID, role: 'viewer' }, as()), 'userId', /no user/);
      expectValidationError(await t.http.post(url, { email: 'not-an-email', role: 'viewer' }, as()), 'email');
      expectValidationError(await t.http.post(url, { email: 'a@example.com', role: 'owner' }, as()), 'role');
      expectValidationError(
        await t.http.post(url, { email: 'a@example.com', role: 'viewer', expiresAt: '2020-01-01T00:00:00.000Z' }, as()),
        'expiresAt',
      );
      expectNotFound(
        await t.http.post(`/projects/${UNKNOWN_ID}/grants`, { email: 'a@example.com', role: 'viewer' }, as()),
        'Project not found',
      );
      expect(await t.db.collection('grants').countDocuments()).toBe(before);
    });

    it('to an email waits for a signup with it, and its verification: the new user then sees the project with their token', async () => {
      const id = await project({ access: 'permissions' });
      const email = uniqueEmail('Later');
      await grant(id, { email: email.toUpperCase() });
      const body = signupBody({ email });
      ok(await t.http.post('/api/v1/singup', body), 201);
      const token = ok(await t.http.post('/api/v1/login', { email, password: body.password })).body
        .accessToken as string;
      // Anyone may sign up with an address: the grant reaches only the one who proves they hold it.
      expectNotFound(await t.http.get(`/viewer/projects/${id}`, viewer({ 'x-viewer-token': token })));
      await verifyEmail(t.http, email);
      expect((await t.http.get(`/viewer/projects/${id}`, viewer({ 'x-viewer-token': token }))).status).toBe(200);
      expectNotFound(await t.http.get(`/viewer/projects/${id}`, viewer({ 'x-viewer-token': stranger.token })));
      expectNotFound(await t.http.get(`/viewer/projects/${id}`, viewer({ 'x-viewer-token': 'not-a-token' })));
    });

    it('record grant.created and grant.revoked events', async () => {
      const id = await project();
      const made = await grant(id, { userId: granted.id });
      ok(await t.http.delete(`/projects/${id}/grants/${made.id}`, as()));
      const events = (await t.http.get('/v1/events?limit=100', as())).body.data as {
        type: string;
        data: { object: { id: string } };
      }[];
      expect(
        events
          .filter((event) => event.data.object.id === made.id)
          .map((event) => event.type)
          .sort(),
      ).toEqual(['grant.created', 'grant.revoked']);
    });
  });

  describe('the /viewer routes', () => {
    it('show a published public project as viewers see it: its content, nothing of how it is managed', async () => {
      const id = await project({ primaryTitle: 'Blue Hours', access: 'public', topicIds: ['piano'] });
      const res = await t.http.get(`/viewer/projects/${id}`, viewer());
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(VIEWER_FIELDS);
      expect(res.body).toMatchObject({ id, parentId: null, primaryTitle: 'Blue Hours', topicIds: ['piano'] });
    });

    it('take only a publishable key: a secret key or a user token is 403, none 401, a malformed id 400', async () => {
      const id = await project();
      const message = 'The viewer routes take a publishable key (pk_test_...) as the bearer token';
      expectError(await t.http.get(`/viewer/projects/${id}`, { token: secret }), 403, message);
      expectError(await t.http.get(`/viewer/projects/${id}`, { token: owner.token }), 403, message);
      expectError(await t.http.get(`/viewer/projects/${id}/children`, { token: owner.token }), 403, message);
      expectError(await t.http.get(`/viewer/projects/${id}`), 401);
      expectError(
        await t.http.get(`/viewer/projects/${id}`, { token: `pk_test_${randomBytes(32).toString('base64url')}` }),
        401,
        'Invalid API key',
      );
      expectError(await t.http.get('/viewer/projects/nope', viewer()), 400);
    });

    it("answer another account's project exactly as an unknown one (404), and a key acts in its own project only", async () => {
      const id = await project();
      const foreign = await t.http.get(`/viewer/projects/${id}`, viewer({}, strangerPublishable));
      const unknown = await t.http.get(`/viewer/projects/${UNKNOWN_ID}`, viewer({}, strangerPublishable));
      expectNotFound(foreign, 'Project not found');
      expect({ status: foreign.status, body: foreign.body }).toEqual({ status: unknown.status, body: unknown.body });
      expectError(
        await t.http.get(`/viewer/projects/${id}`, viewer({ 'x-project-id': stranger.projectId })),
        404,
        'Platform project not found',
      );
      // A link of the owner's project does not open it through another account's key.
      const hidden = await project({ access: 'linkPrivate' });
      const link = await shareLink(hidden);
      expectNotFound(
        await t.http.get(`/viewer/projects/${hidden}`, viewer({ 'x-share-token': link.token }, strangerPublishable)),
      );
    });

    it("need the projects API enabled in the key's project (403)", async () => {
      const other = ok(
        await t.http.post('/api/v1/platform/projects', { name: 'No content', enabledApis: ['customers'] }, as()),
        201,
      ).body.data.id;
      const key = ok(
        await t.http.post(`/api/v1/platform/projects/${other}/keys`, { name: 'app', kind: 'publishable' }, as()),
        201,
      ).body.data.key;
      expectError(
        await t.http.get(`/viewer/projects/${UNKNOWN_ID}`, { token: key }),
        403,
        'The projects API is not enabled for this project',
      );
    });

    it("list a visible project's visible children; a hidden project's children are 404", async () => {
      const parent = await project({ primaryTitle: 'Season', access: 'public' });
      const open = await project({ primaryTitle: 'Open', parentId: parent });
      await project({ primaryTitle: 'Draft', parentId: parent, status: 'draft' });
      const linked = await project({ primaryTitle: 'Linked', parentId: parent, access: 'linkPrivate' });
      const granted1 = await project({ primaryTitle: 'Granted', parentId: parent, access: 'permissions' });
      await project({ primaryTitle: 'Granted to no one', parentId: parent, access: 'permissions' });
      await grant(granted1, { userId: granted.id });
      const childLink = await shareLink(linked);

      const ids = (res: HttpResponse) => res.body.map((child: { id: string }) => child.id);
      const anyone = await t.http.get(`/viewer/projects/${parent}/children`, viewer());
      expect(anyone.status).toBe(200);
      expect(ids(anyone)).toEqual([open]);
      expect(anyone.headers.get('x-total-count')).toBe('1');
      expect(Object.keys(anyone.body[0]).sort()).toEqual(VIEWER_FIELDS);
      expect(anyone.body[0].parentId).toBe(parent);
      expect(
        ids(await t.http.get(`/viewer/projects/${parent}/children`, viewer({ 'x-share-token': childLink.token }))),
      ).toEqual([open, linked]);
      expect(
        ids(await t.http.get(`/viewer/projects/${parent}/children`, viewer({ 'x-viewer-token': granted.token }))),
      ).toEqual([open, granted1]);
      const paged = await t.http.get(
        `/viewer/projects/${parent}/children?limit=1&skip=1`,
        viewer({ 'x-share-token': childLink.token, 'x-viewer-token': granted.token }),
      );
      expect(ids(paged)).toEqual([linked]);
      expect(paged.headers.get('x-total-count')).toBe('3');

      const draft = await project({ status: 'draft' });
      expectNotFound(await t.http.get(`/viewer/projects/${draft}/children`, viewer()));
      expectNotFound(await t.http.get(`/viewer/projects/${UNKNOWN_ID}/children`, viewer()));
    });

    it("a link on the parent opens its linkPrivate children; a child's link never opens a linkPrivate parent", async () => {
      const parent = await project({ access: 'linkPrivate' });
      const child = await project({ access: 'linkPrivate', parentId: parent });
      const parentLink = await shareLink(parent);
      const childLink = await shareLink(child);
      expect(
        (await t.http.get(`/viewer/projects/${child}`, viewer({ 'x-share-token': parentLink.token }))).status,
      ).toBe(200);
      expect(
        (
          await t.http.get(`/viewer/projects/${parent}/children`, viewer({ 'x-share-token': parentLink.token }))
        ).body.map((one: { id: string }) => one.id),
      ).toEqual([child]);
      expectNotFound(await t.http.get(`/viewer/projects/${child}`, viewer({ 'x-share-token': childLink.token })));
      expectNotFound(await t.http.get(`/viewer/projects/${parent}`, viewer({ 'x-share-token': childLink.token })));
    });

    it('a grant on a public parent does not open a linkPrivate child, nor a link a permissions child', async () => {
      const parent = await project({ access: 'public' });
      const linkChild = await project({ access: 'linkPrivate', parentId: parent });
      const grantChild = await project({ access: 'permissions', parentId: parent });
      await grant(parent, { userId: granted.id });
      const link = await shareLink(parent);
      expectNotFound(await t.http.get(`/viewer/projects/${linkChild}`, viewer({ 'x-viewer-token': granted.token })));
      expectNotFound(await t.http.get(`/viewer/projects/${grantChild}`, viewer({ 'x-share-token': link.token })));
      expect((await t.http.get(`/viewer/projects/${linkChild}`, viewer({ 'x-share-token': link.token }))).status).toBe(
        200,
      );
      expect(
        (await t.http.get(`/viewer/projects/${grantChild}`, viewer({ 'x-viewer-token': granted.token }))).status,
      ).toBe(200);
    });
  });

  /**
   * The viewer matrix: the access value on the read project or on its parent, the parent's status,
   * the link presented (made on the parent) and the grant held (on the parent). Exactly these are
   * 200: a published parent, and public access, a valid link for linkPrivate, a live grant for
   * permissions. A wrong password on an otherwise valid link for linkPrivate is 401; the rest 404.
   */
  describe('the viewer matrix', () => {
    interface Fixture {
      project: string;
      links: Record<(typeof LINKS)[number], string>;
    }
    const fixtures = new Map<string, Fixture>();
    const cellKey = (access: Access, status: Status, placement: (typeof PLACEMENTS)[number]) =>
      `${access}/${status}/${placement}`;

    beforeAll(async () => {
      for (const access of ACCESSES) {
        for (const status of STATUSES) {
          for (const placement of PLACEMENTS) {
            // Made published and with its access first, then given the status: an archived parent keeps them.
            const parent = await project({ access: placement === 'ancestor' ? access : 'public' });
            const child = await project({ access: placement === 'project' ? access : 'public', parentId: parent });
            if (status !== 'published') ok(await t.http.put(`/projects/${parent}`, { status }, as()));
            const valid = await shareLink(parent);
            const expired = await shareLink(parent);
            await expire('share_links', expired.id);
            const revoked = await shareLink(parent);
            ok(await t.http.delete(`/projects/${parent}/share-links/${revoked.id}`, as()));
            const protectedLink = await shareLink(parent, { password: PASSWORD });
            await grant(parent, { userId: granted.id });
            const lapsed = await grant(parent, { email: grantedByEmail.email });
            await expire('grants', lapsed.id);
            fixtures.set(cellKey(access, status, placement), {
              project: child,
              links: {
                valid: valid.token,
                expired: expired.token,
                revoked: revoked.token,
                wrongPassword: protectedLink.token,
              },
            });
          }
        }
      }
    });

    function expected(
      access: Access,
      status: Status,
      link: (typeof LINKS)[number],
      grantState: (typeof GRANTS)[number],
    ): number {
      if (status !== 'published') return 404;
      if (access === 'public') return 200;
      if (access === 'linkPrivate') return link === 'valid' ? 200 : link === 'wrongPassword' ? 401 : 404;
      return grantState === 'present' ? 200 : 404;
    }

    const cells = ACCESSES.flatMap((access) =>
      STATUSES.flatMap((status) =>
        PLACEMENTS.flatMap((placement) =>
          LINKS.flatMap((link) =>
            GRANTS.map((grantState) => ({
              access,
              status,
              placement,
              link,
              grantState,
              status_: expected(access, status, link, grantState),
            })),
          ),
        ),
      ),
    );

    it('has exactly the expected 200s', () => {
      expect(cells).toHaveLength(144);
      expect(cells.filter((cell) => cell.status_ === 200)).toHaveLength(2 * (8 + 2 + 4));
    });

    test.each(cells)(
      '$access on the $placement, parent $status, link $link, grant $grantState: $status_',
      async ({ access, status, placement, link, grantState, status_ }) => {
        const fixture = fixtures.get(cellKey(access, status, placement))!;
        const headers: Record<string, string> = {
          'x-share-token': fixture.links[link],
          'x-viewer-token': grantState === 'present' ? granted.token : grantedByEmail.token,
        };
        if (link === 'wrongPassword') headers['x-share-password'] = 'not the password';
        const res = await t.http.get(`/viewer/projects/${fixture.project}`, viewer(headers));
        expect(res.status).toBe(status_);
        if (status_ === 200) expect(res.body.id).toBe(fixture.project);
        else if (status_ === 404)
          expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Project not found' });
        else expect(res.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Wrong share link password' });
      },
    );

    it('a password link without its password is 401 asking for it, and opens with it', async () => {
      const fixture = fixtures.get(cellKey('linkPrivate', 'published', 'ancestor'))!;
      const url = `/viewer/projects/${fixture.project}`;
      expectError(
        await t.http.get(url, viewer({ 'x-share-token': fixture.links.wrongPassword })),
        401,
        'This share link needs its password: send it in X-Share-Password',
      );
      expect(
        (await t.http.get(url, viewer({ 'x-share-token': fixture.links.wrongPassword, 'x-share-password': PASSWORD })))
          .status,
      ).toBe(200);
    });
  });
});
