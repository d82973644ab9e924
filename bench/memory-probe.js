'use strict';
/**
 * Preloaded (`node --require`) into a service bench/startup-cost.js measures, so the service's code
 * knows nothing of it: on SIGUSR2 it writes the process's memory (`process.memoryUsage()`, V8's heap
 * spaces) and the packages loaded so far with the bytes of source each
 * brought (from `require.cache`, where Node lists the ES modules it loaded through `require` too) as JSON to the file BENCH_MEMORY_FILE names, and with BENCH_HEAP_SNAPSHOT_DIR a heap
 * snapshot of the idle service beside it. Costs nothing until the signal but a note per Intl call (below).
 *
 * It also notes where the service first built an Intl object or formatted with a locale
 * (`toLocaleString`...): the first one maps ICU's locale data into the process for good (megabytes of
 * RSS), so the idle service must have built none (bench/startup-cost.js fails otherwise).
 */
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');

const file = process.env.BENCH_MEMORY_FILE;
const snapshotDir = process.env.BENCH_HEAP_SNAPSHOT_DIR;

/** The first use of ICU's locale data in this process: what it was and where, or null. */
let firstIntl = null;
function noteIntl(what) {
  firstIntl ??= {
    what,
    at: new Error().stack
      .split('\n')
      .slice(3, 8)
      .map((line) => line.trim()),
  };
}
for (const name of [
  'DateTimeFormat',
  'NumberFormat',
  'Collator',
  'PluralRules',
  'RelativeTimeFormat',
  'ListFormat',
  'Segmenter',
  'DisplayNames',
]) {
  const Real = Intl[name];
  const counted = new Proxy(Real, {
    construct: (target, args) => (noteIntl(`Intl.${name}`), Reflect.construct(target, args)),
    apply: (target, self, args) => (noteIntl(`Intl.${name}`), Reflect.apply(target, self, args)),
  });
  Object.defineProperty(Intl, name, { value: counted, writable: true, configurable: true });
}
for (const [owner, method] of [
  [Number.prototype, 'toLocaleString'],
  [Date.prototype, 'toLocaleString'],
  [Date.prototype, 'toLocaleDateString'],
  [Date.prototype, 'toLocaleTimeString'],
  [String.prototype, 'localeCompare'],
]) {
  const real = owner[method];
  Object.defineProperty(owner, method, {
    value: function (...args) {
      noteIntl(method);
      return real.apply(this, args);
    },
    writable: true,
    configurable: true,
  });
}

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
    firstIntl,
    snapshot,
  };
  fs.writeFileSync(file, JSON.stringify(report));
});
