import { Types } from 'mongoose';
import { mkdtempSync, rmSync } from 'node:fs';
import { get, type ClientRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createFirstAdmin, createUser, TestUser, uniqueEmail } from '../support/auth';
import { OCTETS, pathOf, pngFixture, settledAsset, TUS } from '../support/assets';
import { createContentProject } from '../support/content';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { testDatabaseUri } from '../support/test-database';
import { Redis } from 'ioredis';
import { expectError, expectNotFound } from '../support/expect-error';
import type { HttpResponse } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

/** A download whose reader stops reading at once (the response paused), as a stalled player is. */
function pausedDownload(url: string): Promise<{ response: IncomingMessage; request: ClientRequest }> {
  return new Promise((resolve, reject) => {
    const request = get(url, (response) => {
      response.pause();
      // Cut by the server or by the test: the response ends in an error ("aborted").
      response.on('error', () => undefined);
      resolve({ response, request });
    });
    request.on('error', (error) => (request.writableEnded ? undefined : reject(error)));
  });
}

const CSP = "default-src 'none'; sandbox";

/** The 403 every content route answers for want of a channel role: one code, the role named. */
function expectRoleRequired(res: HttpResponse, role: string): void {
  expectError(res, 403, `This needs the channel role ${role} or above, or the platform role admin`);
  expect(res.body.code).toBe('channel_role_required');
}

/**
 * The content paths beside the guarded ones, tried as an attacker would (issue 48): user bytes on
 * the service's origin, writes of content without the channel role the spec gives, and a channel
 * left without an owner.
 */
