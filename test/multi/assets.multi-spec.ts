import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { MongoClient, ObjectId } from 'mongodb';
import sharp from 'sharp';
import { OCTETS, pathOf, pngFixture, settledAsset, sha256, slowPatch, TUS, wavFixture } from '../support/assets';
import { createFirstAdmin, type TestUser } from '../support/auth';
import { createContentProject } from '../support/content';
import type { HttpClient } from '../support/http';
import { startInstances, type Instances } from '../support/instances';
import { startS3Server, type S3Server } from '../support/s3-server';
import { startSlowProxy, type SlowProxy } from '../support/slow-proxy';

jest.setTimeout(300_000);

const MiB = 1024 * 1024;

/**
 * Three instances of the built service on one database and one S3 bucket: an upload is begun on
 * one, resumed on another, processed by whichever takes it and read from the third; two instances
 * never write one upload at once.
 */
describe('3 service instances on the S3 store', () => {
  let s3: S3Server;
  let running: Instances;
  let a: HttpClient;
  let b: HttpClient;
  let c: HttpClient;
  let owner: TestUser;
  let project: string;

  beforeAll(async () => {
    s3 = await startS3Server();
    running = await startInstances(3, 'assets_multi', {
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
      LOG_LEVEL: 'warn',
    });
    [a, b, c] = running.clients;
    owner = await createFirstAdmin(a);
    project = await createContentProject(a, owner.token);
  });

  /** The bucket's keys that belong to one asset. */
  async function keysOf(id: string): Promise<string[]> {
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    try {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
      return (listed.Contents ?? [])
        .map((object) => object.Key!)
        .filter((key) => key.includes(id))
        .sort();
    } finally {
      client.destroy();
    }
  }

  afterAll(async () => {
    await running?.stop();
    await s3?.stop();
  });

  /** A WAV asset of `bytes` bytes created on `http`, its tus upload created there too: its id, upload path and bytes. */
  async function uploadCreated(http: HttpClient, bytes: number): Promise<{ id: string; url: string; wav: Buffer }> {
    const wav = wavFixture((bytes - 44) / 2 / 8000);
    const created = await http.post(
      `/projects/${project}/assets`,
      { kind: 'audio', title: 'Shared', fileName: 'shared.wav', size: wav.length, mimeType: 'audio/wav' },
      { token: owner.token },
    );
    expect(created.status).toBe(201);
    const url = pathOf(created.body.upload.url);
    expect((await http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(wav.length) } })).status).toBe(
      201,
    );
    return { id: created.body.asset.id, url, wav };
  }

  function patch(http: HttpClient, url: string, offset: number, bytes: Buffer) {
    return http.request('PATCH', url, undefined, {
      raw: bytes,
      headers: { ...TUS, ...OCTETS, 'upload-offset': String(offset) },
    });
  }

  it("serves each other's uploads: begun on A, resumed on B, read from C", async () => {
    const { id, url, wav } = await uploadCreated(a, 7 * MiB);
    const first = await patch(a, url, 0, wav.subarray(0, 3 * MiB));
    expect(first.status).toBe(204);

    const head = await b.request('HEAD', url, undefined, { headers: TUS });
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(3 * MiB));
    const rest = await patch(b, url, 3 * MiB, wav.subarray(3 * MiB));
    expect(rest.status).toBe(204);
    expect(rest.headers.get('upload-offset')).toBe(String(wav.length));

    const ready = await settledAsset(c, id, owner.token, 60_000);
    expect(ready).toMatchObject({ status: 'ready', sha256: sha256(wav), size: wav.length });
    const whole = await fetch(`${c.baseUrl}/assets/${id}/content`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(whole.status).toBe(200);
    expect(sha256(Buffer.from(await whole.arrayBuffer()))).toBe(sha256(wav));
    const ranged = await fetch(`${c.baseUrl}/assets/${id}/content`, {
      headers: { authorization: `Bearer ${owner.token}`, range: `bytes=${3 * MiB - 5}-${3 * MiB + 4}` },
    });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(wav.subarray(3 * MiB - 5, 3 * MiB + 5))).toBe(true);
  });

  it('two PATCHes of one upload at the same offset on two instances: one writes, the other is refused, the bytes intact', async () => {
    const { id, url, wav } = await uploadCreated(a, 6 * MiB);
    // A's request holds the upload while its body trickles in, longer than B waits for it.
    const onA = slowPatch(a, url, wav, MiB, 6_000);
    await onA.started;
    await new Promise((done) => setTimeout(done, 1_500));
    // B's body is small enough to be all sent while B waits for the lock.
    const onB = await patch(b, url, 0, wav.subarray(0, 64 * 1024));

    expect([409, 423]).toContain(onB.status);
    expect(await onA.status).toBe(204);
    const ready = await settledAsset(c, id, owner.token, 60_000);
    expect(ready).toMatchObject({ status: 'ready', sha256: sha256(wav), size: wav.length });
  });

  it("keeps an image's thumbnail in the bucket for every instance, and removes every object of a terminated upload and of a deleted asset", async () => {
    const png = await pngFixture(640, 200);
    const created = await a.post(
      `/projects/${project}/assets`,
      { kind: 'image', title: 'Wide', fileName: 'wide.png', size: png.length, mimeType: 'image/png' },
      { token: owner.token },
    );
    const id: string = created.body.asset.id;
    const url = pathOf(created.body.upload.url);
    // Creation-with-upload on B.
    const posted = await b.request('POST', url, undefined, {
      raw: png,
      headers: { ...TUS, ...OCTETS, 'upload-length': String(png.length) },
    });
    expect(posted.status).toBe(201);
    expect(await settledAsset(c, id, owner.token, 60_000)).toMatchObject({ status: 'ready', width: 640, height: 200 });
    const thumbnail = await fetch(`${c.baseUrl}/assets/${id}/thumbnail`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(thumbnail.status).toBe(200);
    expect(await sharp(Buffer.from(await thumbnail.arrayBuffer())).metadata()).toMatchObject({
      format: 'webp',
      width: 320,
      height: 100,
    });
    expect(await keysOf(id)).toEqual([id, `${id}.info`, `derived/${id}.thumbnail`].sort());
    expect((await c.delete(`/assets/${id}`, { token: owner.token })).status).toBe(200);
    expect(await keysOf(id)).toEqual([]);

    // An upload terminated half-way on B, begun on A: its multipart upload and its tail go.
    const { id: other, url: otherUrl, wav } = await uploadCreated(a, 2 * MiB);
    expect((await patch(a, otherUrl, 0, wav.subarray(0, MiB))).status).toBe(204);
    expect(await keysOf(other)).toEqual([`${other}.info`, `${other}.part`]);
    expect((await b.request('DELETE', otherUrl, undefined, { headers: TUS })).status).toBe(204);
    expect(await keysOf(other)).toEqual([]);
    expect((await c.get(`/assets/${other}`, { token: owner.token })).body.status).toBe('waiting');
  });
});

