import { getMetadataStorage, type MetadataStorage } from 'class-validator';
import { readFileSync } from 'node:fs';
import { patchApplies } from '../patches/fence';

/** The class-validator whose `getTargetValidationMetadatas` and its callers were read. */
export const METADATA_MEMO_WRITTEN_FOR = '0.15.1';

const PATCH = "Validation rules remembered per class (class-validator's metadata storage)";

type Lookup = MetadataStorage['getTargetValidationMetadatas'];
const MEMOISED = Symbol('validationMetadataMemo');

export function installedClassValidator(): string {
  const file = require.resolve('class-validator/package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/**
 * class-validator looks up a class's rules on every validation by walking the rules of every class
 * it knows (`getTargetValidationMetadatas` tests `instanceof` against each), so a request's DTO costs
 * in proportion to all the DTOs of the service. The answer depends only on the class, the options
 * and the rules declared so far, and rules are declared when a class is defined: it is remembered per
 * class and options, and forgotten whenever a rule or a schema is added (a module loaded later). The
 * callers (the validation executor) only read the list they get. Fenced to the version read
 * (`METADATA_MEMO_WRITTEN_FOR`); on another, class-validator runs as shipped.
 */
export function memoiseValidationMetadata(
  storage: MetadataStorage = getMetadataStorage(),
  installed: string = installedClassValidator(),
): boolean {
  if (!patchApplies(PATCH, 'class-validator', METADATA_MEMO_WRITTEN_FOR, installed)) return false;
  const patched = storage as MetadataStorage & { [MEMOISED]?: true };
  if (patched[MEMOISED]) return true;
  patched[MEMOISED] = true;

  let memo = new WeakMap<object, Map<string, ReturnType<Lookup>>>();
  const lookup: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0000') ?? ''}`;
    let byOptions = memo.get(target);
    if (!byOptions) memo.set(target, (byOptions = new Map()));
    let rules = byOptions.get(key);
    if (!rules) byOptions.set(key, (rules = lookup(target, schema, always, strictGroups, groups)));
    return rules;
  };
  for (const method of ['addValidationMetadata', 'addValidationSchema', 'addConstraintMetadata'] as const) {
    const add = storage[method].bind(storage) as (argument: never) => void;
    storage[method] = ((argument: never) => {
      memo = new WeakMap();
      add(argument);
    }) as never;
  }
  return true;
}