describe('content side doors', () => {
  let t: TestApp;
  let dataDir: string;
  let admin: TestUser;
  let clientId: string;

  const as = (user: TestUser) => ({ token: user.token });
  const ok = (res: HttpResponse, status = 200): HttpResponse => {
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
    return res;
  };
  const createChannel = async (by: TestUser): Promise<string> => {
    const body = {
      clientId,
      name: 'Studio',
      username: `studio_${randomBytes(5).toString('hex')}`,
      avatarUrl: 'https://cdn.example.com/s.png',
      role: 'creator',
    };
    return ok(await t.http.post('/channels', body, as(by))).body.id;
  };
  const createProject = async (channel: string, fields: Record<string, unknown> = {}): Promise<string> =>
    ok(
      await t.http.post(
        `/channels/${channel}/projects`,
        { primaryTitle: 'Blue Hours', projectTypeId: 'album', ...fields },
        as(admin),
      ),
      201,
    ).body._id;
  const addCollaborator = async (channel: string, user: TestUser, role: string) =>
    ok(await t.http.post(`/channels/${channel}/collaborators`, { userId: user.id, role }, as(admin)), 201);

  /** A ready asset of `bytes`, uploaded at its one-time URL by the admin. */
  const readyAsset = async (project: string, fields: Record<string, unknown>, bytes: Buffer): Promise<string> => {
    const created = ok(
      await t.http.post(`/projects/${project}/assets`, { title: 'File', size: bytes.length, ...fields }, as(admin)),
      201,
    );
    const url = pathOf(created.body.upload.url);
    ok(await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(bytes.length) } }), 201);
    ok(
      await t.http.request('PATCH', url, undefined, {
        raw: bytes,
        headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
      }),
      204,
    );
    expect((await settledAsset(t.http, created.body.asset.id, admin.token)).status).toBe('ready');
    return created.body.asset.id;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'content-side-doors-e2e-'));
    t = await createTestApp({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', DATA_DIR: dataDir });
    admin = await createFirstAdmin(t.http);
    clientId = ok(await t.http.post('/clients', { name: 'Acme Media', email: uniqueEmail('client') }, as(admin)), 201)
      .body.id;
  });

  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('user bytes never run on the service origin', () => {
    let project: string;

    beforeAll(async () => {
      project = await createProject(await createChannel(admin));
    });

    it.each([
      ['text/html', 'page.html', '<!doctype html><script>fetch("/api/v1/me")</script>'],
      ['text/xml', 'image.xml', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
      ['text/javascript', 'app.js', 'fetch("/api/v1/me", { credentials: "include" })'],
    ])(
      'a text asset declared %s is an attachment of application/octet-stream, sandboxed, on every byte route',
      async (mimeType, fileName, text) => {
        const id = await readyAsset(project, { kind: 'text', fileName, mimeType }, Buffer.from(text));
        const owners = await t.http.get(`/assets/${id}/content`, as(admin));
        const signed = await fetch(ok(await t.http.get(`/assets/${id}/content-url`, as(admin))).body.url as string);
        for (const res of [owners, signed]) {
          expect(res.status).toBe(200);
          expect(res.headers.get('content-type')).toBe('application/octet-stream');
          expect(res.headers.get('content-disposition')).toMatch(/^attachment; /);
          expect(res.headers.get('content-security-policy')).toBe(CSP);
          expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        }
        expect(owners.headers.get('cross-origin-resource-policy')).toBe('same-site');
        // A player of any site embeds the signed URL, its only credential.
        expect(signed.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      },
    );

    it('plain text and raster images stay inline, sandboxed; the thumbnail too', async () => {
      const text = await readyAsset(
        project,
        { kind: 'text', fileName: 'notes.txt', mimeType: 'text/plain' },
        Buffer.from('just words'),
      );
      const plain = await t.http.get(`/assets/${text}/content`, as(admin));
      expect(plain.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(plain.headers.get('content-disposition')).toMatch(/^inline; /);
      expect(plain.headers.get('content-security-policy')).toBe(CSP);

      const image = await readyAsset(
        project,
        { kind: 'image', fileName: 'cover.png', mimeType: 'image/png' },
        await pngFixture(40, 24),
      );
      const png = await t.http.get(`/assets/${image}/content`, as(admin));
      expect(png.headers.get('content-type')).toBe('image/png');
      expect(png.headers.get('content-disposition')).toMatch(/^inline; /);
      expect(png.headers.get('content-security-policy')).toBe(CSP);
      const thumbnail = await t.http.get(`/assets/${image}/thumbnail`, as(admin));
      expect(thumbnail.status).toBe(200);
      expect(thumbnail.headers.get('content-security-policy')).toBe(CSP);
      expect(thumbnail.headers.get('x-content-type-options')).toBe('nosniff');
      expect(thumbnail.headers.get('cross-origin-resource-policy')).toBe('same-site');
    });
  });

  describe('channel roles on every content route', () => {
    let channel: string;
    let project: string;
    let asset: string;
    let viewer: TestUser;
    let editor: TestUser;
    let noRole: TestUser;
    const assetBody = { kind: 'image', title: 'Cover', fileName: 'cover.png', size: 100, mimeType: 'image/png' };

    beforeAll(async () => {
      channel = await createChannel(admin);
      project = await createProject(channel, { access: 'permissions', status: 'published' });
      viewer = await createUser(t.http, 'developer', admin.token);
      editor = await createUser(t.http, 'developer', admin.token);
      noRole = await createUser(t.http, 'developer', admin.token);
      await addCollaborator(channel, viewer, 'viewer');
      await addCollaborator(channel, editor, 'editor');
      asset = ok(await t.http.post(`/projects/${project}/assets`, assetBody, as(admin)), 201).body.asset.id;
    });

    it('a channel viewer, or a member with no channel role, creates no asset; an editor does', async () => {
      const before = await t.db.collection('assets').countDocuments();
      for (const user of [viewer, noRole])
        expectRoleRequired(await t.http.post(`/projects/${project}/assets`, assetBody, as(user)), 'editor');
      expect(await t.db.collection('assets').countDocuments()).toBe(before);
      expect((await t.http.post(`/projects/${project}/assets`, assetBody, as(editor))).status).toBe(201);
      // Reading stays open to every member, as for projects.
      expect((await t.http.get(`/assets/${asset}`, as(viewer))).status).toBe(200);
    });

    it("a channel viewer neither renames, deletes nor uploads to another user's asset", async () => {
      for (const user of [viewer, noRole]) {
        expectRoleRequired(await t.http.patch(`/assets/${asset}`, { title: 'Mine now' }, as(user)), 'editor');
        expectRoleRequired(await t.http.delete(`/assets/${asset}`, as(user)), 'editor');
        expectRoleRequired(
          await t.http.post(`/assets/${asset}/upload`, undefined, {
            ...as(user),
            headers: { ...TUS, 'upload-length': '100' },
          }),
          'editor',
        );
      }
      const stored = await t.db.collection('assets').findOne({ _id: new Types.ObjectId(asset) });
      expect(stored).toMatchObject({ title: 'Cover', status: 'waiting' });
      // An unknown asset stays 404 before any role is asked.
      expectNotFound(
        await t.http.patch('/assets/6650c0ffee0000000000ffff', { title: 'x' }, as(viewer)),
        'Asset not found',
      );
      expect((await t.http.patch(`/assets/${asset}`, { title: 'Front' }, as(editor))).status).toBe(200);
    });

    it('grants and share links need a channel manager: a stranger granted by a viewer reads nothing', async () => {
      const stranger = await createFirstAdmin(t.http);
      for (const user of [viewer, editor, noRole]) {
        expectRoleRequired(
          await t.http.post(`/projects/${project}/grants`, { userId: stranger.id, role: 'viewer' }, as(user)),
          'manager',
        );
        expectRoleRequired(await t.http.post(`/projects/${project}/share-links`, {}, as(user)), 'manager');
      }
      expect(await t.db.collection('grants').countDocuments({ contentProjectId: new Types.ObjectId(project) })).toBe(0);
      expect(
        await t.db.collection('share_links').countDocuments({ contentProjectId: new Types.ObjectId(project) }),
      ).toBe(0);

      const manager = await createUser(t.http, 'developer', admin.token);
      await addCollaborator(channel, manager, 'manager');
      const link = ok(await t.http.post(`/projects/${project}/share-links`, {}, as(manager)), 201);
      expectRoleRequired(
        await t.http.delete(`/projects/${project}/share-links/${link.body.id}`, as(editor)),
        'manager',
      );
      ok(await t.http.delete(`/projects/${project}/share-links/${link.body.id}`, as(manager)));
      const grant = ok(
        await t.http.post(`/projects/${project}/grants`, { userId: stranger.id, role: 'viewer' }, as(manager)),
        201,
      );
      expectRoleRequired(await t.http.delete(`/projects/${project}/grants/${grant.body.id}`, as(viewer)), 'manager');
    });

    it('updating a channel needs a manager: a viewer, an editor or a member with no role changes neither its name nor its projects', async () => {
      const target = await createChannel(admin);
      const before = ok(await t.http.get(`/channels/${target}`, as(admin))).body;
      await addCollaborator(target, viewer, 'viewer');
      await addCollaborator(target, editor, 'editor');
      for (const user of [viewer, editor, noRole]) {
        expectRoleRequired(await t.http.put(`/channels/${target}`, { name: 'Taken over' }, as(user)), 'manager');
        expectRoleRequired(await t.http.put(`/channels/${target}`, { projectIds: [] }, as(user)), 'manager');
      }
      expect(ok(await t.http.get(`/channels/${target}`, as(admin))).body).toEqual(before);
      const manager = await createUser(t.http, 'developer', admin.token);
      await addCollaborator(target, manager, 'manager');
      ok(await t.http.put(`/channels/${target}`, { name: 'Renamed' }, as(manager)));
      expectNotFound(
        await t.http.put('/channels/6650c0ffee0000000000ffff', { name: 'x' }, as(noRole)),
        'Channel not found',
      );
    });

    it('an editor neither moves a project out of its channel nor puts a top-level one under another (as strong as deleting it)', async () => {
      const top = await createProject(channel);
      const other = await createProject(channel);
      const leaf = await createProject(channel, { parentId: other });
      // A channel of the editor's own, where they are owner.
      const own = await createChannel(editor);
      expectRoleRequired(await t.http.put(`/projects/${leaf}`, { channelId: own }, as(editor)), 'manager');
      expectRoleRequired(await t.http.put(`/projects/${top}`, { parentId: other }, as(editor)), 'manager');
      expect(await t.db.collection('projects').findOne({ _id: new Types.ObjectId(leaf) })).toMatchObject({
        channelId: new Types.ObjectId(channel),
      });
      expect(await t.db.collection('projects').findOne({ _id: new Types.ObjectId(top) })).toMatchObject({
        parentId: null,
      });
      // So the top-level project is still one only a manager deletes.
      expectRoleRequired(await t.http.delete(`/projects/${top}?cascade=true`, as(editor)), 'manager');
      // Editing within the channel stays an editor's: a sub-project moves under another parent.
      ok(await t.http.put(`/projects/${leaf}`, { parentId: top }, as(editor)));
      const manager = await createUser(t.http, 'developer', admin.token);
      await addCollaborator(channel, manager, 'manager');
      ok(await t.http.put(`/projects/${top}`, { parentId: other }, as(manager)));
    });

    it('deleting a channel needs its owner: a viewer, an editor or a manager leaves it and its projects in place', async () => {
      const doomed = await createChannel(admin);
      const inIt = await createProject(doomed);
      const manager = await createUser(t.http, 'developer', admin.token);
      await addCollaborator(doomed, viewer, 'viewer');
      await addCollaborator(doomed, manager, 'manager');
      for (const user of [viewer, manager, noRole])
        expectRoleRequired(await t.http.delete(`/channels/${doomed}`, as(user)), 'owner');
      expect((await t.http.get(`/channels/${doomed}`, as(admin))).status).toBe(200);
      expect((await t.http.get(`/projects/${inIt}`, as(admin))).status).toBe(200);

      const owner = await createUser(t.http, 'developer', admin.token);
      await addCollaborator(doomed, owner, 'owner');
      expect((await t.http.delete(`/channels/${doomed}`, as(owner))).status).toBe(200);
      expectNotFound(await t.http.get(`/projects/${inIt}`, as(admin)), 'Project not found');
      // Unknown: 404 to anyone, never a 403 that says it exists.
      expectNotFound(await t.http.delete(`/channels/${doomed}`, as(noRole)), 'Channel not found');
    });
  });

  describe('a channel keeps an owner', () => {
    it('its last owner neither steps down, takes an end, nor is removed (409 last_channel_owner); with another owner, they may', async () => {
      const channel = await createChannel(admin);
      const url = `/channels/${channel}/collaborators/${admin.id}`;
      for (const res of [
        await t.http.patch(url, { role: 'manager' }, as(admin)),
        await t.http.patch(url, { expiresAt: '2099-01-01T00:00:00.000Z' }, as(admin)),
        await t.http.delete(url, as(admin)),
      ]) {
        expectError(res, 409, /keeps at least one owner/);
        expect(res.body.code).toBe('last_channel_owner');
      }
      const stored = await t.db
        .collection('channel_collaborators')
        .findOne({ channelId: new Types.ObjectId(channel), userId: new Types.ObjectId(admin.id) });
      expect(stored).toMatchObject({ role: 'owner', expiresAt: null });

      const next = await createUser(t.http, 'developer', admin.token);
      await addCollaborator(channel, next, 'owner');
      expect((await t.http.patch(url, { role: 'manager' }, as(admin))).status).toBe(200);
      expectError(
        await t.http.delete(`/channels/${channel}/collaborators/${next.id}`, as(next)),
        409,
        /keeps at least one owner/,
      );
    });
  });

  describe('share links and viewers', () => {
    let publishable: string;

    beforeAll(async () => {
      publishable = ok(
        await t.http.post(
          `/api/v1/platform/projects/${admin.projectId}/keys`,
          { name: 'app', kind: 'publishable' },
          as(admin),
        ),
        201,
      ).body.data.key;
    });

    it("a link's password is guessed at most 10 times a window: then 429 with Retry-After, the right one included", async () => {
      const project = await createProject(await createChannel(admin), { access: 'linkPrivate', status: 'published' });
      const link = ok(
        await t.http.post(`/projects/${project}/share-links`, { password: 'blue-hours-preview' }, as(admin)),
        201,
      ).body;
      const read = (password: string) =>
        t.http.get(`/viewer/projects/${project}`, {
          token: publishable,
          headers: { 'x-share-token': link.token, 'x-share-password': password },
        });
      expect((await read('blue-hours-preview')).status).toBe(200);
      for (let guess = 0; guess < 10; guess++)
        expectError(await read(`guess-${guess}-wrong`), 401, 'Wrong share link password');
      for (const password of ['guess-11-wrong', 'blue-hours-preview']) {
        const refused = await read(password);
        expectError(refused, 429, /Too many wrong passwords for this share link/);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(800);
      }
      // Another link of the project is counted apart.
      const other = ok(
        await t.http.post(`/projects/${project}/share-links`, { password: 'another-password' }, as(admin)),
        201,
      ).body;
      const through = await t.http.get(`/viewer/projects/${project}`, {
        token: publishable,
        headers: { 'x-share-token': other.token, 'x-share-password': 'another-password' },
      });
      expect(through.status).toBe(200);
    });
  });

  describe('share link passwords under a burst', () => {
    it('30 concurrent wrong guesses: at most 10 are compared (401), the rest 429', async () => {
      const publishable = ok(
        await t.http.post(
          `/api/v1/platform/projects/${admin.projectId}/keys`,
          { name: 'burst', kind: 'publishable' },
          as(admin),
        ),
        201,
      ).body.data.key;
      const project = await createProject(await createChannel(admin), { access: 'linkPrivate', status: 'published' });
      const link = ok(
        await t.http.post(`/projects/${project}/share-links`, { password: 'burst-password' }, as(admin)),
        201,
      ).body;
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, guess) =>
          t.http.get(`/viewer/projects/${project}`, {
            token: publishable,
            headers: { 'x-share-token': link.token, 'x-share-password': `wrong-${guess}` },
          }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(10);
      expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    });
  });

  describe('the tus routes answer as every route does', () => {
    it('no CORS header while CORS is off, the request id and nosniff', async () => {
      const project = await createProject(await createChannel(admin));
      const created = ok(
        await t.http.post(
          `/projects/${project}/assets`,
          { kind: 'text', title: 't', fileName: 't.txt', size: 4, mimeType: 'text/plain' },
          as(admin),
        ),
        201,
      );
      const origin = { origin: 'https://evil.example' };
      for (const res of [
        await t.http.post(pathOf(created.body.upload.url), undefined, {
          headers: { ...TUS, ...origin, 'upload-length': '4' },
        }),
        await t.http.request('HEAD', `/assets/${created.body.asset.id}/upload`, undefined, {
          ...as(admin),
          headers: { ...TUS, ...origin },
        }),
        await t.http.request('PATCH', pathOf(created.body.upload.url), undefined, {
          raw: Buffer.from('abcd'),
          headers: { ...TUS, ...OCTETS, ...origin, 'upload-offset': '0' },
        }),
      ]) {
        expect(res.status).toBeLessThan(300);
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
        expect(res.headers.get('access-control-expose-headers')).toBeNull();
        expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      }
    });
  });

  describe('file names', () => {
    it.each([
      ['a bidirectional override', 'evil\u202Egnp.exe'],
      ['a zero-width space', 'cover\u200B.png'],
      ['a device name', 'CON'],
      ['a device name with an extension', 'lpt1.png'],
      ['a device name before trailing dots', 'nul .'],
      ['only spaces', '   '],
      ['only dots and spaces', '. .'],
    ])('%s is refused with 422 naming fileName, nothing stored', async (_case, fileName) => {
      const project = await createProject(await createChannel(admin));
      const res = await t.http.post(
        `/projects/${project}/assets`,
        { kind: 'image', title: 'x', fileName, size: 10, mimeType: 'image/png' },
        as(admin),
      );
      expectError(res, 422);
      expect((res.body.errors as { field: string }[]).map((error) => error.field)).toEqual(['fileName']);
      expect(await t.db.collection('assets').countDocuments({ contentProjectId: new Types.ObjectId(project) })).toBe(0);
    });

    it('keeps names that only look alike (console.png, COM10, a name with spaces inside)', async () => {
      const project = await createProject(await createChannel(admin));
      for (const fileName of ['console.png', 'COM10.png', 'my cover.png', 'Été.png']) {
        expect(
          (
            await t.http.post(
              `/projects/${project}/assets`,
              { kind: 'image', title: 'x', fileName, size: 10, mimeType: 'image/png' },
              as(admin),
            )
          ).status,
        ).toBe(201);
      }
    });
  });
});

/** Limits that need an app of their own: a client address per proxy header, small counts and a short silence. */
describe('content side doors: limits per client and per credential', () => {
  let t: TestApp;
  let dataDir: string;
  let admin: TestUser;
  /** Downloads a test leaves paused: ended before the app stops, whatever the test's outcome. */
  const paused: ClientRequest[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'content-limits-e2e-'));
    t = await createTestApp({
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATA_DIR: dataDir,
      TRUST_PROXY: '127.0.0.1',
      RATE_LIMIT_PER_SECOND: '1000',
      ASSET_CONCURRENT_DOWNLOADS: '2',
      // Short, so a stalled reader is dropped within the test; not so short that a request answered
      // slowly on a loaded machine is dropped too.
      HTTP_CONNECTION_TIMEOUT_MS: '3000',
    });
    admin = await createFirstAdmin(t.http);
  });

  afterAll(async () => {
    for (const request of paused) request.destroy();
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("one client's flood of a publishable key is refused alone: another client of the app still reads", async () => {
    const limited = await createTestApp({
      LOG_LEVEL: 'silent',
      TRUST_PROXY: '127.0.0.1',
      RATE_LIMIT_PER_SECOND: '3',
      VIEWER_RATE_LIMIT_PER_SECOND: '100',
    });
    try {
      const owner = await createFirstAdmin(limited.http);
      const key = (
        await limited.http.post(
          `/api/v1/platform/projects/${owner.projectId}/keys`,
          { name: 'app', kind: 'publishable' },
          { token: owner.token },
        )
      ).body.data.key as string;
      const from = (address: string) =>
        limited.http.get(`/viewer/projects/6650c0ffee0000000000ffff`, {
          token: key,
          headers: { 'x-forwarded-for': address },
        });
      const flood = await Promise.all(Array.from({ length: 8 }, () => from('203.0.113.7')));
      expect(flood.map((res) => res.status)).toContain(429);
      // The unknown project is 404: the other client was let through to ask.
      expect((await from('198.51.100.20')).status).toBe(404);
    } finally {
      await limited.close();
    }
  });

  it('downloads one signed URL holds open are bounded (429), other credentials go on, and a stalled reader is dropped', async () => {
    const project = await createContentProject(t.http, admin.token);
    // Larger than what the kernel's socket buffers swallow: a paused reader stalls the server's writes.
    const bytes = Buffer.alloc(64 * 1024 * 1024, 'a');
    const created = await t.http.post(
      `/projects/${project}/assets`,
      { kind: 'text', title: 'Big', fileName: 'big.txt', size: bytes.length, mimeType: 'text/plain' },
      { token: admin.token },
    );
    expect(created.status).toBe(201);
    const url = pathOf(created.body.upload.url);
    expect(
      (await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(bytes.length) } })).status,
    ).toBe(201);
    expect(
      (
        await t.http.request('PATCH', url, undefined, {
          raw: bytes,
          headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
        })
      ).status,
    ).toBe(204);
    const id = created.body.asset.id as string;
    expect((await settledAsset(t.http, id, admin.token)).status).toBe('ready');
    const signed = (await t.http.get(`/assets/${id}/content-url`, { token: admin.token })).body.url as string;

    const stalled = [await pausedDownload(signed), await pausedDownload(signed)];
    paused.push(...stalled.map(({ request }) => request));
    expect(stalled.map(({ response }) => response.statusCode)).toEqual([200, 200]);
    const third = await fetch(signed);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    // The owner's own download is another credential's.
    const owners = await fetch(`${t.baseUrl}/assets/${id}/content`, {
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(owners.status).toBe(200);
    await owners.body?.cancel();

    // Silent past HTTP_CONNECTION_TIMEOUT_MS (3 s here), the stalled readers' connections are dropped
    // by the server and their downloads counted no more: the URL reads again. (A paused client does
    // not see the close until it reads again.)
    const deadline = Date.now() + 30_000;
    let after = await fetch(signed);
    while (after.status === 429 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = await fetch(signed);
    }
    expect(after.status).toBe(200);
    await after.body?.cancel();
    expect(stalled.every(({ response }) => !response.complete)).toBe(true);
  }, 90_000);
});

