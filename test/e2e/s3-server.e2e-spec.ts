import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { startS3Server, type S3Server } from '../support/s3-server';

/** The test harness's S3 server (MinIO), as the asset store uses it: signed requests only, the same bytes back. */
describe('the S3 test server', () => {
  let s3: S3Server;
  let client: S3Client;

  beforeAll(async () => {
    s3 = await startS3Server();
    client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
  });
  afterAll(async () => {
    client?.destroy();
    await s3?.stop();
  });

  it('stores an object in its bucket and answers the same bytes, listed under its key', async () => {
    const body = randomBytes(256 * 1024);
    const key = `uploads/${randomBytes(4).toString('hex')}.bin`;
    await client.send(
      new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: body, ContentType: 'application/octet-stream' }),
    );

    const got = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    const bytes = Buffer.from(await got.Body!.transformToByteArray());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(createHash('sha256').update(body).digest('hex'));
    expect(got.ContentType).toBe('application/octet-stream');

    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'uploads/' }));
    expect(listed.Contents?.map((object) => object.Key)).toEqual([key]);
  });

  it('refuses a request signed with the wrong secret, and an anonymous one, as S3 does', async () => {
    const forged = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: `${s3.secretAccessKey}x` },
    });
    try {
      await expect(
        forged.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'forged.bin', Body: 'x' })),
      ).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
    } finally {
      forged.destroy();
    }
    const anonymous = await fetch(`${s3.endpoint}/${s3.bucket}?list-type=2`);
    expect(anonymous.status).toBe(403);
    await expect(client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'forged.bin' }))).rejects.toMatchObject({
      name: 'NoSuchKey',
    });
  });

  it('answers NoSuchKey for an object never stored', async () => {
    await expect(client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'missing.bin' }))).rejects.toMatchObject({
      name: 'NoSuchKey',
    });
  });
});
