/**
 * A subtree's canonical JSON (§3, §11) written byte by byte from its leaves as an engine packs
 * them (`packLeaves`' format), with no JavaScript string or object per leaf: what a GET of a large
 * subtree answers and hashes for its ETag. Leaves in path order (as the engines keep them) are
 * written in one pass while each key follows the one before it in object-key order; anything else
 * (leaves in another order, a key of a character outside the BMP, whose UTF-8 and UTF-16 orders
 * differ, a leaf above another) is written by `subtreeJson`, which sorts.
 */
import { canonicalLeafText, subtreeJson, unpackLeaves } from './tree-json.js';
import { ROOT_PATH } from './tree-path.js';

const NUL = 0x00;
const QUOTE = 0x22;
const COMMA = 0x2c;
const SLASH = 0x2f;
const COLON = 0x3a;
const BACKSLASH = 0x5c;
const OPEN = 0x7b;
const CLOSE = 0x7d;
/** The first byte of a character outside the BMP in UTF-8. */
const FOUR_BYTE_LEAD = 0xf0;
/** Deeper paths (beyond the default limit of §0) are written by `subtreeJson`. */
const MAX_SEGMENTS = 128;

const NULL_JSON = Buffer.from('null');

/** The UTF-8 canonical JSON of the value at `base` made of `packed` leaves (at or below it); `null` when none. */
export function packedSubtreeJson(base: string, packed: Uint8Array): Uint8Array {
  if (packed.length === 0) return NULL_JSON;
  const cut = base === ROOT_PATH ? 0 : Buffer.byteLength(base) + 1;
  return writeInPathOrder(packed, cut) ?? Buffer.from(subtreeJson(base, unpackLeaves(packed)));
}

/**
 * The one-pass writer; null when the leaves need `subtreeJson`. One function over local
 * variables: per leaf it costs a few bytes' work, where a writer object's method calls cost
 * about as much again as the whole read.
 */
function writeInPathOrder(packed: Uint8Array, cut: number): Uint8Array | null {
  const size = packed.length;
  let out: Uint8Array = Buffer.allocUnsafe(size + (size >> 1) + 64);
  let length = 0;
  // The previous and the current leaf's path segments below the base, as [start, end) pairs.
  let previous = new Int32Array(2 * MAX_SEGMENTS);
  let current = new Int32Array(2 * MAX_SEGMENTS);
  let previousBounds = 0;
  out[length++] = OPEN;
  for (let at = 0; at < size; ) {
    // The leaf at the base itself (`base NUL json`) is the whole value when it is the only one.
    if (cut === 0 ? packed[at] === NUL : packed[at + cut - 1] !== SLASH) {
      const valueStart = at + Math.max(cut, 1);
      return at === 0 && packed.indexOf(NUL, valueStart) === -1 ? leafJson(packed, valueStart) : null;
    }
    let pathEnd = at + cut;
    let bounds = 0;
    let start = pathEnd;
    for (let byte = packed[pathEnd]; byte !== NUL && pathEnd < size; byte = packed[++pathEnd]) {
      if (byte === SLASH) {
        if (bounds === current.length - 2) return null;
        current[bounds++] = start;
        current[bounds++] = pathEnd;
        start = pathEnd + 1;
      } else if ((byte as number) >= FOUR_BYTE_LEAD) return null;
    }
    if (pathEnd >= size) return null; // a path without a value: not the engines' format
    current[bounds++] = start;
    current[bounds++] = pathEnd;
    let valueEnd = pathEnd + 1;
    while (valueEnd < size && packed[valueEnd] !== NUL) valueEnd++;

    // Room for the objects closed, the comma, the keys (4 bytes each beyond their own) and the value.
    out = grown(out, length, previousBounds + (valueEnd - at) + 3 * bounds + 16);
    // The first segment where this path leaves the previous one's: it must follow it there.
    let level = 0;
    if (previousBounds > 0) {
      level = -1;
      const shared = Math.min(previousBounds, bounds);
      for (let segment = 0; segment < shared && level === -1; segment += 2) {
        const order = compareBytes(packed, previous, current, segment);
        if (order < 0) level = segment;
        else if (order > 0) return null;
      }
      if (level === -1) return null; // one path lies on the other
      for (let open = previousBounds - 2; open > level; open -= 2) out[length++] = CLOSE;
      out[length++] = COMMA;
    }

    for (let segment = level; segment < bounds; segment += 2) {
      if (segment > level) out[length++] = OPEN;
      const keyStart = length;
      const end = current[segment + 1] as number;
      out[length++] = QUOTE;
      for (let i = current[segment] as number; i < end; i++) {
        const byte = packed[i] as number;
        if (byte < 0x20 || byte === QUOTE || byte === BACKSLASH) {
          length = keyStart;
          const escaped = Buffer.from(JSON.stringify(decode(packed, current[segment] as number, end)));
          out = grown(out, length, escaped.length + 2 + (bounds - segment) * 8 + valueEnd - at);
          out.set(escaped, length);
          length += escaped.length - 1; // its closing quote is written below
          break;
        }
        out[length++] = byte;
      }
      out[length++] = QUOTE;
      out[length++] = COLON;
    }

    if (canonicalAsStored(packed, pathEnd + 1, valueEnd) || canonicalNumber(packed, pathEnd + 1, valueEnd)) {
      for (let i = pathEnd + 1; i < valueEnd; i++) out[length++] = packed[i] as number;
    } else {
      const canonical = Buffer.from(canonicalLeafText(decode(packed, pathEnd + 1, valueEnd)));
      out = grown(out, length, canonical.length + 16);
      out.set(canonical, length);
      length += canonical.length;
    }
    const written = previous;
    previous = current;
    current = written;
    previousBounds = bounds;
    at = valueEnd + 1;
  }
  out = grown(out, length, previousBounds);
  for (let open = previousBounds; open > 0; open -= 2) out[length++] = CLOSE;
  return out.subarray(0, length);
}