/**
 * Processing whose length outgrows its lease (its deadline grows with the file; the lease is fixed):
 * two instances on one bucket read through a proxy that answers at 1 MiB/s, so processing a 4 MiB
 * file takes seconds while the lease is 600 ms. The holder renews it as it works, so the other
 * instance, sweeping every half second, never takes the asset over.
 */
describe('2 service instances processing a file that outlasts its lease', () => {
  const LEASE_MS = 600;
  let s3: S3Server;
  let proxy: SlowProxy;
  let running: Instances;
  let owner: TestUser;
  let project: string;

  beforeAll(async () => {
    s3 = await startS3Server();
    proxy = await startSlowProxy(s3.endpoint, MiB);
    running = await startInstances(2, 'assets_lease', {
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: proxy.endpoint,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
      ASSET_PROCESSING_LEASE_MS: String(LEASE_MS),
      LOG_LEVEL: 'warn',
    });
    owner = await createFirstAdmin(running.clients[0]);
    project = await createContentProject(running.clients[0], owner.token);
  });

  afterAll(async () => {
    await running?.stop();
    await proxy?.stop();
    await s3?.stop();
  });

  it('is processed once, by one holder under token 1, its lease renewed all along', async () => {
    const [a, b] = running.clients;
    const wav = wavFixture((4 * MiB - 44) / 2 / 8000);
    const created = await a.post(
      `/projects/${project}/assets`,
      { kind: 'audio', title: 'Long', fileName: 'long.wav', size: wav.length, mimeType: 'audio/wav' },
      { token: owner.token },
    );
    expect(created.status).toBe(201);
    const id: string = created.body.asset.id;
    const url = pathOf(created.body.upload.url);
    const posted = await b.request('POST', url, undefined, {
      raw: wav,
      headers: { ...TUS, ...OCTETS, 'upload-length': String(wav.length) },
    });
    expect(posted.status).toBe(201);

    const ready = await settledAsset(a, id, owner.token, 180_000);
    expect(ready).toMatchObject({ status: 'ready', sha256: sha256(wav), durationSeconds: expect.any(Number) });

    const client = new MongoClient(running.mongodbUri);
    try {
      const db = client.db();
      // One holder ever: a take-over would have made token 2.
      expect(
        await db.collection<{ _id: string; fence?: number }>('leases').findOne({ _id: `asset-processing:${id}` }),
      ).toMatchObject({ fence: 1 });
      const stored = await db.collection('assets').findOne({ _id: new ObjectId(id) });
      expect(stored).toMatchObject({ status: 'ready', processingFence: 1 });
      const readyEvents = await db.collection('events').countDocuments({ type: 'asset.ready', body: { $regex: id } });
      expect(readyEvents).toBe(1);
      // The whole object was read through the proxy, so processing lasted far past the lease.
      const reads = proxy.requests.filter(
        (request) => request.line === `GET /${s3.bucket}/${id}` || request.line.startsWith(`GET /${s3.bucket}/${id}?`),
      );
      expect(reads.length).toBeGreaterThan(0);
      expect(new Date(stored!.updatedAt).getTime() - reads[0].sentAt).toBeGreaterThan(5 * LEASE_MS);
    } finally {
      await client.close();
    }
  });
});
