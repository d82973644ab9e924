import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { AssetStorage, FileAssetStorage } from '../../src/assets/asset-storage';
import { createFirstAdmin, type TestUser } from '../support/auth';
import { OCTETS, pathOf, settledAsset, sha256, TUS, wavFixture } from '../support/assets';
import { createContentProject } from '../support/content';
import { expectError } from '../support/expect-error';
import { createTestApp, type TestApp } from '../support/test-app';

const KiB = 1024;

/** A write to `target` that takes `room` bytes more, then fails as a full disk does (ENOSPC). */
function fillingUp(target: Writable, room: number): Writable {
  let left = room;
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (chunk.length <= left) {
        left -= chunk.length;
        target.write(chunk, done);
        return;
      }
      const fits = chunk.subarray(0, left);
      left = 0;
      target.write(fits, () =>
        done(
          Object.assign(new Error('ENOSPC: no space left on device, write'), {
            code: 'ENOSPC',
            errno: -28,
            syscall: 'write',
          }),
        ),
      );
    },
    final(done) {
      target.end(done);
    },
    destroy(error, done) {
      target.end(() => done(error));
    },
  });
}

/** The file store's disk fills up in the middle of an upload: a clear 507, what arrived kept, and the upload resumable once there is room. */
describe('an upload when the disk is full', () => {
  let t: TestApp;
  let dataDir: string;
  let owner: TestUser;
  let project: string;
  let storage: FileAssetStorage;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assets-disk-full-'));
    t = await createTestApp({ DATA_DIR: dataDir });
    owner = await createFirstAdmin(t.http);
    project = await createContentProject(t.http, owner.token);
    storage = t.app.get(AssetStorage);
    expect(storage).toBeInstanceOf(FileAssetStorage);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 507 with a message, keeps the offset of what was written, and resumes once space is back', async () => {
    const wav = wavFixture(8);
    const room = 40 * KiB;
    const created = await t.http.post(
      `/projects/${project}/assets`,
      { kind: 'audio', title: 'Full', fileName: 'full.wav', size: wav.length, mimeType: 'audio/wav' },
      { token: owner.token },
    );
    expect(created.status).toBe(201);
    const assetId: string = created.body.asset.id;
    const url = pathOf(created.body.upload.url);
    expect(
      (await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(wav.length) } })).status,
    ).toBe(201);

    // The disk has room for 40 KiB more, then none.
    const openWrite = storage.datastore.openWrite.bind(storage.datastore);
    const full = jest
      .spyOn(storage.datastore, 'openWrite')
      .mockImplementation((path, start) => fillingUp(openWrite(path, start), room));
    const refused = await t.http.request('PATCH', url, undefined, {
      raw: wav,
      headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
    });
    expectError(refused, 507, /^Insufficient storage: .*resume/);
    expect(full).toHaveBeenCalled();

    const head = await t.http.request('HEAD', url, undefined, { headers: TUS });
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(room));
    expect((await t.http.get(`/assets/${assetId}`, { token: owner.token })).body.status).toBe('uploading');

    // Space is back: the client resumes from the offset.
    full.mockRestore();
    const rest = await t.http.request('PATCH', url, undefined, {
      raw: wav.subarray(room),
      headers: { ...TUS, ...OCTETS, 'upload-offset': String(room) },
    });
    expect(rest.status).toBe(204);
    expect(rest.headers.get('upload-offset')).toBe(String(wav.length));
    const ready = await settledAsset(t.http, assetId, owner.token);
    expect(ready).toMatchObject({ status: 'ready', sha256: sha256(wav), size: wav.length });
  });
});
