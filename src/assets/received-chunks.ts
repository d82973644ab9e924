/**
 * The memory of an upload's chunks, released as soon as they are on disk.
 *
 * Invariant: a chunk is released (its `ArrayBuffer` detached, which frees its memory at once) only
 * when it is a chunk of a request's body as Node read it (`markReceived`, by `uploadBody`), it spans
 * its whole `ArrayBuffer` (so it is no slice of a buffer something else also reads), and the write
 * that took it to the file has completed (`releaseWritten`, by the file store's writer). Node's HTTP
 * parser copies each piece of a body into a buffer of its own and keeps no reference to it, and
 * nothing between the request and the file store's writer keeps one either (the tus server's
 * streams hand chunks on as they are), so no reader is left when the memory goes. Without this,
 * every byte received stayed allocated until the next mark-compact, and V8 lets such garbage grow
 * with the heap's size before it runs one, so an upload held memory in proportion to the heap, not
 * to its chunk (bench/README.md, "Upload", measures it). `received-chunks.spec.ts` fails if Node
 * ever hands a body's chunks out of a buffer it shares or reuses. What the tus server's streams do
 * with a chunk was read in the version `RELEASE_WRITTEN_FOR` names: on another, nothing is released
 * (the fence of src/database/patches), and the spec fails until they are read again.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { patchApplies } from '../database/patches/fence';

/** The `@tus/server` whose handlers were read: none keeps a chunk once the store has written it. */
export const RELEASE_WRITTEN_FOR = '2.4.5';

export function installedTusServer(): string {
  // Its `exports` lists no package.json: read it beside the entry point (`dist/index.js`).
  const file = join(dirname(require.resolve('@tus/server')), '..', 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

let releasing: boolean | undefined;

function releases(): boolean {
  releasing ??= patchApplies(
    'Release of written upload chunks',
    '@tus/server',
    RELEASE_WRITTEN_FOR,
    installedTusServer(),
  );
  return releasing;
}

const received = new WeakSet<Uint8Array>();

type Transferable = ArrayBuffer & { transfer?(length: number): ArrayBuffer };

/** A chunk of a request body, as Node read it, on its way to the store. */
export function markReceived(chunk: Uint8Array): void {
  if (!releases()) return;
  // A SharedArrayBuffer has no `transfer` (and is never a body's).
  const whole = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength;
  if (whole && typeof (chunk.buffer as Transferable).transfer === 'function') received.add(chunk);
}

/** After the write of `chunk` completed: frees its memory when it is a received chunk, else nothing. */
export function releaseWritten(chunk: Uint8Array): void {
  if (!received.delete(chunk)) return;
  if (chunk.byteOffset !== 0 || chunk.byteLength !== chunk.buffer.byteLength) return;
  (chunk.buffer as Transferable).transfer?.(0);
}
