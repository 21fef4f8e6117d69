import { badRequest } from './errors.js';

/** The lookups of the §2 table. */
export const LOOKUPS = [
  'exact',
  'iexact',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'contains',
  'icontains',
  'startswith',
  'istartswith',
  'endswith',
  'iendswith',
  'isnull',
] as const;

export type Lookup = (typeof LOOKUPS)[number];

/** A clause value after coercion. */
export type Scalar = null | boolean | number | string;

/** One parsed `field__lookup:value` clause. */
export interface WhereClause {
  /** Key path into `data` (`stats__level` → `['stats', 'level']`). */
  field: string[];
  lookup: Lookup;
  /** The coerced value; for `in`, the coerced items are in `values`. */
  value: Scalar;
  /** The value as written, used by the string lookups (`contains`, `iexact`, …). */
  text: string;
  /** Coerced items of an `in` clause. */
  values: Scalar[];
}

/** A parsed `order_by`: the key path and the direction. */
export interface OrderBy {
  field: string[];
  descending: boolean;
}

export const MAX_WHERE_CLAUSES = 20;

const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const lookupSet: ReadonlySet<string> = new Set(LOOKUPS);

/** Coerces a clause value as the seed says: booleans, null, JSON-grammar numbers, else string. */
export function coerceValue(text: string): Scalar {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (JSON_NUMBER.test(text)) {
    const n = Number(text);
    if (Number.isFinite(n)) return n;
  }
  return text;
}

function invalidClause(clause: string): Error {
  return badRequest(`Invalid where clause '${clause}': expected field__lookup:value`);
}

/** Parses one `field__lookup:value` clause (§2 grammar). */
export function parseWhereClause(clause: string): WhereClause {
  const colon = clause.indexOf(':');
  if (colon < 0) throw invalidClause(clause);
  const left = clause.slice(0, colon);
  const text = clause.slice(colon + 1);
  const split = left.lastIndexOf('__');
  if (split < 0) throw invalidClause(clause);
  const lookup = left.slice(split + 2);
  const field = left.slice(0, split).split('__');
  if (field.some((key) => key.length === 0)) throw invalidClause(clause);
  if (!lookupSet.has(lookup)) throw badRequest(`Unsupported lookup '${lookup}'`);
  const value = coerceValue(text);
  if (lookup === 'isnull' && typeof value !== 'boolean') {
    throw badRequest(`Invalid where clause '${clause}': isnull takes true or false`);
  }
  const values = lookup === 'in' ? text.split(',').map(coerceValue) : [];
  return { field, lookup: lookup as Lookup, value, text, values };
}

/** Parses every `where` parameter of a query; at most 20. */
export function parseWhere(clauses: readonly string[]): WhereClause[] {
  if (clauses.length > MAX_WHERE_CLAUSES) throw badRequest(`Too many where clauses (max ${MAX_WHERE_CLAUSES})`);
  return clauses.map(parseWhereClause);
}

/** Parses `order_by`: `field` or `-field`, nested with `__`. */
export function parseOrderBy(raw: string): OrderBy {
  const descending = raw.startsWith('-');
  const field = (descending ? raw.slice(1) : raw).split('__');
  if (field.some((key) => key.length === 0)) throw badRequest(`Invalid order_by '${raw}'`);
  return { field, descending };
}

/**
 * True for a clause no stored value can match, answered without asking the store: `iexact` whose
 * value is not a string (`age__iexact:30`; §2 wants both sides strings, and engines compare text).
 */
export function matchesNothing(clause: WhereClause): boolean {
  return clause.lookup === 'iexact' && typeof clause.value !== 'string';
}
