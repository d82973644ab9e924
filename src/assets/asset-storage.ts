import type { DataStore } from '@tus/utils';
import { createReadStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { LazyLibrary } from '../common/lazy/lazy-library';
import type { DiskFileStore } from './disk-file-store';

/**
 * `@tus/file-store` (through `DiskFileStore`), loaded when the first upload request or removal
 * needs the datastore. The S3 store's libraries are loaded at start, and only when a bucket is
 * configured (`s3-asset-storage.ts`, from the module).
 */
const diskFileStore = new LazyLibrary<typeof import('./disk-file-store')>(
  '@tus/file-store',
  join(__dirname, 'disk-file-store'),
);

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

/** The local file system: `@tus/file-store` under the configured folder, one file (and one `.json`) per upload. */
export class FileAssetStorage extends AssetStorage {
  private store?: DiskFileStore;

  constructor(
    private readonly directory: string,
    private readonly expirationMs: number,
  ) {
    super();
  }

  get datastore(): DiskFileStore {
    this.store ??= new (diskFileStore.load().DiskFileStore)({
      directory: this.directory,
      expirationPeriodInMilliseconds: this.expirationMs,
    });
    return this.store;
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
    // Without the file store loaded, the two files below are all it would remove.
    await this.store?.remove(id).catch(() => undefined);
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
