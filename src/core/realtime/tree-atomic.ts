/**
 * Atomic tree writes (§11): ETags of values, `If-Match` on writes, and the server values
 * `{".sv": "timestamp"}` and `{".sv": {"increment": n}}`. The engine decides nothing: it reads the
 * values a `TreeWriteHook` names inside the write's transaction (after taking the project's
 * version, so no other writer comes between) and applies the sets the hook resolves.
 */
import { createHash } from 'node:crypto';
import { PRECONDITION_FAILED } from '../documents/document-writes.js';
import { AppError } from '../errors.js';
import { canonicalJson, isJsonObject, type JsonObject, type JsonValue } from '../json.js';
import type { TreeSet, TreeWriteHook } from './tree-store.js';
import { defineKey } from './tree-value.js';

/** The ETag of a tree value: a hash of its canonical JSON (keys sorted), the same on every instance. */
export function treeEtag(value: JsonValue): string {
  return etagOfCanonicalJson(canonicalJson(value));
}

/** The ETag of a value given as its canonical JSON text (`subtreeJson`): the same as `treeEtag` of the value. */
export function etagOfCanonicalJson(json: string | Uint8Array): string {
  return createHash('sha256').update(json).digest('base64url').slice(0, 27);
}

/** ETags a tree write must match: a list, or `*` (any value other than null). */
export type TreeMatch = '*' | readonly string[];

/** The ETags of an `If-Match` header (`"a", "b"` or `*`); a JSON `if_match` is one ETag without quotes. */
export function parseTreeTags(text: string): TreeMatch {
  const tags = text.split(',').map((tag) => tag.trim());
  if (tags.includes('*')) return '*';
  return tags.filter((tag) => !tag.startsWith('W/')).map((tag) => tag.replace(/^"(.*)"$/, '$1'));
}

/** A refused precondition, with what the path holds now (a WebSocket `error` event shows both). */
export class TreePreconditionFailed extends AppError {
  constructor(
    readonly etag: string,
    readonly value: JsonValue,
  ) {
    super('precondition_failed', PRECONDITION_FAILED);
  }
}

type ServerValue = { kind: 'timestamp' } | { kind: 'increment'; by: number };

/** The server value `value` stands for; undefined when it is an ordinary value; 422 when malformed. */
export function serverValueOf(value: JsonValue): ServerValue | undefined {
  if (!isJsonObject(value) || !Object.hasOwn(value, '.sv')) return undefined;
  const spec = value['.sv'];
  if (Object.keys(value).length === 1) {
    if (spec === 'timestamp') return { kind: 'timestamp' };
    if (isJsonObject(spec) && Object.keys(spec).length === 1 && typeof spec.increment === 'number') {
      return { kind: 'increment', by: spec.increment };
    }
  }
  throw new AppError('validation', 'Invalid server value', [
    {
      loc: ['body', 'value'],
      msg: 'A server value is {".sv": "timestamp"} or {".sv": {"increment": <number>}}',
      type: 'value_error',
    },
  ]);
}

/** The paths of the sets' leaves that hold an increment: their current values are read in the transaction. */
function incrementPaths(sets: readonly TreeSet[]): string[] {
  return sets.flatMap((set) =>
    set.leaves.filter((leaf) => serverValueOf(leaf.value)?.kind === 'increment').map((leaf) => leaf.path),
  );
}

/** `value` with each server value replaced by what it resolves to at its path. */
function resolveValue(
  path: string,
  value: JsonValue,
  resolve: (path: string, sv: ServerValue) => JsonValue,
): JsonValue {
  const sv = serverValueOf(value);
  if (sv) return resolve(path, sv);
  if (!isJsonObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, child] of Object.entries(value))
    defineKey(result, key, resolveValue(`${path}/${key}`.replace(/^\//, ''), child, resolve));
  return result;
}

const hasServerValue = (value: JsonValue): boolean =>
  serverValueOf(value) !== undefined || (isJsonObject(value) && Object.values(value).some(hasServerValue));

/**
 * The hook of a write whose `sets` may hold server values, under `ifMatch` on the value at
 * `path`; null when it needs none (the engine then applies `sets` as they are).
 */
export function treeWriteHook(
  path: string,
  sets: readonly TreeSet[],
  ifMatch: TreeMatch | undefined,
): TreeWriteHook | null {
  const servers = sets.some((set) => hasServerValue(set.value));
  if (!servers && ifMatch === undefined) return null;
  const increments = servers ? incrementPaths(sets) : [];
  return {
    reads: ifMatch === undefined ? increments : [path, ...increments],
    resolve(current, time) {
      if (ifMatch !== undefined) {
        const value = current.get(path) ?? null;
        const etag = treeEtag(value);
        const matched = ifMatch === '*' ? value !== null : ifMatch.includes(etag);
        if (!matched) throw new TreePreconditionFailed(etag, value);
      }
      if (!servers) return [...sets];
      const resolve = (at: string, sv: ServerValue): JsonValue => {
        if (sv.kind === 'timestamp') return time;
        const now = current.get(at);
        return (typeof now === 'number' ? now : 0) + sv.by;
      };
      return sets.map((set) => ({
        path: set.path,
        value: resolveValue(set.path, set.value, resolve),
        leaves: set.leaves.map((leaf) => ({ path: leaf.path, value: resolveValue(leaf.path, leaf.value, resolve) })),
      }));
    },
  };
}
