import type { Schema } from 'mongoose';
import { installedVersion, patchApplies } from './fence';

/** The Mongoose this was written against: it reads the schema's private hook registry (`schema.s.hooks`). */
export const SAVE_HOOKS_WRITTEN_FOR = '9.12.1';

/**
 * Mongoose's own save hooks (subdocuments, timestamps, sharding, transactions), present on every
 * model. Anything else is the schema's own middleware.
 */
const BUILT_IN_SAVE_HOOKS = new Set([
  'saveSubdocsPreSave',
  'saveSubdocsPostSave',
  'saveSubdocsPreDeleteOne',
  'saveSubdocsPostDeleteOne',
  'timestampsPreSave',
  'shardingPluginPreSave',
  'shardingPluginPostSave',
  'trackTransactionPreSave',
]);

type Hooks = Map<string, Array<{ fn?: { name?: string } }>>;

const checked = new WeakMap<object, boolean>();

/**
 * Whether the schema has save middleware of its own, which an insert that skips `save()` would
 * skip too; undefined when that cannot be known: on another Mongoose version (fenced: the hook
 * registry is private), or when the registry is not the shape expected. The caller then inserts
 * through `Model.create`, the library as shipped.
 */
export function hasOwnSaveMiddleware(schema: Schema, mongooseVersion = installedVersion('mongoose')): boolean | undefined {
  if (!patchApplies('Inserts without save()', 'mongoose', SAVE_HOOKS_WRITTEN_FOR, mongooseVersion)) return undefined;
  let found = checked.get(schema);
  if (found === undefined) {
    const hooks = (schema as unknown as { s?: { hooks?: { _pres?: Hooks; _posts?: Hooks } } }).s?.hooks;
    if (!(hooks?._pres instanceof Map) || !(hooks._posts instanceof Map)) return undefined;
    found = [...(hooks._pres.get('save') ?? []), ...(hooks._posts.get('save') ?? [])].some((hook) => !BUILT_IN_SAVE_HOOKS.has(hook.fn?.name ?? ''));
    checked.set(schema, found);
  }
  return found;
}
