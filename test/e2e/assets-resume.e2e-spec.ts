import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OCTETS, pathOf, settledAsset, sha256, TUS, wavFixture } from '../support/assets';
import { createFirstAdmin } from '../support/auth';
import { createContentProject } from '../support/content';
import { pollUntil } from '../support/deadline';
import { HttpClient } from '../support/http';
import { startS3Server, type S3Server } from '../support/s3-server';
import { ServiceProcess, spawnBuiltService } from '../support/service-process';
import { TEST_CARD_FINGERPRINT_KEY, TEST_FIELD_ENCRYPTION_KEY, TEST_JWT_SECRET } from '../support/test-app';
import { dropTestDatabase, testDatabaseUri } from '../support/test-database';

jest.setTimeout(180_000);

const MiB = 1024 * 1024;

/**
 * The built service as a process of its own, on each store: 12 MiB uploaded in two halves, the
 * connection cut in the middle of the second, the service stopped and started again on the same
 * store and database; the client asks the offset and resumes, and reads the same SHA-256 back with
 * a range.
 */
describe.each(['file', 's3'] as const)(
  'a tus upload resumed across a lost connection and a restart (%s store)',
  (store) => {
    const mongodbUri = testDatabaseUri(`assets_resume_${store}_${randomBytes(6).toString('hex')}`);
    const dataDir = mkdtempSync(join(tmpdir(), 'assets-resume-'));
    let service: ServiceProcess | undefined;
    let s3: S3Server | undefined;

    beforeAll(async () => {
      if (store === 's3') s3 = await startS3Server();
    });

    function storeEnv(): Record<string, string> {
      if (!s3) return {};
      return {
        S3_BUCKET: s3.bucket,
        S3_ENDPOINT: s3.endpoint,
        S3_REGION: s3.region,
        S3_ACCESS_KEY_ID: s3.accessKeyId,
        S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
        S3_FORCE_PATH_STYLE: 'true',
      };
    }

    async function start(): Promise<HttpClient> {
      service = await spawnBuiltService({
        NODE_ENV: 'production',
        MONGODB_URI: mongodbUri,
        DATA_DIR: dataDir,
        JWT_SECRET: TEST_JWT_SECRET,
        CARD_FINGERPRINT_KEY: TEST_CARD_FINGERPRINT_KEY,
        FIELD_ENCRYPTION_KEY: TEST_FIELD_ENCRYPTION_KEY,
        LOG_LEVEL: 'warn',
        BCRYPT_ROUNDS: '4',
        ...storeEnv(),
      });
      const running = service;
      const http = new HttpClient(running.baseUrl);
      const up = await pollUntil(
        async () => (await http.get('/health').catch(() => ({ status: 0 }))).status === 200,
        60_000,
      );
      if (!up) throw new Error(`the service did not report healthy:\n${running.output()}`);
      return http;
    }

    async function stop(): Promise<void> {
      if (service && service.child.exitCode === null && service.child.signalCode === null) {
        service.child.kill('SIGTERM');
        await service.exited;
      }
    }

    afterAll(async () => {
      await stop();
      await dropTestDatabase(mongodbUri);
      rmSync(dataDir, { recursive: true, force: true });
      await s3?.stop();
    });

    /** A PATCH that sends `sent` of `bytes`' bytes, then cuts its connection. */
    function cutPatch(url: string, offset: number, bytes: Buffer, sent: number): Promise<void> {
      return new Promise((done) => {
        const req = request(url, {
          method: 'PATCH',
          agent: false,
          headers: { ...TUS, ...OCTETS, 'upload-offset': String(offset), 'content-length': String(bytes.length) },
        });
        req.on('error', () => done());
        req.on('response', () => done());
        req.write(bytes.subarray(0, sent), () =>
          setTimeout(() => {
            req.destroy();
            done();
          }, 500),
        );
      });
    }

    it('keeps what arrived, answers the offset after the restart, and delivers the whole file', async () => {
      // 12 MiB of a real WAV, so processing finds the declared type.
      const wav = wavFixture((12 * MiB - 44) / 2 / 8000);
      expect(wav.length).toBe(12 * MiB);
      let http = await start();
      const owner = await createFirstAdmin(http);
      const project = await createContentProject(http, owner.token);
      const created = await http.post(
        `/projects/${project}/assets`,
        { kind: 'audio', title: 'Long', fileName: 'long.wav', size: wav.length, mimeType: 'audio/wav' },
        { token: owner.token },
      );
      expect(created.status).toBe(201);
      const assetId: string = created.body.asset.id;
      const url = pathOf(created.body.upload.url);
      expect(
        (await http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(wav.length) } })).status,
      ).toBe(201);

      const half = wav.length / 2;
      const first = await http.request('PATCH', url, undefined, {
        raw: wav.subarray(0, half),
        headers: { ...TUS, ...OCTETS, 'upload-offset': '0' },
      });
      expect(first.status).toBe(204);
      expect(first.headers.get('upload-offset')).toBe(String(half));

      // The second half's connection is cut after 1 MiB; then the service restarts.
      await cutPatch(`${service!.baseUrl}${url}`, half, wav.subarray(half), MiB);
      await stop();
      http = await start();

      const head = await fetch(`${service!.baseUrl}${url}`, { method: 'HEAD', headers: TUS });
      expect(head.status).toBe(200);
      const offset = Number(head.headers.get('upload-offset'));
      expect(offset).toBeGreaterThanOrEqual(half);
      expect(offset).toBeLessThanOrEqual(half + MiB);
      expect((await http.get(`/assets/${assetId}`, { token: owner.token })).body.status).toBe('uploading');

      const rest = await http.request('PATCH', url, undefined, {
        raw: wav.subarray(offset),
        headers: { ...TUS, ...OCTETS, 'upload-offset': String(offset) },
      });
      expect(rest.status).toBe(204);
      expect(rest.headers.get('upload-offset')).toBe(String(wav.length));

      const ready = await settledAsset(http, assetId, owner.token, 60_000);
      expect(ready).toMatchObject({ status: 'ready', sha256: sha256(wav), contentType: 'audio/wav', size: wav.length });

      const ranged = await fetch(`${service!.baseUrl}/assets/${assetId}/content`, {
        headers: { authorization: `Bearer ${owner.token}`, range: `bytes=0-${wav.length - 1}` },
      });
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get('content-range')).toBe(`bytes 0-${wav.length - 1}/${wav.length}`);
      expect(sha256(Buffer.from(await ranged.arrayBuffer()))).toBe(sha256(wav));

      const tail = await fetch(`${service!.baseUrl}/assets/${assetId}/content`, {
        headers: { authorization: `Bearer ${owner.token}`, range: `bytes=${half - 10}-${half + 9}` },
      });
      expect(tail.status).toBe(206);
      expect(Buffer.from(await tail.arrayBuffer()).equals(wav.subarray(half - 10, half + 10))).toBe(true);

      // The bytes are where the store keeps them, and only there.
      const onDisk = existsSync(join(dataDir, 'assets', assetId));
      if (s3) {
        expect(onDisk).toBe(false);
        const client = new S3Client({
          endpoint: s3.endpoint,
          region: s3.region,
          forcePathStyle: true,
          credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
        });
        const head = await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: assetId }));
        client.destroy();
        expect(head.ContentLength).toBe(wav.length);
      } else {
        expect(onDisk).toBe(true);
      }
    });
  },
);