/** An app with CORS on and signed URLs on an origin of their own. */
describe('content side doors: CORS and ASSET_PUBLIC_URL', () => {
  let t: TestApp;
  let dataDir: string;
  let admin: TestUser;
  const APP = 'https://app.example.com';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'content-cors-e2e-'));
    t = await createTestApp({
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      CORS_ORIGINS: APP,
      ASSET_PUBLIC_URL: 'https://assets.example.com/',
    });
    admin = await createFirstAdmin(t.http);
  });

  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the tus routes answer an allowed origin as the app's CORS does, exposing the tus headers; another origin gets none", async () => {
    const project = await createContentProject(t.http, admin.token);
    const created = await t.http.post(
      `/projects/${project}/assets`,
      { kind: 'text', title: 't', fileName: 't.txt', size: 4, mimeType: 'text/plain' },
      { token: admin.token },
    );
    const url = pathOf(created.body.upload.url);
    const allowed = await t.http.post(url, undefined, { headers: { ...TUS, origin: APP, 'upload-length': '4' } });
    expect(allowed.status).toBe(201);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP);
    const exposed = (allowed.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'location', 'upload-offset', 'tus-resumable']));
    const other = await t.http.request('HEAD', url, undefined, { headers: { ...TUS, origin: 'https://evil.example' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('builds signed URLs on ASSET_PUBLIC_URL', async () => {
    const project = await createContentProject(t.http, admin.token);
    const bytes = Buffer.from('hello');
    const created = await t.http.post(
      `/projects/${project}/assets`,
      { kind: 'text', title: 't', fileName: 't.txt', size: bytes.length, mimeType: 'text/plain' },
      { token: admin.token },
    );
    const url = pathOf(created.body.upload.url);
    expect(
      (await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(bytes.length) } })).status,
    ).toBe(201);
    expect(
      (
        await t.http.request('PATCH', url, undefined, {
          raw: bytes,
          headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
        })
      ).status,
    ).toBe(204);
    expect((await settledAsset(t.http, created.body.asset.id, admin.token)).status).toBe('ready');
    const signed = (await t.http.get(`/assets/${created.body.asset.id}/content-url`, { token: admin.token })).body
      .url as string;
    expect(signed).toMatch(/^https:\/\/assets\.example\.com\/asset-content\/[0-9a-f]{24}\./);
    // That host reaches this service: the path reads the bytes here.
    const read = await t.http.get(pathOf(signed));
    expect(read.status).toBe(200);
    expect(read.text).toBe('hello');
  });
});

