'use strict';
/**
 * Preloaded (`node --require`) into a service bench/startup-cost.js measures, so the service's code
 * knows nothing of it: on SIGUSR2 it writes the process's memory (`process.memoryUsage()`, V8's heap
 * spaces) and the packages loaded so far (from `require.cache` and the ESM modules Node resolved
 * through it) as JSON to the file BENCH_MEMORY_FILE names, and with BENCH_HEAP_SNAPSHOT_DIR a heap
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
  const packages = {};
  for (const filename of Object.keys(require.cache)) {
    const name = packageOf(filename);
    if (name) packages[name] = (packages[name] ?? 0) + 1;
  }
  const snapshot = snapshotDir ? v8.writeHeapSnapshot(path.join(snapshotDir, `idle-${process.pid}.heapsnapshot`)) : undefined;
  const report = {
    memory: process.memoryUsage(),
    heapSpaces: Object.fromEntries(v8.getHeapSpaceStatistics().map((space) => [space.space_name, space.space_used_size])),
    packages,
    snapshot,
  };
  fs.writeFileSync(file, JSON.stringify(report));
});
