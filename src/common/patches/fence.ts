import { Logger } from '@nestjs/common';

const logger = new Logger('Patches');
const warned = new Set<string>();

/**
 * A patch of a dependency's internals applies only to the exact version it was written and measured
 * against. On any other version it does nothing and the library runs as shipped; the first time,
 * one warning says which patch stood down and why, so an upgrade is a visible decision.
 */
export function patchApplies(patch: string, dependency: string, writtenFor: string, installed: string): boolean {
  if (installed === writtenFor) return true;
  if (!warned.has(patch)) {
    warned.add(patch);
    logger.warn(
      `${patch}: written for ${dependency} ${writtenFor}, ${installed} is installed; using ${dependency} as shipped`,
    );
  }
  return false;
}