/** Two instances on one database and one Redis: a link's wrong passwords are counted where both count. */
describe('content side doors: share-link passwords counted across instances (REDIS_URL)', () => {
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    redis = await startRedisServer();
    const shared = {
      LOG_LEVEL: 'silent',
      REDIS_URL: redis.url,
      MONGODB_URI: testDatabaseUri(`content_shared_${randomBytes(4).toString('hex')}`),
      SHARE_PASSWORD_MAX_FAILURES: '4',
    };
    a = await createTestApp(shared);
    b = await createTestApp(shared);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('wrong passwords sent to either instance add up: past the limit both answer 429', async () => {
    const owner = await createFirstAdmin(a.http);
    const project = (
      await a.http.post(
        `/channels/${await channelFor(a, owner)}/projects`,
        { primaryTitle: 'Shown', projectTypeId: 'show', access: 'linkPrivate', status: 'published' },
        { token: owner.token },
      )
    ).body._id as string;
    const link = (
      await a.http.post(`/projects/${project}/share-links`, { password: 'blue-hours-preview' }, { token: owner.token })
    ).body as { id: string; token: string };
    const key = (
      await a.http.post(
        `/api/v1/platform/projects/${owner.projectId}/keys`,
        { name: 'app', kind: 'publishable' },
        { token: owner.token },
      )
    ).body.data.key as string;
    const read = (app: TestApp, password: string) =>
      app.http.get(`/viewer/projects/${project}`, {
        token: key,
        headers: { 'x-share-token': link.token, 'x-share-password': password },
      });

    for (const app of [a, b, a, b]) expect((await read(app, 'a-wrong-guess')).status).toBe(401);
    expectError(await read(a, 'a-wrong-guess'), 429, /Too many wrong passwords/);
    expectError(await read(b, 'blue-hours-preview'), 429, /Too many wrong passwords/);
    const client = new Redis(redis.url);
    try {
      // Every try with a password is counted before it is compared: the four wrong ones and the two refused.
      expect(await client.get(`platform:failures:share-password:${link.id}`)).toBe('6');
    } finally {
      client.disconnect();
    }
  });
});

async function channelFor(app: TestApp, owner: TestUser): Promise<string> {
  const client = (
    await app.http.post('/clients', { name: 'Studio owner', email: uniqueEmail('client') }, { token: owner.token })
  ).body.id as string;
  const body = {
    clientId: client,
    name: 'Studio',
    username: `studio_${randomBytes(5).toString('hex')}`,
    avatarUrl: 'https://cdn.example.com/a.png',
    role: 'creator',
  };
  return (await app.http.post('/channels', body, { token: owner.token })).body.id as string;
}
