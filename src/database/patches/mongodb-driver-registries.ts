import { Logger } from '@nestjs/common';
import type { mongo } from 'mongoose';
import { installedVersion, patchApplies } from './fence';
import { LinkedSet } from './linked-set';

/** The MongoDB driver this patch was written and measured against (the one mongoose depends on). */
export const DRIVER_REGISTRIES_WRITTEN_FOR = '7.8.0';

/** The registries `MongoClient` keeps in its internal state, `client.s`. */
interface DriverRegistries {
  activeSessions?: unknown;
  activeCursors?: unknown;
}

const REGISTRIES = ['activeSessions', 'activeCursors'] as const;

/**
 * Replaces the MongoDB client's two registries of open sessions and cursors, `Set`s that every
 * operation adds its implicit session (and a read its cursor) to and removes it from, with
 * `LinkedSet`s holding the same members.
 *
 * Why: a long-lived `Set` or `Map` with constant adds and deletes from concurrent operations makes
 * V8 promote what its members reference to the old generation: the sessions and cursors, with the
 * replies they parsed, outlived every young-generation collection until the next full mark-compact,
 * so under load the whole heap was marked again and again; with the linked list nothing is
 * promoted. bench/README.md has the measurements, and the driver as shipped behaves so in the
 * baseline too.
 *
 * `close()` still ends every open session and closes every open cursor: it iterates the registries
 * and clears them, which `LinkedSet` supports. Fenced: on any driver version but the one it was
 * written for, or when the client's state is not the shape expected, it changes nothing and returns
 * false, and the service runs with the driver's own sets, as correct but with more garbage
 * collection. Tests pin both the version and the shape.
 */
export function useLinkedDriverRegistries(client: mongo.MongoClient, driverVersion = installedVersion('mongodb', 'mongoose')): boolean {
  if (!patchApplies("The MongoDB client's linked registries", 'mongodb', DRIVER_REGISTRIES_WRITTEN_FOR, driverVersion)) return false;
  const state = (client as unknown as { s?: DriverRegistries }).s;
  if (!state || !REGISTRIES.every((name) => state[name] instanceof Set)) {
    new Logger('Patches').warn("The MongoDB client's registries are not the Sets expected: using the driver's own");
    return false;
  }
  for (const name of REGISTRIES) state[name] = new LinkedSet(state[name] as Set<object>);
  return true;
}
