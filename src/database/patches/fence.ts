import { Logger } from '@nestjs/common';
import { createRequire } from 'node:module';

const logger = new Logger('Patches');
const warned = new Set<string>();

const versions = new Map<string, string>();

/**
 * The version of a package as installed, resolved the way `from` (a package that depends on it)
 * resolves it. Remembered: the fenced patches ask on every call (an insert), and resolving a
 * package's path walks the file system each time.
 */
export function installedVersion(name: string, from?: string): string {
  const key = `${name} ${from ?? ''}`;
  let version = versions.get(key);
  if (version === undefined) {
    const resolveFrom = from ? createRequire(require.resolve(from)) : require;
    version = (resolveFrom(`${name}/package.json`) as { version: string }).version;
    versions.set(key, version);
  }
  return version;
}

/**
 * A patch of a dependency's internals applies only to the exact version it was written and measured
 * against. On any other version it does nothing and the library runs as shipped; the first time,
 * one warning says which patch stood down and why, so an upgrade is a visible decision.
 */
export function patchApplies(patch: string, dependency: string, writtenFor: string, installed: string): boolean {
  if (installed === writtenFor) return true;
  if (!warned.has(patch)) {
    warned.add(patch);
    logger.warn(`${patch}: written for ${dependency} ${writtenFor}, ${installed} is installed; using ${dependency} as shipped`);
  }
  return false;
}
