'use strict';
/**
 * Preloaded (`node --require`) into a service bench/startup-cost.js measures, so the service's code
 * knows nothing of it: on SIGUSR2 it writes the process's memory (`process.memoryUsage()`, V8's heap
 * spaces) and the packages loaded so far with the bytes of source each
 * brought (from `require.cache`, where Node lists the ES modules it loaded through `require` too) as JSON to the file BENCH_MEMORY_FILE names, and with BENCH_HEAP_SNAPSHOT_DIR a heap
 * snapshot of the idle service beside it. Costs nothing until the signal.
 */
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');

const file = process.env.BENCH_MEMORY_FILE;
const snapshotDir = process.env.BENCH_HEAP_SNAPSHOT_DIR;

/** `node_modules/<name>` or `node_modules/@scope/<name>` of a loaded file, the innermost one. */
function packageOf(filename) {
  const parts = filename.split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return undefined;
  return parts[at + 1]?.startsWith('@') ? `${parts[at + 1]}/${parts[at + 2]}` : parts[at + 1];
}

process.on('SIGUSR2', () => {
  // Per package, the bytes of source loaded: V8 keeps each module's source as a string.
  const packages = {};
  for (const filename of Object.keys(require.cache)) {
    const name = packageOf(filename) ?? '(the service)';
    let bytes = 0;
    try {
      bytes = fs.statSync(filename).size;
    } catch {
      // a built-in or a file gone since
    }
    packages[name] = (packages[name] ?? 0) + bytes;
  }
  const snapshot = snapshotDir
    ? v8.writeHeapSnapshot(path.join(snapshotDir, `idle-${process.pid}.heapsnapshot`))
    : undefined;
  const report = {
    memory: process.memoryUsage(),
    heapSpaces: Object.fromEntries(
      v8.getHeapSpaceStatistics().map((space) => [space.space_name, space.space_used_size]),
    ),
    packages,
    snapshot,
  };
  fs.writeFileSync(file, JSON.stringify(report));
});
