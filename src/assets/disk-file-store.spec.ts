import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { DiskFileStore } from './disk-file-store';
import { markReceived } from './received-chunks';

describe('DiskFileStore.openWrite', () => {
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'disk-file-store-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('writes chunks that queued up in one go, in order at the offset, and releases each once written', async () => {
    const path = join(directory, 'upload');
    writeFileSync(path, 'head');
    const store = new DiskFileStore({ directory });
    const writer = store.openWrite(path, 4);
    const chunks = Array.from({ length: 12 }, (_, i) => {
      const chunk = Buffer.from(new Uint8Array(randomBytes(1024 + i * 511)).buffer);
      markReceived(chunk);
      return chunk;
    });
    // Copied before the write: a released chunk is empty.
    const expected = Buffer.concat([Buffer.from('head'), ...chunks.map((chunk) => Buffer.from(chunk))]);
    // Corked, the chunks wait together and reach the writer as one batch.
    writer.cork();
    for (const chunk of chunks) writer.write(chunk);
    writer.uncork();
    writer.end();
    await finished(writer);
    expect(readFileSync(path).equals(expected)).toBe(true);
    // Released: their memory is gone once on disk.
    expect(chunks.every((chunk) => chunk.buffer.byteLength === 0)).toBe(true);
  });

  it('fails the write when the file does, and releases nothing it did not write', async () => {
    const writer = new DiskFileStore({ directory }).openWrite(join(directory, 'missing', 'upload'), 0);
    const chunk = Buffer.from(new Uint8Array(randomBytes(2048)).buffer);
    markReceived(chunk);
    writer.cork();
    writer.write(chunk);
    writer.write(Buffer.alloc(10));
    writer.uncork();
    writer.end();
    await expect(finished(writer)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(chunk.buffer.byteLength).toBe(2048);
  });
});