/** Byte order of segment `segment` of two paths (for UTF-8 of the BMP, the order of their UTF-16 strings). */
function compareBytes(packed: Uint8Array, a: Int32Array, b: Int32Array, segment: number): number {
  let i = a[segment] as number;
  let j = b[segment] as number;
  const aEnd = a[segment + 1] as number;
  const bEnd = b[segment + 1] as number;
  for (; i < aEnd && j < bEnd; i++, j++) {
    const difference = (packed[i] as number) - (packed[j] as number);
    if (difference !== 0) return difference;
  }
  return aEnd - i - (bEnd - j);
}

/** `out` with room for `more` bytes after its first `length`. */
function grown(out: Uint8Array, length: number, more: number): Uint8Array {
  if (length + more <= out.length) return out;
  const larger = Buffer.allocUnsafe(Math.max(2 * out.length, length + more));
  larger.set(out.subarray(0, length));
  return larger;
}

function leafJson(packed: Uint8Array, from: number): Uint8Array {
  return Buffer.from(canonicalLeafText(decode(packed, from, packed.length)));
}

function decode(packed: Uint8Array, from: number, to: number): string {
  return Buffer.from(packed.buffer, packed.byteOffset + from, to - from).toString();
}

/** `canonicalLeafText`'s fast test on bytes: a string without escapes, an integer of up to 15 digits, a boolean. */
function canonicalAsStored(packed: Uint8Array, from: number, to: number): boolean {
  const first = packed[from] as number;
  if (first === QUOTE) {
    for (let i = from + 1; i < to - 1; i++) if (packed[i] === BACKSLASH) return false;
    return true;
  }
  if (first === 0x74 /* t */) return to - from === 4 && sameBytes(packed, from, 'true');
  if (first === 0x66 /* f */) return to - from === 5 && sameBytes(packed, from, 'false');
  const start = first === 0x2d /* - */ ? from + 1 : from;
  const digits = to - start;
  if (digits < 1 || digits > 15 || (packed[start] === 0x30 && (digits > 1 || start > from))) return false;
  for (let i = start; i < to; i++) {
    const byte = packed[i] as number;
    if (byte < 0x30 || byte > 0x39) return false;
  }
  return true;
}

/**
 * A number written as JSON.stringify writes it (a float such as a position, say): checked by
 * writing it again, which costs a fraction of parsing and re-writing the leaf.
 */
function canonicalNumber(packed: Uint8Array, from: number, to: number): boolean {
  const first = packed[from] as number;
  if (first !== 0x2d /* - */ && (first < 0x30 || first > 0x39)) return false;
  let text = ''; // ASCII if a number: built by hand, cheaper than any decoder for a few characters
  for (let i = from; i < to; i++) text += String.fromCharCode(packed[i] as number);
  return String(Number(text)) === text;
}

function sameBytes(packed: Uint8Array, from: number, ascii: string): boolean {
  for (let i = 0; i < ascii.length; i++) if (packed[from + i] !== ascii.charCodeAt(i)) return false;
  return true;
}
