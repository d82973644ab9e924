import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { uploadBody } from './tus-uploads';

/** A request body as Node reads it: a readable stream of Buffers. */
const request = () => new PassThrough({ highWaterMark: 16 * 1024 });
const KiB = 1024;

describe('uploadBody', () => {
  it('hands on the chunks Node read, not copies of them, and closes at the end', async () => {
    const incoming = request();
    const reader = uploadBody(incoming as unknown as IncomingMessage).getReader();
    const sent = [Buffer.alloc(64 * KiB, 1), Buffer.alloc(10 * KiB, 2)];
    for (const chunk of sent) incoming.write(chunk);
    incoming.end();
    const got: Uint8Array[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read()) got.push(read.value);
    expect(got).toHaveLength(2);
    expect(got[0]).toBe(sent[0]);
    expect(got[1]).toBe(sent[1]);
  });

  it('pauses the request once 64 KiB wait unread, and resumes it as they are read', async () => {
    const incoming = request();
    const reader = uploadBody(incoming as unknown as IncomingMessage).getReader();
    for (let i = 0; i < 8; i++) incoming.write(Buffer.alloc(32 * KiB));
    await tick();
    // Two chunks fill the queue (a third may be on its way); the rest waits in the request.
    expect(incoming.isPaused()).toBe(true);
    expect(incoming.readableLength + incoming.writableLength).toBeGreaterThanOrEqual(5 * 32 * KiB);
    let bytes = 0;
    incoming.end();
    for (let read = await reader.read(); !read.done; read = await reader.read()) bytes += read.value.byteLength;
    expect(bytes).toBe(8 * 32 * KiB);
  });

  it('errors the stream as aborted when the client goes away mid-body', async () => {
    const incoming = request();
    const reader = uploadBody(incoming as unknown as IncomingMessage).getReader();
    incoming.write(Buffer.alloc(KiB));
    await reader.read();
    incoming.destroy();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('destroys the request when the reader cancels', async () => {
    const incoming = request();
    const reader = uploadBody(incoming as unknown as IncomingMessage).getReader();
    await reader.cancel(new Error('store failed'));
    expect(incoming.destroyed).toBe(true);
  });

  it('takes nothing more once cancelled, whatever the request still emits', async () => {
    const incoming = request();
    const reader = uploadBody(incoming as unknown as IncomingMessage).getReader();
    await reader.cancel();
    // What a request's stream could still emit after the reader left: nothing may throw.
    expect(() => incoming.emit('data', Buffer.alloc(KiB))).not.toThrow();
    expect(() => incoming.emit('end')).not.toThrow();
    await tick();
  });
});
