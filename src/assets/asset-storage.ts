import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { FileStore } from '@tus/file-store';
import { S3Store, type MetadataValue } from '@tus/s3-store';
import type { DataStore, KvStore } from '@tus/utils';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { finished, PassThrough, Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { releaseWritten } from './received-chunks';

/** An inclusive byte range of a stored file. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where assets' bytes live: the tus datastore that receives uploads, a read stream of a stored file
 * (whole or one range), the files derived from it (a thumbnail) and their removal. Two
 * implementations: the file system under `DATA_DIR` and an S3-compatible bucket; the rest of the
 * module sees only this class.
 */
export abstract class AssetStorage {
  /** The datastore `@tus/server` writes uploads through; the upload id is the asset's id. */
  abstract readonly datastore: DataStore;
  /** The stored bytes of a finished upload, or the range of them; memory does not grow with the file. */
  abstract read(id: string, range?: ByteRange): Readable;
  /** The size of a finished upload, or null when no finished upload is stored under the id. */
  abstract size(id: string): Promise<number | null>;
  /** Whether the store holds an upload under the id, finished or not (tus created it). */
  abstract hasUpload(id: string): Promise<boolean>;

  /**
   * How far the upload under the id has come, as the tus server answers `HEAD` (its offset of its
   * size), or null when the store holds no upload under it.
   */
  async uploadProgress(id: string): Promise<{ offset: number; size: number | undefined } | null> {
    try {
      const upload = await this.datastore.getUpload(id);
      return { offset: upload.offset, size: upload.size };
    } catch (error) {
      // The datastores' own answers for no such upload (404) or one whose bytes are gone (410).
      const status = (error as { status_code?: number }).status_code;
      if (status === 404 || status === 410) return null;
      throw error;
    }
  }

  /** A file derived from the upload (`thumbnail`), stored beside it. */
  abstract writeDerived(id: string, name: string, bytes: Buffer): Promise<void>;
  abstract readDerived(id: string, name: string): Readable;
  /** Removes the upload and whatever was derived from it; nothing stored is not an error. */
  abstract remove(id: string): Promise<void>;
}

/** A full disk or quota, as `@tus/server` answers it: the bytes written so far stay, and the client resumes from them. */
const INSUFFICIENT_STORAGE = {
  status_code: 507,
  body: 'Insufficient storage: the server has no room for more of this upload. What arrived is kept; ask HEAD for the offset and resume later.\n',
};

/**
 * `@tus/file-store` with its write answering a full disk (`ENOSPC`, `EDQUOT`) with 507 instead of a
 * bare 500. The offset of an upload is its file's size, so whatever reached the disk before the
 * failure counts, and a later PATCH resumes from there.
 */
export class DiskFileStore extends FileStore {
  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    let received = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        done(null, chunk);
      },
    });
    try {
      await pipeline(readable, counter, this.openWrite(this.uploadPath(id), offset));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT') throw INSUFFICIENT_STORAGE;
      // As the file store does: the client learns the offset with HEAD.
      throw { status_code: 500, body: 'Something went wrong receiving the file\n' };
    }
    return offset + received;
  }

  /**
   * The one place an upload's bytes reach the disk (at `start` of the upload's file). Each chunk a
   * request brought is released once its write completed (`releaseWritten`), not left to the
   * garbage collector.
   */
  openWrite(path: string, start: number): Writable {
    const file = createWriteStream(path, { flags: 'r+', start });
    return new Writable({
      write(chunk: Buffer, _encoding, done) {
        file.write(chunk, (error) => {
          if (!error) releaseWritten(chunk);
          done(error ?? undefined);
        });
      },
      final(done) {
        // Done once the file is closed, as a pipeline into the file stream itself was.
        finished(file, (error) => done(error));
        file.end();
      },
      destroy(error, done) {
        finished(file, () => done(error));
        file.destroy(error ?? undefined);
      },
    });
  }

  uploadPath(id: string): string {
    return join(this.directory, id);
  }
}

/** The local file system: `@tus/file-store` under the configured folder, one file (and one `.json`) per upload. */
export class FileAssetStorage extends AssetStorage {
  readonly datastore: DiskFileStore;

  constructor(
    private readonly directory: string,
    expirationMs: number,
  ) {
    super();
    this.datastore = new DiskFileStore({ directory, expirationPeriodInMilliseconds: expirationMs });
  }

  read(id: string, range?: ByteRange): Readable {
    return createReadStream(this.path(id), range ? { start: range.start, end: range.end } : {});
  }

  async size(id: string): Promise<number | null> {
    try {
      return (await stat(this.path(id))).size;
    } catch {
      return null;
    }
  }

  async hasUpload(id: string): Promise<boolean> {
    return (await this.size(id)) !== null;
  }

  async writeDerived(id: string, name: string, bytes: Buffer): Promise<void> {
    await mkdir(this.derivedFolder(), { recursive: true });
    await writeFile(this.derivedPath(id, name), bytes);
  }

  readDerived(id: string, name: string): Readable {
    return createReadStream(this.derivedPath(id, name));
  }

  async remove(id: string): Promise<void> {
    await this.datastore.remove(id).catch(() => undefined);
    await rm(this.path(id), { force: true });
    await rm(`${this.path(id)}.json`, { force: true });
    await rm(this.derivedPath(id, 'thumbnail'), { force: true });
  }

  /** Ids are ObjectIds checked before they get here: no path can come out of one. */
  path(id: string): string {
    return join(this.directory, id);
  }

  private derivedFolder(): string {
    return join(this.directory, 'derived');
  }

  private derivedPath(id: string, name: string): string {
    return join(this.derivedFolder(), `${id}.${name}`);
  }
}

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
    this.client = new S3Client({ ...config, requestHandler: { connectionTimeout: 10_000, socketTimeout: 30_000, requestTimeout: 60_000, throwOnRequestTimeout: true } });
    // Expiry tags need a bucket lifecycle rule; the service's own sweep removes expired uploads instead.
    this.datastore = new S3Store({ s3ClientConfig: { ...config, bucket: options.bucket }, expirationPeriodInMilliseconds: expirationMs, useTags: false, cache: new NoCache() });
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
        Delete: { Objects: [id, `${id}.info`, `${id}.part`, this.derivedKey(id, 'thumbnail')].map((Key) => ({ Key })), Quiet: true },
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
    this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range }), { abortSignal: abort.signal }).then(
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
