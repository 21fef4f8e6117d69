/**
 * `where` and `order_by` of §2 evaluated in memory, with exactly the engines' SQL semantics: a
 * listener (§10) decides whether a written document belongs to its result without asking the
 * database. The differential test of `where` holds it to the engines on the same random cases.
 */
import type { JsonObject, JsonValue } from '../json.js';
import { matchesNothing, type OrderBy, type Scalar, type WhereClause } from '../where.js';

/** A predicate over a document's data. */
export type DataPredicate = (data: JsonObject) => boolean;

/** The value at a key path, following object keys only (a path never descends into an array); undefined when missing. */
export function fieldValue(data: JsonObject, keys: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = data;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** Code point order of strings (UTF-8 byte order, as the engines compare), not UTF-16 order. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only surrogates (>= 0xD800 < 0xE000) break UTF-16 order: compare whole code points there.
    if (x >= 0xd800 && y >= 0xd800) return (a.codePointAt(i) as number) - (b.codePointAt(i) as number);
    return x - y;
  }
  return a.length - b.length;
}

/** JSON equality with a coerced clause value: same type and value (1 equals 1.0); no array or object equals one. */
function equalsScalar(v: JsonValue | undefined, value: Scalar): boolean {
  if (value === null) return v === null;
  return v === value;
}

function ordered(lookup: 'gt' | 'gte' | 'lt' | 'lte', value: Scalar): (v: JsonValue | undefined) => boolean {
  const test = (order: number) =>
    lookup === 'gt' ? order > 0 : lookup === 'gte' ? order >= 0 : lookup === 'lt' ? order < 0 : order <= 0;
  if (typeof value === 'number') return (v) => typeof v === 'number' && test(v < value ? -1 : v > value ? 1 : 0);
  if (typeof value === 'string') return (v) => typeof v === 'string' && test(compareCodePoints(v, value));
  // Mixed types never match; booleans and null are not ordered.
  return () => false;
}

function textual(lookup: WhereClause['lookup'], text: string): (v: JsonValue | undefined) => boolean {
  const folded = lookup.startsWith('i');
  const needle = folded ? text.toLowerCase() : text;
  const fold = (v: string) => (folded ? v.toLowerCase() : v);
  switch (lookup) {
    case 'iexact':
      return (v) => typeof v === 'string' && fold(v) === needle;
    case 'icontains':
      return (v) => typeof v === 'string' && fold(v).includes(needle);
    case 'startswith':
    case 'istartswith':
      return (v) => typeof v === 'string' && fold(v).startsWith(needle);
    default:
      return (v) => typeof v === 'string' && fold(v).endsWith(needle);
  }
}

/** One clause as a predicate on the value at its field. */
function clauseTest(clause: WhereClause): (v: JsonValue | undefined) => boolean {
  if (matchesNothing(clause)) return () => false;
  const { value } = clause;
  switch (clause.lookup) {
    case 'exact':
      return (v) => equalsScalar(v, value);
    case 'ne':
      return (v) => !equalsScalar(v, value);
    case 'in': {
      const items = clause.values;
      return (v) => items.some((item) => equalsScalar(v, item));
    }
    case 'isnull':
      return value === true ? (v) => v === undefined || v === null : (v) => v !== undefined && v !== null;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return ordered(clause.lookup, value);
    case 'contains':
      return (v) => {
        if (Array.isArray(v)) return v.some((item) => equalsScalar(item, value));
        return typeof v === 'string' && v.includes(clause.text);
      };
    default:
      return textual(clause.lookup, clause.text);
  }
}

/** Every clause compiled once; the predicate holds when all of them match (no clause: every document). */
export function compileMatcher(clauses: readonly WhereClause[]): DataPredicate {
  const tests = clauses.map((clause) => ({ field: clause.field, test: clauseTest(clause) }));
  return (data) => tests.every(({ field, test }) => test(fieldValue(data, field)));
}

/** Rank in §2's total order: missing or null, booleans, numbers, strings, arrays, objects. */
function rank(v: JsonValue | undefined): number {
  if (v === undefined || v === null) return 0;
  switch (typeof v) {
    case 'boolean':
      return 1;
    case 'number':
      return 2;
    case 'string':
      return 3;
    default:
      return Array.isArray(v) ? 4 : 5;
  }
}

/** Two field values in the total order (arrays tie with arrays, objects with objects). */
export function compareFieldValues(a: JsonValue | undefined, b: JsonValue | undefined): number {
  const byRank = rank(a) - rank(b);
  if (byRank !== 0) return byRank;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return 0;
}

/** A document as queries order it. */
export interface OrderedDocument {
  path: string;
  data: JsonObject;
}

/** The order of a query's result: by `order_by` (reversed for `-field`), ties (and no `order_by`) by path. */
export function documentOrder(orderBy: OrderBy | undefined): (a: OrderedDocument, b: OrderedDocument) => number {
  if (!orderBy) return (a, b) => compareCodePoints(a.path, b.path);
  const { field, descending } = orderBy;
  return (a, b) => {
    const byValue = compareFieldValues(fieldValue(a.data, field), fieldValue(b.data, field));
    if (byValue !== 0) return descending ? -byValue : byValue;
    return compareCodePoints(a.path, b.path);
  };
}
