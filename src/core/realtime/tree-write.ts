/** Turns the bodies of §3 writes into the child sets a `TreeStore` applies, checking every rule first. */
import { badRequest } from '../errors.js';
import type { JsonObject, JsonValue } from '../json.js';
import { defaultPathLimits, type PathLimits } from '../paths.js';
import { ancestorsOf, checkPathLimits, joinPath, parseTreePath, ROOT_PATH } from './tree-path.js';
import type { TreeSet } from './tree-store.js';
import { checkStorableValue, prepareValue } from './tree-value.js';

/** The set that replaces the subtree at `path` (already normalized) by `value`. */
export function planSet(path: string, value: JsonValue, limits: PathLimits = defaultPathLimits): TreeSet {
  const prepared = prepareValue(path, value, limits);
  return { path, value: prepared.value, leaves: prepared.leaves };
}

/**
 * The child sets of a PATCH at `path`: each key is a path relative to it (it may contain `/`),
 * normalized like any path. An empty key, or two keys where one is the other or a prefix path of
 * it (`a` and `a/b`), is a 400: the sets would overlap and their order would matter.
 */
export function planPatch(path: string, value: JsonObject, limits: PathLimits = defaultPathLimits): TreeSet[] {
  const relatives = new Map<string, string>();
  for (const key of Object.keys(value)) {
    const relative = parseTreePath(key, limits);
    if (relative === ROOT_PATH) throw badRequest(`Invalid patch key '${key}': it must name a child path`);
    const earlier = relatives.get(relative);
    if (earlier !== undefined) throw badRequest(`Patch keys '${earlier}' and '${key}' name the same path`);
    relatives.set(relative, key);
  }
  for (const [relative, key] of relatives) {
    for (const ancestor of ancestorsOf(relative)) {
      const other = relatives.get(ancestor);
      if (other !== undefined)
        throw badRequest(`Patch keys '${other}' and '${key}' overlap: one is a prefix of the other`);
    }
  }
  // The patch object is the written value (§0): its own level counts towards the 64.
  checkStorableValue(value);
  const sets: TreeSet[] = [];
  for (const [relative, key] of relatives) {
    const child = joinPath(path, relative);
    checkPathLimits(child, limits);
    sets.push(planSet(child, value[key] as JsonValue, limits));
  }
  return sets;
}
