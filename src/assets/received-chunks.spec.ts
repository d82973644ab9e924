import { randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { installedTusServer, markReceived, RELEASE_WRITTEN_FOR, releaseWritten } from './received-chunks';

/** Sends `parts` as one request's body, a write each, to a real HTTP server; `onChunk` sees every chunk Node hands out. */
async function receive(parts: Buffer[], onChunk: (chunk: Buffer) => void): Promise<void> {
  const server = createServer((incoming: IncomingMessage, response) => {
    incoming.on('data', onChunk);
    incoming.on('end', () => response.end());
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  try {
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((done, fail) => {
      const sent = request(
        {
          port,
          host: '127.0.0.1',
          method: 'PATCH',
          headers: { 'content-length': parts.reduce((n, part) => n + part.length, 0) },
        },
        (answer) => {
          answer.resume();
          answer.on('end', done);
        },
      );
      sent.on('error', fail);
      for (const part of parts) sent.write(part);
      sent.end();
    });
  } finally {
    await new Promise((closed) => server.close(closed));
  }
}

describe('received chunks', () => {
  // Fenced: re-read what @tus/server's handlers do with a chunk (none may keep it past the store's
  // write), then move the pin.
  it('are released with the @tus/server they were written for', () => {
    expect(installedTusServer()).toBe(RELEASE_WRITTEN_FOR);
  });

  // What the release rests on: if Node hands a body out of a buffer it shares or reuses, this fails.
  it("are, as Node's HTTP server hands them out, each a buffer of its own, and releasing one leaves the others whole", async () => {
    const parts = Array.from({ length: 40 }, (_, i) => randomBytes(1000 + i * 997));
    const buffers = new Set<ArrayBufferLike>();
    const copies: Buffer[] = [];
    let released = 0;
    await receive(parts, (chunk) => {
      expect(chunk.byteOffset).toBe(0);
      expect(chunk.byteLength).toBe(chunk.buffer.byteLength);
      expect(buffers.has(chunk.buffer)).toBe(false);
      buffers.add(chunk.buffer);
      copies.push(Buffer.from(chunk));
      markReceived(chunk);
      releaseWritten(chunk);
      if (chunk.buffer.byteLength === 0) released++;
    });
    expect(Buffer.concat(copies).equals(Buffer.concat(parts))).toBe(true);
    expect(released).toBe(copies.length);
  });

  it('releases only a chunk marked as received, and no slice of a buffer', () => {
    const unmarked = Buffer.alloc(64 * 1024, 1);
    releaseWritten(unmarked);
    expect(unmarked.length).toBe(64 * 1024);

    const whole = Buffer.alloc(64 * 1024, 2);
    const slice = whole.subarray(0, 1024);
    markReceived(slice);
    releaseWritten(slice);
    expect(whole.length).toBe(64 * 1024);

    // A small buffer from Node's shared pool is a slice of it: never released.
    const pooled = Buffer.from('pooled');
    markReceived(pooled);
    releaseWritten(pooled);
    expect(pooled.toString()).toBe('pooled');
  });
});
