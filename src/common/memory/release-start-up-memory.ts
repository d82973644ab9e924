/** V8's `gc()` options: a full collection now, that also shrinks the young generation and returns free pages. */
export const LAST_RESORT_GC = { type: 'major', execution: 'sync', flavor: 'last-resort' } as const;

/** V8's `gc()`, present when Node runs with `--expose-gc` (the production options do). */
type ExposedGc = (options: typeof LAST_RESORT_GC) => void;

/**
 * Gives back the memory the start-up used and no request needs, once, when the instance listens.
 * Start-up (every module, schema, DTO and route built, the indexes checked) leaves garbage in the
 * old generation and grows the young generation to its limit (`--max-semi-space-size`), and an idle
 * instance allocates too slowly for V8 to collect or shrink either on its own: without this, an idle
 * instance holds them for good. One full collection that also shrinks the young generation and
 * returns free pages (V8's "last resort" flavour, as on a low-memory notification) costs a pause of
 * a few hundred milliseconds, once; under load the young generation grows back to its limit, so no
 * request pays for it. Without `--expose-gc` (development, tests) it does nothing.
 */
export function releaseStartUpMemory(gc = (globalThis as { gc?: ExposedGc }).gc): boolean {
  if (typeof gc !== 'function') return false;
  gc(LAST_RESORT_GC);
  return true;
}
