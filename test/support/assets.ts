import { createHash } from 'node:crypto';
import { request } from 'node:http';
import sharp from 'sharp';
import type { HttpClient } from './http';

export const TUS = { 'tus-resumable': '1.0.0' };
export const OCTETS = { 'content-type': 'application/offset+octet-stream' };

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A small PNG, made here so the test knows its dimensions. */
export function pngFixture(width = 40, height = 24): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .png()
    .toBuffer();
}

/** A mono 16-bit PCM WAV of `seconds` of a 440 Hz tone at 8 kHz. */
export function wavFixture(seconds = 1, rate = 8000): Buffer {
  const samples = Math.round(seconds * rate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** Reads the asset until it is `ready` or `errored`. */
export async function settledAsset(
  http: HttpClient,
  id: string,
  token: string,
  timeoutMs = 30_000,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await http.get(`/assets/${id}`, { token });
    if (res.status !== 200) throw new Error(`asset read failed: ${res.status} ${res.text}`);
    if (res.body.status === 'ready' || res.body.status === 'errored') return res.body;
    if (Date.now() > deadline) throw new Error(`asset ${id} still ${res.body.status}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** The path of an absolute URL the service answered (its host is the test's). */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/**
 * A PATCH that sends `head` of `bytes` at once, holds its connection open `pauseMs`, then sends the
 * rest: the status it gets, and when its first bytes were sent. With the first bytes in, the
 * request holds the upload's lock until its last arrive.
 */
export function slowPatch(
  http: Pick<HttpClient, 'baseUrl'>,
  url: string,
  bytes: Buffer,
  head: number,
  pauseMs: number,
): { started: Promise<void>; status: Promise<number> } {
  let started!: () => void;
  const startedPromise = new Promise<void>((done) => (started = done));
  const status = new Promise<number>((done, fail) => {
    const req = request(`${http.baseUrl}${url}`, {
      method: 'PATCH',
      agent: false,
      headers: { ...TUS, ...OCTETS, 'upload-offset': '0', 'content-length': String(bytes.length) },
    });
    req.on('error', fail);
    req.on('response', (res) => {
      res.resume();
      done(res.statusCode ?? 0);
    });
    req.write(bytes.subarray(0, head), () => {
      started();
      setTimeout(() => req.end(bytes.subarray(head)), pauseMs);
    });
  });
  return { started: startedPromise, status };
}
