import { Types } from 'mongoose';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createFirstAdmin, createUser, TestUser, uniqueEmail } from '../support/auth';
import { OCTETS, pathOf, pngFixture, settledAsset, TUS } from '../support/assets';
import { expectError, expectNotFound } from '../support/expect-error';
import type { HttpResponse } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

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
    const body = { clientId, name: 'Studio', username: `studio_${randomBytes(5).toString('hex')}`, avatarUrl: 'https://cdn.example.com/s.png', role: 'creator' };
    return ok(await t.http.post('/channels', body, as(by))).body.id;
  };
  const createProject = async (channel: string, fields: Record<string, unknown> = {}): Promise<string> =>
    ok(await t.http.post(`/channels/${channel}/projects`, { primaryTitle: 'Blue Hours', projectTypeId: 'album', ...fields }, as(admin)), 201).body._id;
  const addCollaborator = async (channel: string, user: TestUser, role: string) =>
    ok(await t.http.post(`/channels/${channel}/collaborators`, { userId: user.id, role }, as(admin)), 201);

  /** A ready asset of `bytes`, uploaded at its one-time URL by the admin. */
  const readyAsset = async (project: string, fields: Record<string, unknown>, bytes: Buffer): Promise<string> => {
    const created = ok(await t.http.post(`/projects/${project}/assets`, { title: 'File', size: bytes.length, ...fields }, as(admin)), 201);
    const url = pathOf(created.body.upload.url);
    ok(await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(bytes.length) } }), 201);
    ok(await t.http.request('PATCH', url, undefined, { raw: bytes, headers: { ...TUS, ...OCTETS, 'upload-offset': '0' } }), 204);
    expect((await settledAsset(t.http, created.body.asset.id, admin.token)).status).toBe('ready');
    return created.body.asset.id;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'content-side-doors-e2e-'));
    t = await createTestApp({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', DATA_DIR: dataDir });
    admin = await createFirstAdmin(t.http);
    clientId = ok(await t.http.post('/clients', { name: 'Acme Media', email: uniqueEmail('client') }, as(admin)), 201).body.id;
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
    ])('a text asset declared %s is an attachment of application/octet-stream, sandboxed, on every byte route', async (mimeType, fileName, text) => {
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
    });

    it('plain text and raster images stay inline, sandboxed; the thumbnail too', async () => {
      const text = await readyAsset(project, { kind: 'text', fileName: 'notes.txt', mimeType: 'text/plain' }, Buffer.from('just words'));
      const plain = await t.http.get(`/assets/${text}/content`, as(admin));
      expect(plain.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(plain.headers.get('content-disposition')).toMatch(/^inline; /);
      expect(plain.headers.get('content-security-policy')).toBe(CSP);

      const image = await readyAsset(project, { kind: 'image', fileName: 'cover.png', mimeType: 'image/png' }, await pngFixture(40, 24));
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
      for (const user of [viewer, noRole]) expectRoleRequired(await t.http.post(`/projects/${project}/assets`, assetBody, as(user)), 'editor');
      expect(await t.db.collection('assets').countDocuments()).toBe(before);
      expect((await t.http.post(`/projects/${project}/assets`, assetBody, as(editor))).status).toBe(201);
      // Reading stays open to every member, as for projects.
      expect((await t.http.get(`/assets/${asset}`, as(viewer))).status).toBe(200);
    });

    it("a channel viewer neither renames, deletes nor uploads to another user's asset", async () => {
      for (const user of [viewer, noRole]) {
        expectRoleRequired(await t.http.patch(`/assets/${asset}`, { title: 'Mine now' }, as(user)), 'editor');
        expectRoleRequired(await t.http.delete(`/assets/${asset}`, as(user)), 'editor');
        expectRoleRequired(await t.http.post(`/assets/${asset}/upload`, undefined, { ...as(user), headers: { ...TUS, 'upload-length': '100' } }), 'editor');
      }
      const stored = await t.db.collection('assets').findOne({ _id: new Types.ObjectId(asset) });
      expect(stored).toMatchObject({ title: 'Cover', status: 'waiting' });
      // An unknown asset stays 404 before any role is asked.
      expectNotFound(await t.http.patch('/assets/6650c0ffee0000000000ffff', { title: 'x' }, as(viewer)), 'Asset not found');
      expect((await t.http.patch(`/assets/${asset}`, { title: 'Front' }, as(editor))).status).toBe(200);
    });

    it('grants and share links need a channel manager: a stranger granted by a viewer reads nothing', async () => {
      const stranger = await createFirstAdmin(t.http);
      for (const user of [viewer, editor, noRole]) {
        expectRoleRequired(await t.http.post(`/projects/${project}/grants`, { userId: stranger.id, role: 'viewer' }, as(user)), 'manager');
        expectRoleRequired(await t.http.post(`/projects/${project}/share-links`, {}, as(user)), 'manager');
      }
      expect(await t.db.collection('grants').countDocuments({ contentProjectId: new Types.ObjectId(project) })).toBe(0);
      expect(await t.db.collection('share_links').countDocuments({ contentProjectId: new Types.ObjectId(project) })).toBe(0);

      const manager = await createUser(t.http, 'developer', admin.token);
      await addCollaborator(channel, manager, 'manager');
      const link = ok(await t.http.post(`/projects/${project}/share-links`, {}, as(manager)), 201);
      expectRoleRequired(await t.http.delete(`/projects/${project}/share-links/${link.body.id}`, as(editor)), 'manager');
      ok(await t.http.delete(`/projects/${project}/share-links/${link.body.id}`, as(manager)));
      const grant = ok(await t.http.post(`/projects/${project}/grants`, { userId: stranger.id, role: 'viewer' }, as(manager)), 201);
      expectRoleRequired(await t.http.delete(`/projects/${project}/grants/${grant.body.id}`, as(viewer)), 'manager');
    });

    it('deleting a channel needs its owner: a viewer, an editor or a manager leaves it and its projects in place', async () => {
      const doomed = await createChannel(admin);
      const inIt = await createProject(doomed);
      const manager = await createUser(t.http, 'developer', admin.token);
      await addCollaborator(doomed, viewer, 'viewer');
      await addCollaborator(doomed, manager, 'manager');
      for (const user of [viewer, manager, noRole]) expectRoleRequired(await t.http.delete(`/channels/${doomed}`, as(user)), 'owner');
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
      const stored = await t.db.collection('channel_collaborators').findOne({ channelId: new Types.ObjectId(channel), userId: new Types.ObjectId(admin.id) });
      expect(stored).toMatchObject({ role: 'owner', expiresAt: null });

      const next = await createUser(t.http, 'developer', admin.token);
      await addCollaborator(channel, next, 'owner');
      expect((await t.http.patch(url, { role: 'manager' }, as(admin))).status).toBe(200);
      expectError(await t.http.delete(`/channels/${channel}/collaborators/${next.id}`, as(next)), 409, /keeps at least one owner/);
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
      const res = await t.http.post(`/projects/${project}/assets`, { kind: 'image', title: 'x', fileName, size: 10, mimeType: 'image/png' }, as(admin));
      expectError(res, 422);
      expect((res.body.errors as { field: string }[]).map((error) => error.field)).toEqual(['fileName']);
      expect(await t.db.collection('assets').countDocuments({ contentProjectId: new Types.ObjectId(project) })).toBe(0);
    });

    it('keeps names that only look alike (console.png, COM10, a name with spaces inside)', async () => {
      const project = await createProject(await createChannel(admin));
      for (const fileName of ['console.png', 'COM10.png', 'my cover.png', 'Été.png']) {
        expect((await t.http.post(`/projects/${project}/assets`, { kind: 'image', title: 'x', fileName, size: 10, mimeType: 'image/png' }, as(admin))).status).toBe(201);
      }
    });
  });
});
