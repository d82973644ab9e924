import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { S3Store, type MetadataValue } from '@tus/s3-store';
import type { KvStore } from '@tus/utils';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AssetStorage, type ByteRange } from './asset-storage';

export interface S3StorageOptions {
  bucket: string;
  /** Unset: AWS, from the region. */
  endpoint?: string;
  region: string;
  /** Unset: the AWS SDK's own credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
}

/**
 * Keeps nothing: `@tus/s3-store` caches an upload's `.info` (with its multipart upload id) per
 * process by default, and another instance may have terminated and created the upload again since.
 * Every instance reads the bucket instead.
 */
class NoCache implements KvStore<MetadataValue> {
  get(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
  set(): Promise<void> {
    return Promise.resolve();
  }
  delete(): Promise<void> {
    return Promise.resolve();
  }
}

const NOT_FOUND = new Set(['NotFound', 'NoSuchKey']);

function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'name' in error && NOT_FOUND.has(String(error.name));
}

/**
 * An S3-compatible bucket, shared by every instance: `@tus/s3-store` receives uploads as multipart
 * uploads (the object `<id>`, its metadata `<id>.info`, a tail shorter than a part `<id>.part`), and
 * the SDK reads, writes and deletes the finished object and `derived/<id>.<name>`.
 */
export class S3AssetStorage extends AssetStorage {
  readonly datastore: S3Store;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(options: S3StorageOptions, expirationMs: number) {
    super();
    const config: S3ClientConfig = {
      endpoint: options.endpoint,
      region: options.region,
      credentials: options.credentials,
      forcePathStyle: options.forcePathStyle,
      // Checksums only where S3 requires them: the SDK's default (a CRC trailer in aws-chunked
      // bodies) is refused or stored as part of the bytes by several S3-compatible services.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A connection silent for 30 s fails instead of holding a request, or a read of an object's
      // body, forever: the SDK's `requestTimeout` only warns unless told to throw, and ends at the
      // response's headers; `socketTimeout` is what watches the body.
      requestHandler: { connectionTimeout: 10_000, socketTimeout: 30_000 },
    };
    this.bucket = options.bucket;
    // Reads and small writes also fail when no answer has begun within 60 s, however long they
    // waited for a free socket (which no socket timeout watches). Not the upload's parts: their
    // answer comes only once the whole part is sent.
    this.client = new S3Client({
      ...config,
      requestHandler: {
        connectionTimeout: 10_000,
        socketTimeout: 30_000,
        requestTimeout: 60_000,
        throwOnRequestTimeout: true,
      },
    });
    // Expiry tags need a bucket lifecycle rule; the service's own sweep removes expired uploads instead.
    this.datastore = new S3Store({
      s3ClientConfig: { ...config, bucket: options.bucket },
      expirationPeriodInMilliseconds: expirationMs,
      useTags: false,
      cache: new NoCache(),
    });
  }

  read(id: string, range?: ByteRange): Readable {
    return this.object(id, range ? `bytes=${range.start}-${range.end}` : undefined);
  }

  async size(id: string): Promise<number | null> {
    try {
      return (await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: id }))).ContentLength ?? null;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async hasUpload(id: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: `${id}.info` }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async writeDerived(id: string, name: string, bytes: Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.derivedKey(id, name), Body: bytes }));
  }

  readDerived(id: string, name: string): Readable {
    return this.object(this.derivedKey(id, name));
  }

  async remove(id: string): Promise<void> {
    // Aborts an unfinished multipart upload (its parts are not objects); a finished one has none.
    await this.datastore.remove(id).catch(() => undefined);
    await this.client.send(
      new DeleteObjectsCommand({
        Bucket: this.bucket,
        Delete: {
          Objects: [id, `${id}.info`, `${id}.part`, this.derivedKey(id, 'thumbnail')].map((Key) => ({ Key })),
          Quiet: true,
        },
      }),
    );
  }

  /**
   * The object as a stream returned at once (the request goes out in the background): its errors,
   * a missing object included, reach the reader as the stream's error, and destroying the stream
   * early aborts the request and closes the connection.
   */
  private object(key: string, range?: string): Readable {
    const output = new PassThrough();
    const abort = new AbortController();
    output.once('close', () => abort.abort());
    this.client
      .send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range }), { abortSignal: abort.signal })
      .then(
        ({ Body }) => {
          if (output.destroyed) return (Body as Readable | undefined)?.destroy();
          pipeline(Body as Readable, output).catch((error: Error) => output.destroy(error));
        },
        (error: Error) => output.destroy(error),
      );
    return output;
  }

  private derivedKey(id: string, name: string): string {
    return `derived/${id}.${name}`;
  }
}
