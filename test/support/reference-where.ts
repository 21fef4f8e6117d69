/**
 * A plain in-memory evaluator of §2 queries, written from the contract's lookup table and
 * order_by rule and independent of any SQL; the differential test compares the engines with it.
 */

import type { QueryDocumentsOptions } from '../../src/core/documents/document-store.js';
import type { JsonObject, JsonValue } from '../../src/core/json.js';
import type { OrderBy, Scalar, WhereClause } from '../../src/core/where.js';

/** A stored document as the reference sees it. */
export interface ReferenceDocument {
  path: string;
  parent: string;
  collection: string;
  data: JsonObject;
}

/** The value at a key path following object keys only; undefined when missing. */
export function valueAt(data: JsonObject, keys: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = data;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** Code point order (the same as UTF-8 byte order), not JavaScript's UTF-16 order. */
export function compareCodePoints(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Exact semantics: same JSON type and equal value; arrays and objects never equal a scalar. */
function equals(v: JsonValue | undefined, value: Scalar): boolean {
  if (value === null) return v === null;
  return typeof v === typeof value && v === value;
}

function compareScalars(v: JsonValue | undefined, value: Scalar): number | null {
  if (typeof v === 'number' && typeof value === 'number') return v < value ? -1 : v > value ? 1 : 0;
  if (typeof v === 'string' && typeof value === 'string') return compareCodePoints(v, value);
  return null;
}

function stringLookup(lookup: string, v: string, text: string): boolean {
  const folded = lookup.startsWith('i');
  const subject = folded ? v.toLowerCase() : v;
  const needle = folded ? text.toLowerCase() : text;
  switch (lookup) {
    case 'iexact':
      return subject === needle;
    case 'contains':
    case 'icontains':
      return subject.includes(needle);
    case 'startswith':
    case 'istartswith':
      return subject.startsWith(needle);
    default:
      return subject.endsWith(needle);
  }
}

/** Whether one clause matches the document data. */
export function matchesClause(data: JsonObject, clause: WhereClause): boolean {
  const v = valueAt(data, clause.field);
  switch (clause.lookup) {
    case 'exact':
      return equals(v, clause.value);
    case 'ne':
      return !equals(v, clause.value);
    case 'in':
      return clause.values.some((item) => equals(v, item));
    case 'isnull':
      return clause.value === true ? v === undefined || v === null : v !== undefined && v !== null;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const order = compareScalars(v, clause.value);
      if (order === null) return false;
      if (clause.lookup === 'gt') return order > 0;
      if (clause.lookup === 'gte') return order >= 0;
      if (clause.lookup === 'lt') return order < 0;
      return order <= 0;
    }
    case 'contains':
      if (Array.isArray(v)) return v.some((item) => equals(item, clause.value));
      return typeof v === 'string' && stringLookup('contains', v, clause.text);
    default:
      return typeof v === 'string' && stringLookup(clause.lookup, v, clause.text);
  }
}

/** Rank of the §2 total order: missing/null, booleans, numbers, strings, arrays, objects. */
function rank(v: JsonValue | undefined): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'boolean') return 1;
  if (typeof v === 'number') return 2;
  if (typeof v === 'string') return 3;
  return Array.isArray(v) ? 4 : 5;
}

/** Compares two field values by the total order (arrays tie with arrays, objects with objects). */
export function compareValues(a: JsonValue | undefined, b: JsonValue | undefined): number {
  const byRank = rank(a) - rank(b);
  if (byRank !== 0) return Math.sign(byRank);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  return 0;
}

/** Document order of a query: by the order_by value (reversed for `-field`), then path ascending. */
export function compareDocuments(a: ReferenceDocument, b: ReferenceDocument, orderBy?: OrderBy): number {
  if (orderBy) {
    const byValue = compareValues(valueAt(a.data, orderBy.field), valueAt(b.data, orderBy.field));
    if (byValue !== 0) return orderBy.descending ? -byValue : byValue;
  }
  return compareCodePoints(a.path, b.path);
}

/** The documents a query returns, in order. */
export function referenceQuery(
  documents: readonly ReferenceDocument[],
  options: QueryDocumentsOptions,
): ReferenceDocument[] {
  const matching = documents.filter(
    (doc) =>
      doc.collection === options.collection &&
      (options.parent === undefined || doc.parent === options.parent) &&
      options.where.every((clause) => matchesClause(doc.data, clause)),
  );
  matching.sort((a, b) => compareDocuments(a, b, options.orderBy));
  const offset = options.offset ?? 0;
  return matching.slice(offset, options.limit === undefined ? undefined : offset + options.limit);
}
