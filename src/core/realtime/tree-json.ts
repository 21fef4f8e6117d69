/**
 * A subtree's canonical JSON text (keys sorted, as `canonicalJson` writes it) straight from its
 * leaves' stored JSON text, without assembling the value (§3, §11), for leaves in any order; and
 * the packed form in which engines hand a subtree's leaves over (`packed-subtree.ts` writes the
 * common case from it byte by byte).
 */
import { canonicalJson, type JsonValue } from '../json.js';
import { ROOT_PATH } from './tree-path.js';

/** One stored leaf as the engine keeps it: its path and its value's JSON text. */
export interface TreeLeafText {
  path: string;
  json: string;
}

/**
 * Leaves packed in one UTF-8 buffer: `path NUL json`, with NUL between leaves. No path holds NUL
 * (`parseTreePath`) and JSON text holds it only escaped, so the format is unambiguous.
 */
export function packLeaves(leaves: readonly TreeLeafText[]): Buffer {
  return Buffer.from(leaves.map((leaf) => `${leaf.path}\u0000${leaf.json}`).join('\u0000'));
}

/** The leaves of `packLeaves`' format. */
export function unpackLeaves(packed: Uint8Array): TreeLeafText[] {
  if (packed.length === 0) return [];
  const parts = Buffer.from(packed.buffer, packed.byteOffset, packed.length).toString().split('\u0000');
  const leaves: TreeLeafText[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) leaves.push({ path: parts[i] as string, json: parts[i + 1] as string });
  return leaves;
}

/** A key JSON.stringify writes unchanged between quotes: no quote, backslash, control character or surrogate. */
function plainKey(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

const quoted = (key: string) => (plainKey(key) ? `"${key}"` : JSON.stringify(key));

/** An integer of up to 15 digits (safe, and written the same by every engine) as JSON.stringify writes it. */
function plainInteger(json: string): boolean {
  const start = json.charCodeAt(0) === 0x2d /* - */ ? 1 : 0;
  const digits = json.length - start;
  // A leading zero only alone, and never as -0 (which JSON.stringify writes as 0).
  if (digits < 1 || digits > 15 || (json.charCodeAt(start) === 0x30 && (digits > 1 || start > 0))) return false;
  for (let i = start; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/**
 * The canonical JSON of one stored leaf's text. Already canonical whatever wrote it: a string
 * without escapes (stored text is valid JSON), an integer of up to 15 digits, a boolean; anything
 * else (an array, a float, an escaped string, jsonb's spacing) is parsed and re-written.
 */
export function canonicalLeafText(json: string): string {
  if (json.charCodeAt(0) === 0x22 /* " */ ? !json.includes('\\') : plainInteger(json)) return json;
  if (json === 'true' || json === 'false') return json;
  return canonicalJson(JSON.parse(json) as JsonValue);
}

/**
 * The sort key of a path below the base: `/` becomes NUL, which no key contains and every other
 * character follows, so comparing keys compares segment by segment as `canonicalJson`'s key sort
 * does (UTF-16 code units; a key sorts before the keys it is a prefix of).
 */
const sortKey = (relative: string) => relative.replaceAll('/', '\u0000');

/**
 * The canonical JSON of the value at `base` made of `leaves` (at or below it, in any order and at
 * any depth); `null` when there are none.
 */
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
