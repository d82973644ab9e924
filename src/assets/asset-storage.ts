import { FileStore } from '@tus/file-store';
import type { DataStore } from '@tus/utils';
import { createReadStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/** An inclusive byte range of a stored file. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where assets' bytes live: the tus datastore that receives uploads, a read stream of a stored file
 * (whole or one range), the files derived from it (a thumbnail) and their removal. The file store
 * under `DATA_DIR` implements it; an S3-compatible store goes beside it with the same methods.
 */
export abstract class AssetStorage {
  /** The datastore `@tus/server` writes uploads through; the upload id is the asset's id. */
  abstract readonly datastore: DataStore;
  /** The stored bytes of a finished upload, or the range of them; memory does not grow with the file. */
  abstract read(id: string, range?: ByteRange): Readable;
  /** The stored size, or null when nothing is stored under the id. */
  abstract size(id: string): Promise<number | null>;
  /** A file derived from the upload (`thumbnail`), stored beside it. */
  abstract writeDerived(id: string, name: string, bytes: Buffer): Promise<void>;
  abstract readDerived(id: string, name: string): Readable;
  /** Removes the upload and whatever was derived from it; nothing stored is not an error. */
  abstract remove(id: string): Promise<void>;
}

/** The local file system: `@tus/file-store` under the configured folder, one file (and one `.json`) per upload. */
export class FileAssetStorage extends AssetStorage {
  readonly datastore: FileStore;

  constructor(
    private readonly directory: string,
    expirationMs: number,
  ) {
    super();
    this.datastore = new FileStore({ directory, expirationPeriodInMilliseconds: expirationMs });
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
