import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Types } from 'mongoose';
import { AssetsRepository } from '../../src/assets/assets.repository';
import { scopeOfRecord } from '../../src/tenancy/tenant-scope';
import { createFirstAdmin, TestUser } from '../support/auth';
import { OCTETS, pathOf, pngFixture, settledAsset, sha256, slowPatch, TUS, wavFixture } from '../support/assets';
import { createContentProject } from '../support/content';
import { expectError, expectNotFound, expectValidationError } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';

const MiB = 1024 * 1024;
const UNKNOWN_ID = '6650c0ffee0000000000ffff';

describe('assets', () => {
  let t: TestApp;
  let dataDir: string;
  let owner: TestUser;
  let other: TestUser;
  let project: string;
  let otherProject: string;

  const as = () => ({ token: owner.token });
  const storedFile = (id: string) => join(dataDir, 'assets', id);
  /** Whether the asset's bytes are gone; they go right after its record changed, so a moment is allowed. */
  const bytesGone = async (id: string): Promise<boolean> => {
    for (let i = 0; i < 50 && existsSync(storedFile(id)); i++) await new Promise((done) => setTimeout(done, 100));
    return !existsSync(storedFile(id));
  };

  const createAsset = async (overrides: Record<string, unknown> = {}, inProject = project) => {
    const res = await t.http.post(
      `/projects/${inProject}/assets`,
      { kind: 'image', title: 'Cover', fileName: 'cover.png', size: 100, mimeType: 'image/png', ...overrides },
      as(),
    );
    if (res.status !== 201) throw new Error(`asset create failed: ${res.status} ${res.text}`);
    return res.body as { asset: Record<string, any>; upload: { url: string; expiresAt: string } };
  };

  /** The types of the events recorded about one asset (the events collection holds listed ones only). */
  const eventTypes = async (id: string): Promise<string[]> => {
    const events = await t.db
      .collection('events')
      .find({ type: /^asset\./ })
      .toArray();
    return events
      .filter((event) => JSON.parse(event.body).data.object.id === id)
      .map((event) => event.type as string)
      .sort();
  };

  /** Creates the upload at the one-time URL, then sends the bytes in one PATCH. */
  const upload = async (url: string, bytes: Buffer) => {
    const created = await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(bytes.length) } });
    expect(created.status).toBe(201);
    const sent = await t.http.request('PATCH', url, undefined, {
      raw: bytes,
      headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
    });
    expect(sent.status).toBe(204);
    expect(sent.headers.get('upload-offset')).toBe(String(bytes.length));
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assets-e2e-'));
    t = await createTestApp({
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATA_DIR: dataDir,
      ASSET_MAX_BYTES: String(20 * MiB),
      PROJECT_STORAGE_BYTES: String(30 * MiB),
    });
    owner = await createFirstAdmin(t.http);
    other = await createFirstAdmin(t.http);
    project = await createContentProject(t.http, owner.token);
    otherProject = await createContentProject(t.http, other.token);
  });

  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates an asset waiting for its bytes, with a one-time upload URL whose token is stored hashed', async () => {
    const { asset, upload: target } = await createAsset({ description: 'Front' });
    expect(asset).toMatchObject({
      projectId: project,
      kind: 'image',
      title: 'Cover',
      description: 'Front',
      fileName: 'cover.png',
      size: 100,
      status: 'waiting',
      error: null,
      sha256: null,
    });
    expect(target.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/uploads/${asset.id}/[A-Za-z0-9_-]{32}$`));
    const hours = (Date.parse(target.expiresAt) - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);

    const token = target.url.split('/').pop()!;
    const ticket = await t.db.collection('asset_uploads').findOne({ _id: new Types.ObjectId(asset.id) });
    expect(ticket?.tokenHash).toBe(sha256(Buffer.from(token)));
    expect(JSON.stringify(ticket)).not.toContain(token);
    const stored = await t.db.collection('assets').findOne({ _id: new Types.ObjectId(asset.id) });
    expect(String(stored?.contentProjectId)).toBe(project);
    expect(String(stored?.projectId)).toBe(owner.projectId);

    expect((await t.http.get(`/assets/${asset.id}`, as())).body).toEqual(asset);
    const patched = await t.http.patch(`/assets/${asset.id}`, { title: 'Back cover', description: null }, as());
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ title: 'Back cover', description: null, fileName: 'cover.png' });
  });

  it("lists a project's assets newest first, paged, with the total", async () => {
    const listed = await createContentProject(t.http, owner.token);
    const first = (await createAsset({ title: 'One' }, listed)).asset;
    const second = (await createAsset({ title: 'Two' }, listed)).asset;
    const page = await t.http.get(`/projects/${listed}/assets?limit=1`, as());
    expect(page.status).toBe(200);
    expect(page.headers.get('x-total-count')).toBe('2');
    expect(page.body.map((a: { id: string }) => a.id)).toEqual([second.id]);
    const next = await t.http.get(`/projects/${listed}/assets?limit=1&skip=1`, as());
    expect(next.body.map((a: { id: string }) => a.id)).toEqual([first.id]);
  });

  it("refuses a blank title, a file name with a path, and an unknown or another tenant's project", async () => {
    for (const fileName of ['../etc/passwd', 'dir/a.png', 'C:\\a.png', '..', 'a\r\nb.png']) {
      const res = await t.http.post(
        `/projects/${project}/assets`,
        { kind: 'image', title: 'x', fileName, size: 10, mimeType: 'image/png' },
        as(),
      );
      expectValidationError(res, 'fileName', /without a path/);
    }
    const body = { kind: 'image', title: 'x', fileName: 'a.png', size: 10, mimeType: 'image/png' };
    expectValidationError(
      await t.http.post(`/projects/${project}/assets`, { ...body, title: '  ' }, as()),
      'title',
      'title must not be empty',
    );
    expectNotFound(await t.http.post(`/projects/${UNKNOWN_ID}/assets`, body, as()), 'Project not found');
    expectNotFound(await t.http.post(`/projects/${otherProject}/assets`, body, as()), 'Project not found');
    expectNotFound(await t.http.get(`/projects/${otherProject}/assets`, as()), 'Project not found');
  });

  it("answers 413 for a size over ASSET_MAX_BYTES or over the project's storage, keeping nothing", async () => {
    const quotaProject = await createContentProject(t.http, other.token);
    const body = { kind: 'video', title: 'Big', fileName: 'big.mp4', mimeType: 'video/mp4' };
    const before = await t.db.collection('assets').countDocuments();
    expectError(
      await t.http.post(`/projects/${quotaProject}/assets`, { ...body, size: 20 * MiB + 1 }, { token: other.token }),
      413,
      /ASSET_MAX_BYTES/,
    );
    const first = await t.http.post(
      `/projects/${quotaProject}/assets`,
      { ...body, size: 20 * MiB },
      { token: other.token },
    );
    expect(first.status).toBe(201);
    expectError(
      await t.http.post(`/projects/${quotaProject}/assets`, { ...body, size: 11 * MiB }, { token: other.token }),
      413,
      /PROJECT_STORAGE_BYTES/,
    );
    expect(await t.db.collection('assets').countDocuments()).toBe(before + 1);
    // The quota is the platform project's: the owner's project is unaffected.
    expect((await t.http.post(`/projects/${project}/assets`, { ...body, size: 11 * MiB }, as())).status).toBe(201);
  });

  it('takes a PNG through the one-time URL, processes it, and delivers it with ranges, ETag and a safe file name', async () => {
    const png = await pngFixture(40, 24);
    const { asset, upload: target } = await createAsset({
      size: png.length,
      fileName: 'Été "cover".png',
      sha256: sha256(png).toUpperCase(),
    });
    const url = pathOf(target.url);

    const created = await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(png.length) } });
    expect(created.status).toBe(201);
    expect(pathOf(created.headers.get('location')!)).toBe(url);
    expect((await t.http.get(`/assets/${asset.id}`, as())).body.status).toBe('uploading');

    // Half, then the offset asked with HEAD, then the rest.
    const half = Math.floor(png.length / 2);
    expect(
      (
        await t.http.request('PATCH', url, undefined, {
          raw: png.subarray(0, half),
          headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
        })
      ).status,
    ).toBe(204);
    const head = await fetch(`${t.baseUrl}${url}`, { method: 'HEAD', headers: TUS });
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(half));
    expect(head.headers.get('upload-length')).toBe(String(png.length));
    const rest = await t.http.request('PATCH', url, undefined, {
      raw: png.subarray(half),
      headers: { ...TUS, ...OCTETS, 'upload-offset': String(half) },
    });
    expect(rest.status).toBe(204);

    const ready = await settledAsset(t.http, asset.id, owner.token);
    expect(ready).toMatchObject({
      status: 'ready',
      sha256: sha256(png),
      contentType: 'image/png',
      width: 40,
      height: 24,
      durationSeconds: null,
      thumbnailUrl: `/assets/${asset.id}/thumbnail`,
    });

    const whole = await fetch(`${t.baseUrl}/assets/${asset.id}/content`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(png)).toBe(true);
    expect(whole.headers.get('etag')).toBe(`"${sha256(png)}"`);
    expect(whole.headers.get('content-type')).toBe('image/png');
    expect(whole.headers.get('content-disposition')).toBe(
      `inline; filename="_t_ _cover_.png"; filename*=UTF-8''%C3%89t%C3%A9%20%22cover%22.png`,
    );

    const part = await fetch(`${t.baseUrl}/assets/${asset.id}/content`, {
      headers: { authorization: `Bearer ${owner.token}`, range: 'bytes=10-19' },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${png.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(png.subarray(10, 20))).toBe(true);
    const outside = await t.http.get(`/assets/${asset.id}/content`, {
      ...as(),
      headers: { range: `bytes=${png.length}-` },
    });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe(`bytes */${png.length}`);
    const cached = await fetch(`${t.baseUrl}/assets/${asset.id}/content`, {
      headers: { authorization: `Bearer ${owner.token}`, 'if-none-match': `"${sha256(png)}"` },
    });
    expect(cached.status).toBe(304);

    const thumbnail = await fetch(`${t.baseUrl}/assets/${asset.id}/thumbnail`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(thumbnail.status).toBe(200);
    expect(thumbnail.headers.get('content-type')).toBe('image/webp');
    expect(
      Buffer.from(await thumbnail.arrayBuffer())
        .subarray(8, 12)
        .toString(),
    ).toBe('WEBP');

    // The one-time URL is used up once the asset is processed.
    expectNotFound(await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(png.length) } }));
    // Another tenant sees neither the asset nor its bytes.
    expectNotFound(await t.http.get(`/assets/${asset.id}`, { token: other.token }), 'Asset not found');
    expectNotFound(await t.http.get(`/assets/${asset.id}/content`, { token: other.token }), 'Asset not found');

    expect(await eventTypes(asset.id)).toEqual(['asset.created', 'asset.ready', 'asset.uploaded']);
  });

  it('takes a WAV with creation-with-upload under the API token, and reads its duration', async () => {
    const wav = wavFixture(1.5);
    const { asset } = await createAsset({
      kind: 'audio',
      fileName: 'tone.wav',
      mimeType: 'audio/wav',
      size: wav.length,
    });
    const res = await t.http.post(`/assets/${asset.id}/upload`, undefined, {
      token: owner.token,
      raw: wav,
      headers: { ...TUS, ...OCTETS, 'upload-length': String(wav.length) },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('upload-offset')).toBe(String(wav.length));
    const ready = await settledAsset(t.http, asset.id, owner.token);
    expect(ready).toMatchObject({
      status: 'ready',
      contentType: 'audio/wav',
      sha256: sha256(wav),
      width: null,
      thumbnailUrl: null,
    });
    expect(ready.durationSeconds).toBeCloseTo(1.5, 2);
  });

  it('errors an asset whose bytes are not its declared type, and one whose checksum differs, removing their bytes', async () => {
    const wav = wavFixture(0.2);
    const mismatch = await createAsset({ kind: 'image', mimeType: 'image/png', size: wav.length });
    await upload(pathOf(mismatch.upload.url), wav);
    const errored = await settledAsset(t.http, mismatch.asset.id, owner.token);
    expect(errored).toMatchObject({
      status: 'errored',
      error: { code: 'type_mismatch', message: expect.stringContaining('audio/wav') },
      sha256: null,
    });
    expect(await bytesGone(mismatch.asset.id)).toBe(true);
    expectNotFound(await t.http.get(`/assets/${mismatch.asset.id}/content`, as()));

    const png = await pngFixture();
    const wrongSum = await createAsset({ size: png.length, sha256: 'a'.repeat(64) });
    await upload(pathOf(wrongSum.upload.url), png);
    expect(await settledAsset(t.http, wrongSum.asset.id, owner.token)).toMatchObject({
      status: 'errored',
      error: { code: 'checksum_mismatch' },
    });
    expect(await bytesGone(wrongSum.asset.id)).toBe(true);

    const text = await createAsset({ kind: 'text', mimeType: 'text/plain', fileName: 'notes.txt', size: png.length });
    await upload(pathOf(text.upload.url), png);
    expect(await settledAsset(t.http, text.asset.id, owner.token)).toMatchObject({
      status: 'errored',
      error: { code: 'type_mismatch' },
    });
  });

  it('binds the upload to its asset: its size, its project, one creation, and a valid token', async () => {
    const { asset, upload: target } = await createAsset({ size: 64 });
    const url = pathOf(target.url);
    const [, , , token] = url.split('/');
    const wrongLength = await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': '65' } });
    expectError(wrongLength, 400, /Upload-Length 65 is not the asset's size, 64/);
    expectError(
      await t.http.post(url, undefined, { headers: { ...TUS, 'upload-defer-length': '1' } }),
      400,
      /Upload-Length is required/,
    );
    expect(existsSync(storedFile(asset.id))).toBe(false);

    expectNotFound(
      await t.http.post(`/uploads/${asset.id}/${token}x`, undefined, { headers: { ...TUS, 'upload-length': '64' } }),
    );
    expectNotFound(
      await t.http.post(`/uploads/${UNKNOWN_ID}/${token}`, undefined, { headers: { ...TUS, 'upload-length': '64' } }),
    );
    // Another tenant's credentials name no such asset.
    expectNotFound(
      await t.http.post(`/assets/${asset.id}/upload`, undefined, {
        token: other.token,
        headers: { ...TUS, 'upload-length': '64' },
      }),
      'Asset not found',
    );
    expectError(
      await t.http.request('PATCH', url, undefined, {
        raw: Buffer.alloc(4),
        headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
      }),
      409,
      /create the upload first/,
    );

    expect((await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': '64' } })).status).toBe(201);
    expectError(
      await t.http.post(`/assets/${asset.id}/upload`, undefined, {
        ...as(),
        headers: { ...TUS, 'upload-length': '64' },
      }),
      409,
      /already created/,
    );
    // More bytes than the upload's length are refused by the tus server.
    const over = await t.http.request('PATCH', url, undefined, {
      raw: Buffer.alloc(65),
      headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
    });
    expect(over.status).toBe(413);

    // Termination: the bytes go, and the asset waits for a new upload.
    const terminated = await t.http.delete(url, { headers: TUS });
    expect(terminated.status).toBe(204);
    expect((await t.http.get(`/assets/${asset.id}`, as())).body.status).toBe('waiting');
    expect(existsSync(storedFile(asset.id))).toBe(false);
  });

  it('terminates an upload only once no PATCH is writing it: 423 while one keeps the lock, the bytes intact', async () => {
    const wav = wavFixture(4);
    const { asset, upload: target } = await createAsset({
      kind: 'audio',
      fileName: 'voice.wav',
      mimeType: 'audio/wav',
      size: wav.length,
    });
    const url = pathOf(target.url);
    expect(
      (await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(wav.length) } })).status,
    ).toBe(201);
    // A PATCH that sends its first bytes, then holds its connection (and the upload's lock) 5 s.
    const patch = slowPatch(t.http, url, wav, 1024, 5_000);
    await patch.started;
    await new Promise((done) => setTimeout(done, 500));

    // The termination waits 3 s for the lock, then is refused as a tus request would be.
    const terminated = await t.http.delete(url, { headers: TUS });
    expectError(terminated, 423, /another request is writing this upload/);
    expect(await patch.status).toBe(204);
    const offset = await t.http.request('HEAD', url, undefined, { headers: TUS });
    expect(offset.headers.get('upload-offset')).toBe(String(wav.length));
    const ready = await settledAsset(t.http, asset.id, owner.token, 30_000);
    expect(ready).toMatchObject({ status: 'ready', sha256: sha256(wav), size: wav.length });
  }, 30_000);

  it("answers the tus protocol's refusals as the service's errors, and concatenation with 400", async () => {
    const { upload: target } = await createAsset({ size: 64 });
    const url = pathOf(target.url);
    const refusedConcat = await t.http.post(url, undefined, {
      headers: { ...TUS, 'upload-length': '64', 'upload-concat': 'partial' },
    });
    expectError(refusedConcat, 400, /Upload-Concat is not supported/);
    expectError(
      await t.http.post(url, undefined, { headers: { 'upload-length': '64' } }),
      412,
      'Tus-Resumable Required',
    );
    expect((await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': '64' } })).status).toBe(201);
    const conflict = await t.http.request('PATCH', url, undefined, {
      raw: Buffer.alloc(8),
      headers: { ...TUS, ...OCTETS, 'upload-offset': '8' },
    });
    expectError(conflict, 409, /offset/i);
    expect(conflict.headers.get('content-type')).toMatch(/^application\/json/);
    expect(conflict.headers.get('tus-resumable')).toBe('1.0.0');
  });

  it("creates an asset's upload once when several clients race to create it", async () => {
    const { asset, upload: target } = await createAsset({ size: 64 });
    const url = pathOf(target.url);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': '64' } })),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect((await t.http.get(`/assets/${asset.id}`, as())).body.status).toBe('uploading');
  });

  it("leaves an asset another holder is processing, and takes it over once that holder's lease lapses (a crash)", async () => {
    const png = await pngFixture();
    const { asset, upload: target } = await createAsset({ size: png.length });
    const lease = `asset-processing:${asset.id}`;
    await t.db
      .collection('leases')
      .insertOne({ _id: lease as never, holder: 'crashed-instance', expiresAt: new Date(Date.now() + 60_000) });
    await upload(pathOf(target.url), png);
    // Several sweeps go by: the live lease keeps every processor off the asset.
    await new Promise((done) => setTimeout(done, 2_000));
    expect((await t.http.get(`/assets/${asset.id}`, as())).body.status).toBe('processing');
    await t.db
      .collection('leases')
      .updateOne({ _id: lease as never }, { $set: { expiresAt: new Date(Date.now() - 1) } });
    expect(await settledAsset(t.http, asset.id, owner.token)).toMatchObject({
      status: 'ready',
      sha256: sha256(png),
      width: 40,
      height: 24,
    });
  });

  it("a processing holder taken over (its lease token older) takes up and settles nothing: the asset is the later holder's", async () => {
    const { asset } = await createAsset();
    const _id = new Types.ObjectId(asset.id);
    // Its ticket stays open, so no sweep processes it: the two holders here are the test's.
    await t.db.collection('assets').updateOne({ _id }, { $set: { status: 'processing' } });
    const ticket = await t.db.collection('asset_uploads').findOne({ _id });
    const scope = scopeOfRecord({
      accountId: ticket!.accountId as string,
      projectId: ticket!.projectId as Types.ObjectId,
    });
    const repository = t.app.get(AssetsRepository);
    expect(await repository.takeUpProcessing(scope, asset.id, 1)).toBe(true);
    // Holder 1 stalled past its lease; holder 2 took the lease over and the asset up.
    expect(await repository.takeUpProcessing(scope, asset.id, 2)).toBe(true);
    expect(
      await repository.settleProcessing(
        scope,
        asset.id,
        1,
        'errored',
        { error: { code: 'unreadable', message: 'stale' } },
        'asset.errored',
      ),
    ).toBeNull();
    expect(await repository.takeUpProcessing(scope, asset.id, 1)).toBe(false);
    expect(
      await repository.settleProcessing(scope, asset.id, 2, 'ready', { sha256: 'a'.repeat(64) }, 'asset.ready'),
    ).toMatchObject({ status: 'ready', processingFence: 2 });
    expect((await t.http.get(`/assets/${asset.id}`, as())).body).toMatchObject({
      status: 'ready',
      sha256: 'a'.repeat(64),
    });
  });

  describe('an instance that stops between marking the ticket and moving the asset', () => {
    const ticketOf = (id: string) => t.db.collection('asset_uploads').findOne({ _id: new Types.ObjectId(id) });
    const statusOf = async (id: string) => (await t.http.get(`/assets/${id}`, as())).body.status as string;
    /** Lets several of the processor's sweeps (every 0.5 s in tests) go by. */
    const sweeps = () => new Promise((done) => setTimeout(done, 2_000));

    /** The upload's move to `processing` fails once, as if its instance stopped right before it. */
    const stopBeforeTheMove = () => {
      const repository = t.app.get(AssetsRepository);
      const move = repository.moveStatus.bind(repository);
      let stopped = false;
      return jest.spyOn(repository, 'moveStatus').mockImplementation((...args) => {
        if (args[3] === 'processing' && !stopped) {
          stopped = true;
          return Promise.reject(new Error('the instance stopped'));
        }
        return move(...args);
      });
    };

    it('is finished by the processor once the grace has passed: ready, asset.uploaded recorded once', async () => {
      const png = await pngFixture();
      const { asset, upload: target } = await createAsset({ size: png.length });
      const url = pathOf(target.url);
      expect(
        (await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(png.length) } })).status,
      ).toBe(201);
      const stop = stopBeforeTheMove();
      try {
        const sent = await t.http.request('PATCH', url, undefined, {
          raw: png,
          headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
        });
        expect(sent.status).toBe(500);
      } finally {
        stop.mockRestore();
      }
      const ticket = await ticketOf(asset.id);
      expect(ticket).toMatchObject({ stage: 'processing', processingSince: expect.any(Date) });
      // Within the grace, the sweeps leave it: a live finish could still be moving it.
      await sweeps();
      expect(await statusOf(asset.id)).toBe('uploading');
      expect((await ticketOf(asset.id))?.stage).toBe('processing');

      await t.db
        .collection('asset_uploads')
        .updateOne({ _id: new Types.ObjectId(asset.id) }, { $set: { processingSince: new Date(Date.now() - 61_000) } });
      expect(await settledAsset(t.http, asset.id, owner.token)).toMatchObject({
        status: 'ready',
        sha256: sha256(png),
        width: 40,
        height: 24,
      });
      expect(await eventTypes(asset.id)).toEqual(['asset.created', 'asset.ready', 'asset.uploaded']);
    });

    it('opens the upload again when the store does not hold every byte, and it resumes; a ticket without the time counts as old', async () => {
      const png = await pngFixture();
      const { asset, upload: target } = await createAsset({ size: png.length });
      const url = pathOf(target.url);
      expect(
        (await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(png.length) } })).status,
      ).toBe(201);
      const half = Math.floor(png.length / 2);
      expect(
        (
          await t.http.request('PATCH', url, undefined, {
            raw: png.subarray(0, half),
            headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
          })
        ).status,
      ).toBe(204);
      // A ticket marked processing by a release that did not keep the time, over half the bytes.
      await t.db
        .collection('asset_uploads')
        .updateOne(
          { _id: new Types.ObjectId(asset.id) },
          { $set: { stage: 'processing' }, $unset: { processingSince: '' } },
        );
      for (let i = 0; i < 50 && (await ticketOf(asset.id))?.stage !== 'open'; i++)
        await new Promise((done) => setTimeout(done, 100));
      expect(await ticketOf(asset.id)).toMatchObject({ stage: 'open', processingSince: null });
      expect(await statusOf(asset.id)).toBe('uploading');

      const head = await fetch(`${t.baseUrl}${url}`, { method: 'HEAD', headers: TUS });
      expect(head.headers.get('upload-offset')).toBe(String(half));
      expect(
        (
          await t.http.request('PATCH', url, undefined, {
            raw: png.subarray(half),
            headers: { ...TUS, ...OCTETS, 'upload-offset': String(half) },
          })
        ).status,
      ).toBe(204);
      expect(await settledAsset(t.http, asset.id, owner.token)).toMatchObject({ status: 'ready', sha256: sha256(png) });
      expect(await eventTypes(asset.id)).toEqual(['asset.created', 'asset.ready', 'asset.uploaded']);
    });
  });

  it('expires an upload not finished in time: errored upload_expired, bytes removed', async () => {
    const { asset, upload: target } = await createAsset({ size: 64 });
    const url = pathOf(target.url);
    expect((await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': '64' } })).status).toBe(201);
    expect(
      (
        await t.http.request('PATCH', url, undefined, {
          raw: Buffer.alloc(10),
          headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
        })
      ).status,
    ).toBe(204);
    expect(existsSync(storedFile(asset.id))).toBe(true);
    await t.db
      .collection('asset_uploads')
      .updateOne({ _id: new Types.ObjectId(asset.id) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await settledAsset(t.http, asset.id, owner.token)).toMatchObject({
      status: 'errored',
      error: { code: 'upload_expired' },
    });
    expect(await bytesGone(asset.id)).toBe(true);
    const ticketLeft = async () =>
      t.db.collection('asset_uploads').countDocuments({ _id: new Types.ObjectId(asset.id) });
    for (let i = 0; i < 50 && (await ticketLeft()) > 0; i++) await new Promise((done) => setTimeout(done, 100));
    expect(await ticketLeft()).toBe(0);
    // The one-time URL is gone with it.
    expectNotFound(
      await t.http.request('PATCH', url, undefined, {
        raw: Buffer.alloc(10),
        headers: { ...TUS, ...OCTETS, 'upload-offset': '10' },
      }),
    );
  });

  it("deletes an asset with its bytes, and a project's assets with the project", async () => {
    const png = await pngFixture();
    const { asset, upload: target } = await createAsset({ size: png.length });
    await upload(pathOf(target.url), png);
    await settledAsset(t.http, asset.id, owner.token);
    expect(existsSync(storedFile(asset.id))).toBe(true);
    expectNotFound(await t.http.delete(`/assets/${asset.id}`, { token: other.token }), 'Asset not found');
    expect((await t.http.delete(`/assets/${asset.id}`, as())).status).toBe(200);
    expect(existsSync(storedFile(asset.id))).toBe(false);
    expectNotFound(await t.http.get(`/assets/${asset.id}`, as()), 'Asset not found');

    const doomed = await createContentProject(t.http, owner.token);
    const kept = await createAsset({ size: png.length }, doomed);
    await upload(pathOf(kept.upload.url), png);
    await settledAsset(t.http, kept.asset.id, owner.token);
    const refused = await t.http.delete(`/projects/${doomed}`, as());
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('The project has assets; delete with ?cascade=true to delete them with it');
    expect((await t.http.delete(`/projects/${doomed}?cascade=true`, as())).status).toBe(200);
    expectNotFound(await t.http.get(`/assets/${kept.asset.id}`, as()), 'Asset not found');
    expect(existsSync(storedFile(kept.asset.id))).toBe(false);
    expect(await eventTypes(kept.asset.id)).toEqual([
      'asset.created',
      'asset.deleted',
      'asset.ready',
      'asset.uploaded',
    ]);

    // A channel's delete takes its projects, and their assets with them.
    const inChannel = await createContentProject(t.http, owner.token);
    const channelId = (await t.http.get(`/projects/${inChannel}`, as())).body.channelId as string;
    const cascaded = (await createAsset({ size: 64 }, inChannel)).asset;
    expect((await t.http.delete(`/channels/${channelId}`, as())).status).toBeLessThan(300);
    expectNotFound(await t.http.get(`/assets/${cascaded.id}`, as()), 'Asset not found');
  });
});
