/**
 * Values of the realtime tree (§3). An object is a node whose keys are child paths; any other
 * value is a leaf stored whole at its path; `null` and `{}` mean "nothing here". A stored tree
 * is the set of its leaves, and a value is assembled back from the leaves of its subtree.
 */
import { badRequest, validationFailed } from '../errors.js';
import { isJsonObject, type JsonObject, type JsonValue, unstorableIssue } from '../json.js';
import { defaultPathLimits, type PathLimits } from '../paths.js';
import { serverValueOf } from './tree-atomic.js';
import { checkPathLimits, invalidKeyReason, joinPath, relativeSegments } from './tree-path.js';
import type { TreeChange, TreeLeaf } from './tree-store.js';

/** A value ready to be written at a path: its stored form and its leaves. */
export interface PreparedValue {
  /** The value as it will be read back: nulls and empty objects pruned (null when nothing is left). */
  value: JsonValue;
  /** The leaves to store, at `path` or below it. */
  leaves: TreeLeaf[];
}

/** Sets an own property, also for the key `__proto__` (which plain assignment would not define). */
export function defineKey(target: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** 422 at `body.value` for a value nested deeper than §0 allows or holding text an engine cannot store. */
export function checkStorableValue(value: JsonValue): void {
  const issue = unstorableIssue(value, ['body', 'value']);
  if (issue) throw validationFailed([issue]);
}

/**
 * Checks a value written at `path` and splits it into leaves. Object keys that cannot name a
 * child node (empty, `.`, `..`, containing `/`) and paths over the limits are 400s; the NUL
 * character, which PostgreSQL cannot store, and nesting beyond 64 levels are 422s on both engines.
 */
export function prepareValue(path: string, value: JsonValue, limits: PathLimits = defaultPathLimits): PreparedValue {
  checkStorableValue(value);
  const leaves: TreeLeaf[] = [];
  const stored = collect(path, value, leaves, limits);
  return { value: stored, leaves };
}

function collect(path: string, value: JsonValue, leaves: TreeLeaf[], limits: PathLimits): JsonValue {
  if (value === null) return null;
  // A server value (§11) is a leaf until the write's transaction resolves it.
  if (!isJsonObject(value) || serverValueOf(value)) {
    checkPathLimits(path, limits);
    leaves.push({ path, value });
    return value;
  }
  let result: JsonObject | null = null;
  for (const [key, child] of Object.entries(value)) {
    const reason = invalidKeyReason(key);
    if (reason) throw badRequest(`Invalid key '${key}' at '${path}': ${reason}`);
    const stored = collect(joinPath(path, key), child, leaves, limits);
    if (stored === null) continue;
    result ??= {};
    defineKey(result, key, stored);
  }
  return result;
}

/** The stored form of a value: nulls and empty objects pruned, null when nothing is left. */
export function normalizeValue(value: JsonValue): JsonValue {
  if (!isJsonObject(value)) return value;
  let result: JsonObject | null = null;
  for (const [key, child] of Object.entries(value)) {
    const stored = normalizeValue(child);
    if (stored === null) continue;
    result ??= {};
    defineKey(result, key, stored);
  }
  return result;
}

/** Assembles the value at `base` from the leaves of its subtree (any order); null when there are none. */
export function assembleValue(base: string, leaves: Iterable<TreeLeaf>): JsonValue {
  let root: JsonValue = null;
  for (const leaf of leaves) {
    const segments = relativeSegments(leaf.path, base);
    if (segments.length === 0) return leaf.value;
    if (!isJsonObject(root)) root = {};
    let node: JsonObject = root;
    for (let i = 0; i < segments.length - 1; i++) {
      const key = segments[i] as string;
      const next = Object.hasOwn(node, key) ? node[key] : undefined;
      if (isJsonObject(next)) {
        node = next;
      } else {
        const created: JsonObject = {};
        defineKey(node, key, created);
        node = created;
      }
    }
    defineKey(node, segments[segments.length - 1] as string, leaf.value);
  }
  return root;
}

/** The value found by following `segments` down from `value`; null when a step is missing or a leaf. */
export function valueAt(value: JsonValue, segments: readonly string[]): JsonValue {
  let node = value;
  for (const key of segments) {
    if (!isJsonObject(node) || !Object.hasOwn(node, key)) return null;
    node = node[key] as JsonValue;
  }
  return node;
}

/**
 * A copy of `root` with the subtree at `segments` replaced by `value` (tree semantics: a leaf on
 * the way becomes an object, a deletion prunes parents left empty). Clients keep copies this way.
 */
export function setValueAt(root: JsonValue, segments: readonly string[], value: JsonValue, depth = 0): JsonValue {
  if (depth === segments.length) return normalizeValue(value);
  const key = segments[depth] as string;
  const node = isJsonObject(root) ? root : null;
  const child = node && Object.hasOwn(node, key) ? (node[key] as JsonValue) : null;
  const next = setValueAt(child, segments, value, depth + 1);
  if (next === child) return root;
  if (next === null) {
    if (!node || !Object.hasOwn(node, key)) return root;
    const rest: JsonObject = {};
    for (const [k, v] of Object.entries(node)) if (k !== key) defineKey(rest, k, v);
    return Object.keys(rest).length > 0 ? rest : null;
  }
  const copy: JsonObject = {};
  if (node) for (const [k, v] of Object.entries(node)) defineKey(copy, k, v);
  defineKey(copy, key, next);
  return copy;
}

/** The shallow form of an object (§3 `shallow=true`): each of its keys with `true`. */
export function shallowValue(keys: readonly string[]): JsonObject {
  const result: JsonObject = {};
  for (const key of keys) defineKey(result, key, true);
  return result;
}

/** The JSON text of change values serialized once, by change (invisible to readers of the change). */
const serialized = new WeakMap<TreeChange, string>();

/** A change whose value's JSON text is known already (an engine serialized it for its log). */
export function serializedChange(path: string, value: JsonValue, json: string): TreeChange {
  const change = { path, value };
  serialized.set(change, json);
  return change;
}

/**
 * A change's value as JSON text, serialized at most once per change: the engine's log row, the
 * bus message and the subscribers' updates of a write share it.
 */
export function changeJson(change: TreeChange): string {
  let json = serialized.get(change);
  if (json === undefined) {
    json = JSON.stringify(change.value);
    serialized.set(change, json);
  }
  return json;
}
