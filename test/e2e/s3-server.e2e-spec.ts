import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { startS3Server, type S3Server } from '../support/s3-server';

/** The test harness's S3 server, as the asset store will use it: the AWS SDK puts an object and reads the same bytes back. */
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
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: body, ContentType: 'application/octet-stream' }));

    const got = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    const bytes = Buffer.from(await got.Body!.transformToByteArray());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(createHash('sha256').update(body).digest('hex'));
    expect(got.ContentType).toBe('application/octet-stream');

    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'uploads/' }));
    expect(listed.Contents?.map((object) => object.Key)).toEqual([key]);
  });

  it('answers NoSuchKey for an object never stored', async () => {
    await expect(client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'missing.bin' }))).rejects.toMatchObject({ name: 'NoSuchKey' });
  });
});
