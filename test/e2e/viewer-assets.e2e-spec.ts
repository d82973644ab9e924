import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { OCTETS, pathOf, settledAsset, sha256, TUS } from '../support/assets';
import { createFirstAdmin, TestUser, uniqueEmail } from '../support/auth';
import type { HttpResponse } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

const TEXT = Buffer.from(
  'Viewers read these bytes, a range of them, and each read through a link or a grant is counted.\n',
);

describe('viewers read asset bytes; share links and grants go with their projects', () => {
  let t: TestApp;
  let dataDir: string;
  let owner: TestUser;
  let stranger: TestUser;
  let granted: TestUser;
  let channel: string;
  let publishable: string;
  let strangerPublishable: string;

  const as = () => ({ token: owner.token });

  function ok(res: HttpResponse, status = 200): HttpResponse {
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
    return res;
  }

  async function project(fields: Record<string, unknown> = {}): Promise<string> {
    const body = { primaryTitle: 'Shown', projectTypeId: 'show', status: 'published', ...fields };
    return ok(await t.http.post(`/channels/${channel}/projects`, body, as()), 201).body._id;
  }

  /** An asset of the project, its upload created (so not ready) and, with `finish`, its bytes sent and processed. */
  async function asset(projectId: string, finish = true): Promise<string> {
    const created = ok(
      await t.http.post(
        `/projects/${projectId}/assets`,
        { kind: 'text', title: 'Notes', fileName: 'notes.txt', size: TEXT.length, mimeType: 'text/plain' },
        as(),
      ),
      201,
    ).body;
    if (!finish) return created.asset.id;
    const url = pathOf(created.upload.url);
    ok(await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(TEXT.length) } }), 201);
    ok(
      await t.http.request('PATCH', url, undefined, {
        raw: TEXT,
        headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
      }),
      204,
    );
    expect((await settledAsset(t.http, created.asset.id, owner.token)).status).toBe('ready');
    return created.asset.id;
  }

  /** A viewer's read of the asset's bytes, with the publishable key and these headers. */
  function read(
    assetId: string,
    headers: Record<string, string> = {},
    key = publishable,
    method = 'GET',
  ): Promise<Response> {
    return fetch(`${t.baseUrl}/viewer/assets/${assetId}/content`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...headers },
    });
  }

  async function expectHidden(res: Response): Promise<void> {
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ statusCode: 404, error: 'Not Found', message: 'Asset not found' });
  }

  const views = async (kind: 'share-links' | 'grants', projectId: string, id: string): Promise<number> =>
    ok(await t.http.get(`/projects/${projectId}/${kind}`, as())).body.find((one: { id: string }) => one.id === id)
      .views;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'viewer-assets-e2e-'));
    t = await createTestApp({
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATA_DIR: dataDir,
      LOGIN_MAX_FAILURES: '1000',
      SIGNUP_MAX_PER_CLIENT: '1000',
    });
    owner = await createFirstAdmin(t.http);
    stranger = await createFirstAdmin(t.http);
    granted = await createFirstAdmin(t.http);
    const client = ok(await t.http.post('/clients', { name: 'Studio owner', email: uniqueEmail('client') }, as()), 201)
      .body.id;
    const body = {
      clientId: client,
      name: 'Studio',
      username: `studio_${randomBytes(5).toString('hex')}`,
      avatarUrl: 'https://cdn.example.com/a.png',
      role: 'creator',
    };
    channel = ok(await t.http.post('/channels', body, as())).body.id;
    const key = async (user: TestUser) =>
      ok(
        await t.http.post(
          `/api/v1/platform/projects/${user.projectId}/keys`,
          { name: 'viewers', kind: 'publishable' },
          { token: user.token },
        ),
        201,
      ).body.data.key;
    publishable = await key(owner);
    strangerPublishable = await key(stranger);
  });

  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('GET /viewer/assets/:assetId/content', () => {
    it("streams a published public project's ready asset with the owners' headers: 200, a Range 206, 304 and 416", async () => {
      const id = await asset(await project());
      const owners = await fetch(`${t.baseUrl}/assets/${id}/content`, {
        headers: { authorization: `Bearer ${owner.token}` },
      });
      const whole = await read(id);
      expect(whole.status).toBe(200);
      expect(Buffer.from(await whole.arrayBuffer())).toEqual(TEXT);
      for (const name of [
        'etag',
        'content-type',
        'content-disposition',
        'content-length',
        'accept-ranges',
        'cache-control',
        'x-content-type-options',
      ]) {
        expect([name, whole.headers.get(name)]).toEqual([name, owners.headers.get(name)]);
      }
      expect(whole.headers.get('etag')).toBe(`"${sha256(TEXT)}"`);
      await owners.arrayBuffer();

      const part = await read(id, { range: 'bytes=8-11' });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 8-11/${TEXT.length}`);
      expect(Buffer.from(await part.arrayBuffer())).toEqual(TEXT.subarray(8, 12));

      expect((await read(id, { 'if-none-match': `"${sha256(TEXT)}"` })).status).toBe(304);
      const outside = await read(id, { range: `bytes=${TEXT.length}-` });
      expect(outside.status).toBe(416);
      expect(outside.headers.get('content-range')).toBe(`bytes */${TEXT.length}`);
    });

    it('opens a linkPrivate project only with a live link of it or an ancestor, and counts each read that sends bytes', async () => {
      const parent = await project({ access: 'linkPrivate' });
      const child = await project({ access: 'linkPrivate', parentId: parent });
      const id = await asset(child);
      const link = ok(await t.http.post(`/projects/${parent}/share-links`, {}, as()), 201).body;

      await expectHidden(await read(id));
      await expectHidden(
        await read(id, { 'x-share-token': `${link.token.slice(0, -1)}${link.token.endsWith('A') ? 'B' : 'A'}` }),
      );
      const seen = await read(id, { 'x-share-token': link.token });
      expect(seen.status).toBe(200);
      expect(Buffer.from(await seen.arrayBuffer())).toEqual(TEXT);
      expect((await read(id, { 'x-share-token': link.token, range: 'bytes=0-3' })).status).toBe(206);
      // No byte sent: a 304, a 416 and a HEAD are no views.
      expect((await read(id, { 'x-share-token': link.token, 'if-none-match': `"${sha256(TEXT)}"` })).status).toBe(304);
      expect((await read(id, { 'x-share-token': link.token, range: 'bytes=9999-' })).status).toBe(416);
      expect((await read(id, { 'x-share-token': link.token }, publishable, 'HEAD')).status).toBe(200);
      expect(await views('share-links', parent, link.id)).toBe(2);

      ok(await t.http.delete(`/projects/${parent}/share-links/${link.id}`, as()));
      await expectHidden(await read(id, { 'x-share-token': link.token }));
    });

    it('asks a password link for its password (401), and opens with it', async () => {
      const id = await asset(await project({ access: 'linkPrivate' }));
      const projectId = ok(await t.http.get(`/assets/${id}`, as())).body.projectId;
      const link = ok(
        await t.http.post(`/projects/${projectId}/share-links`, { password: 'correct horse battery' }, as()),
        201,
      ).body;
      expect((await read(id, { 'x-share-token': link.token })).status).toBe(401);
      expect(
        (await read(id, { 'x-share-token': link.token, 'x-share-password': 'correct horse battery' })).status,
      ).toBe(200);
    });

    it("opens a permissions project only to a user granted on it or an ancestor, and counts the grant's views", async () => {
      const parent = await project({ access: 'permissions' });
      const id = await asset(await project({ access: 'permissions', parentId: parent }));
      await expectHidden(await read(id, { 'x-viewer-token': granted.token }));
      const grant = ok(
        await t.http.post(`/projects/${parent}/grants`, { userId: granted.id, role: 'viewer' }, as()),
        201,
      ).body;
      expect(grant.views).toBe(0);

      await expectHidden(await read(id));
      await expectHidden(await read(id, { 'x-viewer-token': stranger.token }));
      const seen = await read(id, { 'x-viewer-token': `Bearer ${granted.token}` });
      expect(seen.status).toBe(200);
      expect(Buffer.from(await seen.arrayBuffer())).toEqual(TEXT);
      expect(await views('grants', parent, grant.id)).toBe(1);
    });

    it('counts concurrent reads exactly, through a link and through a grant (one insert each: none lost)', async () => {
      const linked = await project({ access: 'linkPrivate' });
      const linkedAsset = await asset(linked);
      const link = ok(await t.http.post(`/projects/${linked}/share-links`, {}, as()), 201).body;
      const permitted = await project({ access: 'permissions' });
      const permittedAsset = await asset(permitted);
      const grant = ok(
        await t.http.post(`/projects/${permitted}/grants`, { userId: granted.id, role: 'viewer' }, as()),
        201,
      ).body;

      const reads = await Promise.all([
        ...Array.from({ length: 10 }, () => read(linkedAsset, { 'x-share-token': link.token })),
        ...Array.from({ length: 10 }, () =>
          read(permittedAsset, { 'x-viewer-token': granted.token, range: 'bytes=0-9' }),
        ),
      ]);
      expect(reads.map((res) => res.status)).toEqual([...Array(10).fill(200), ...Array(10).fill(206)]);
      await Promise.all(reads.map((res) => res.arrayBuffer()));
      expect(await t.db.collection('share_link_views').countDocuments({ shareLinkId: new ObjectId(link.id) })).toBe(10);
      expect(await t.db.collection('grant_views').countDocuments({ grantId: new ObjectId(grant.id) })).toBe(10);
      expect(await views('share-links', linked, link.id)).toBe(10);
      expect(await views('grants', permitted, grant.id)).toBe(10);
    });

    it("answers a draft ancestor, a not-ready asset, an unknown asset and another tenant's key with the same 404", async () => {
      const draft = await project({ status: 'draft' });
      await expectHidden(await read(await asset(await project({ parentId: draft }))));
      const shown = await project();
      await expectHidden(await read(await asset(shown, false)));
      await expectHidden(await read(new ObjectId().toHexString()));
      const id = await asset(shown);
      expect((await read(id)).status).toBe(200);
      await expectHidden(await read(id, {}, strangerPublishable));
      expect((await read('not-an-id')).status).toBe(400);
      expect((await read(id, {}, owner.token)).status).toBe(403);
    });
  });

  describe('deleting projects', () => {
    async function shared(projectId: string): Promise<{ link: string; grant: string }> {
      const link = ok(await t.http.post(`/projects/${projectId}/share-links`, {}, as()), 201).body;
      const grant = ok(
        await t.http.post(`/projects/${projectId}/grants`, { userId: granted.id, role: 'viewer' }, as()),
        201,
      ).body;
      return { link: link.id, grant: grant.id };
    }

    async function remaining(projectIds: string[]): Promise<number> {
      const contentProjectId = { $in: projectIds.map((id) => new ObjectId(id)) };
      return (
        (await t.db.collection('share_links').countDocuments({ contentProjectId })) +
        (await t.db.collection('grants').countDocuments({ contentProjectId }))
      );
    }

    it('removes the share links and grants of a deleted project, with their views; those of other projects stay', async () => {
      const gone = await project({ access: 'linkPrivate' });
      const kept = await project({ access: 'linkPrivate' });
      const { link } = await shared(gone);
      await shared(kept);
      const token = ok(await t.http.post(`/projects/${gone}/share-links`, {}, as()), 201).body.token;
      expect(
        (await t.http.get(`/viewer/projects/${gone}`, { token: publishable, headers: { 'x-share-token': token } }))
          .status,
      ).toBe(200);
      expect(await t.db.collection('share_link_views').countDocuments({})).toBeGreaterThan(0);

      ok(await t.http.delete(`/projects/${gone}`, as()));
      expect(await remaining([gone])).toBe(0);
      expect(await remaining([kept])).toBe(2);
      expect(await t.db.collection('share_link_views').countDocuments({ shareLinkId: new ObjectId(link) })).toBe(0);
      const events = await t.db
        .collection('events')
        .find({ type: { $in: ['share_link.deleted', 'grant.deleted'] } })
        .toArray();
      expect(events.map((event) => JSON.parse(event.body).data.object.projectId)).toEqual([gone, gone, gone]);
    });

    it('removes those of every project a cascade deletes, and of every project of a deleted channel', async () => {
      const top = await project();
      const middle = await project({ parentId: top });
      const leaf = await project({ parentId: middle });
      await Promise.all([top, middle, leaf].map(shared));
      ok(await t.http.delete(`/projects/${top}?cascade=true`, as()));
      expect(await remaining([top, middle, leaf])).toBe(0);

      const inChannel = [await project(), await project()];
      await Promise.all(inChannel.map(shared));
      ok(await t.http.delete(`/channels/${channel}`, as()));
      expect(await remaining(inChannel)).toBe(0);
    });
  });
});
