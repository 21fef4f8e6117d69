/**
 * A subtree's canonical JSON text (keys sorted, as `canonicalJson` writes it) straight from its
 * leaves' stored JSON text, without assembling the value: what a GET of a large subtree answers
 * and hashes for its ETag (§3, §11). Leaves arrive in any order; the common case (path order,
 * keys without characters below `/`) needs no sort.
 */
import { canonicalJson, type JsonValue } from '../json.js';
import { ROOT_PATH } from './tree-path.js';

/** One stored leaf as the engine keeps it: its path and its value's JSON text. */
export interface TreeLeafText {
  path: string;
  json: string;
}

// Texts that are already canonical whatever wrote them: `canonicalJson` of their parse gives
// them back unchanged. A string without escapes, a safe integer of up to 15 digits, a boolean.
const PLAIN_STRING = /^"[^"\\]*"$/;
const PLAIN_INTEGER = /^-?(?:0|[1-9][0-9]{0,14})$/;

// A key JSON.stringify writes unchanged between quotes: no quote, backslash, control character or surrogate.
const PLAIN_KEY = /^[\u0020\u0021\u0023-\u005b\u005d-\ud7ff\ue000-\uffff]*$/;
const quoted = (key: string) => (PLAIN_KEY.test(key) ? `"${key}"` : JSON.stringify(key));

/** The canonical JSON of one leaf's stored text (an array, a float or an escaped string is re-written). */
export function canonicalLeafText(json: string): string {
  const first = json.charCodeAt(0);
  if (first === 0x22 /* " */ ? PLAIN_STRING.test(json) : PLAIN_INTEGER.test(json)) return json;
  if (json === 'true' || json === 'false') return json;
  return canonicalJson(JSON.parse(json) as JsonValue);
}

/**
 * The sort key of a path below the base: `/` becomes NUL, which no key contains and every other
 * character follows, so comparing keys compares segment by segment as `canonicalJson`'s key sort
 * does (UTF-16 code units; a key sorts before the keys it is a prefix of).
 */
const sortKey = (relative: string) => relative.replaceAll('/', '\u0000');

/** The canonical JSON of the value at `base` made of `leaves` (at or below it); `null` when there are none. */
export function subtreeJson(base: string, leaves: readonly TreeLeafText[]): string {
  if (leaves.length === 0) return 'null';
  const cut = base === ROOT_PATH ? 0 : base.length + 1;
  const keys = leaves.map((leaf) => (leaf.path === base ? '' : sortKey(leaf.path.slice(cut))));
  let order: readonly number[] | null = null;
  if (!ascending(keys)) order = keys.map((_, i) => i).sort((a, b) => compare(keys[a] as string, keys[b] as string));
  const at = (i: number) => (order ? (order[i] as number) : i);
  // The leaf at the base itself is the whole value (it has no descendants).
  if (keys[at(0)] === '') return canonicalLeafText((leaves[at(0)] as TreeLeafText).json);
  let out = '{';
  const open: string[] = [];
  let comma = false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[at(i)] as string;
    const next = i + 1 < keys.length ? (keys[at(i + 1)] as string) : undefined;
    // A leaf with a leaf below it (never stored so; a reader assembling in path order keeps the lower one).
    if (next !== undefined && next.length > key.length && next.charCodeAt(key.length) === 0 && next.startsWith(key))
      continue;
    const segments = key.includes('\u0000') ? key.split('\u0000') : [key];
    const parents = segments.length - 1;
    let shared = 0;
    while (shared < open.length && shared < parents && open[shared] === segments[shared]) shared++;
    if (open.length > shared) {
      out += '}'.repeat(open.length - shared);
      open.length = shared;
      comma = true;
    }
    for (let level = shared; level < parents; level++) {
      const name = segments[level] as string;
      out += `${comma ? ',' : ''}${quoted(name)}:{`;
      open.push(name);
      comma = false;
    }
    out += `${comma ? ',' : ''}${quoted(segments[parents] as string)}:${canonicalLeafText((leaves[at(i)] as TreeLeafText).json)}`;
    comma = true;
  }
  return `${out}${'}'.repeat(open.length + 1)}`;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function ascending(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if ((keys[i - 1] as string) >= (keys[i] as string)) return false;
  return true;
}
