import { FileStore } from '@tus/file-store';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { finished, Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { releaseWritten } from './received-chunks';

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
   * The one place an upload's bytes reach the disk (at `start` of the upload's file). Chunks that
   * queued up while a write was under way go to the file together, so the body is not read one
   * chunk per file write. Each chunk a request brought is released once its write completed
   * (`releaseWritten`), not left to the garbage collector.
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
      writev(chunks, done) {
        let left = chunks.length;
        let failed: Error | undefined;
        for (const { chunk } of chunks as { chunk: Buffer }[])
          file.write(chunk, (error) => {
            if (error) failed ??= error;
            else releaseWritten(chunk);
            if (--left === 0) done(failed);
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
