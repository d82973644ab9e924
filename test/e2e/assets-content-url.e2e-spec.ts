import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signContentGrant } from '../../src/assets/content-url';
import { assetsConfig } from '../../src/config/assets.config';
import { createFirstAdmin, TestUser } from '../support/auth';
import { OCTETS, pathOf, settledAsset, sha256, TUS, wavFixture } from '../support/assets';
import { createContentProject } from '../support/content';
import { expectError, expectNotFound } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';

/** Signed short-lived content URLs: what `<audio>` and `<video>` read, since they cannot send a token. */
describe('signed asset content URLs', () => {
  let t: TestApp;
  let dataDir: string;
  let owner: TestUser;
  let other: TestUser;
  let project: string;
  const wav = wavFixture(1);

  const as = () => ({ token: owner.token });

  /** A ready WAV asset, uploaded at its one-time URL. */
  const readyAsset = async (): Promise<string> => {
    const created = await t.http.post(
      `/projects/${project}/assets`,
      { kind: 'audio', title: 'Tone', fileName: 'tone.wav', size: wav.length, mimeType: 'audio/wav' },
      as(),
    );
    expect(created.status).toBe(201);
    const url = pathOf(created.body.upload.url);
    expect(
      (await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(wav.length) } })).status,
    ).toBe(201);
    expect(
      (
        await t.http.request('PATCH', url, undefined, {
          raw: wav,
          headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
        })
      ).status,
    ).toBe(204);
    expect((await settledAsset(t.http, created.body.asset.id, owner.token)).status).toBe('ready');
    return created.body.asset.id;
  };

  /** A request with no credential but the URL itself, as a media element makes it. */
  const anonymous = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assets-url-e2e-'));
    t = await createTestApp({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', DATA_DIR: dataDir });
    owner = await createFirstAdmin(t.http);
    other = await createFirstAdmin(t.http);
    project = await createContentProject(t.http, owner.token);
  });

  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a URL that reads the bytes without a token, with Range, for 15 minutes', async () => {
    const id = await readyAsset();
    const before = Date.now();
    const res = await t.http.get(`/assets/${id}/content-url`, as());
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(new RegExp(`^${t.baseUrl.replace(/[.]/g, '\\.')}/asset-content/${id}\\.`));
    const minutes = (Date.parse(res.body.expiresAt) - before) / 60_000;
    expect(minutes).toBeGreaterThan(14.9);
    expect(minutes).toBeLessThanOrEqual(15);

    const whole = await anonymous(res.body.url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('audio/wav');
    expect(whole.headers.get('etag')).toBe(`"${sha256(wav)}"`);
    expect(sha256(Buffer.from(await whole.arrayBuffer()))).toBe(sha256(wav));

    const part = await anonymous(res.body.url, { range: 'bytes=44-99' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 44-99/${wav.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(wav.subarray(44, 100))).toBe(true);
  });

  it('answers 304 to the ETag in If-None-Match, and 416 with the size to a range outside the file', async () => {
    const id = await readyAsset();
    const { url } = (await t.http.get(`/assets/${id}/content-url`, as())).body as { url: string };
    const etag = `"${sha256(wav)}"`;
    const unchanged = await anonymous(url, { 'if-none-match': etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('etag')).toBe(etag);
    expect((await anonymous(url, { 'if-none-match': '"another"' })).status).toBe(200);

    const outside = await anonymous(url, { range: `bytes=${wav.length}-` });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe(`bytes */${wav.length}`);
    expect(await outside.json()).toEqual({
      statusCode: 416,
      error: 'Range Not Satisfiable',
      message: `The range is outside the file's ${wav.length} bytes`,
    });
  });

  it('answers 404 once the URL has expired, with the same body as an unknown one', async () => {
    const id = await readyAsset();
    const key = t.app.get<{ contentUrlKey: Buffer }>(assetsConfig.KEY).contentUrlKey;
    const grant = { assetId: id, accountId: owner.accountId, projectId: owner.projectId };
    // Signed with the service's own key: only the expiry decides.
    expect(
      (await t.http.get(`/asset-content/${signContentGrant(key, { ...grant, expiresAt: Date.now() + 60_000 })}`))
        .status,
    ).toBe(200);
    expectNotFound(
      await t.http.get(`/asset-content/${signContentGrant(key, { ...grant, expiresAt: Date.now() - 1000 })}`),
      'Asset content not found: the URL is unknown, altered or expired',
    );
  });

  it('answers 404, never a 500, to grants of any malformed form', async () => {
    const { url } = (await t.http.get(`/assets/${await readyAsset()}/content-url`, as())).body as { url: string };
    const grant = new URL(url).pathname.split('/').pop()!;
    const malformed = [
      `${grant}.${grant}`,
      'x'.repeat(10_000),
      grant.replace(/\.[^.]+$/, '.!!not+base64url!!'),
      grant.replace(/^[^.]+/, ''),
      grant.replace('.', '..'),
      encodeURIComponent('ä'.repeat(100)),
      '%00',
      '.....',
    ];
    for (const form of malformed) {
      expectNotFound(
        await t.http.get(`/asset-content/${form}`),
        'Asset content not found: the URL is unknown, altered or expired',
      );
    }
    // No segment at all is no route: the router's own 404.
    expectError(await t.http.get('/asset-content/'), 404, 'Cannot GET /asset-content/');
    // Past Node's 16 KiB for a request's head, the request is refused before any route, as everywhere.
    expectError(await t.http.get(`/asset-content/${'x'.repeat(20_000)}`), 431);
  });

  it('answers 404 for an altered URL, and once the asset is deleted', async () => {
    const id = await readyAsset();
    const { url } = (await t.http.get(`/assets/${id}/content-url`, as())).body as { url: string };
    const path = new URL(url).pathname;
    const altered = path.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
    expectNotFound(await t.http.get(altered), 'Asset content not found: the URL is unknown, altered or expired');
    expectNotFound(
      await t.http.get('/asset-content/not-a-token'),
      'Asset content not found: the URL is unknown, altered or expired',
    );

    expect((await t.http.delete(`/assets/${id}`, as())).status).toBe(200);
    expectNotFound(await t.http.get(path), 'Asset content not found: the URL is unknown, altered or expired');
  });

  it('gives no URL for an asset that is not ready, or of another tenant', async () => {
    const waiting = await t.http.post(
      `/projects/${project}/assets`,
      { kind: 'audio', title: 'Later', fileName: 'later.wav', size: 10, mimeType: 'audio/wav' },
      as(),
    );
    expectNotFound(
      await t.http.get(`/assets/${waiting.body.asset.id}/content-url`, as()),
      'Asset not found: it is waiting, not ready',
    );

    const id = await readyAsset();
    expectNotFound(await t.http.get(`/assets/${id}/content-url`, { token: other.token }), 'Asset not found');
    expectNotFound(
      await t.http.get('/assets/6650c0ffee0000000000ffff/content-url', { token: other.token }),
      'Asset not found',
    );
  });
});
