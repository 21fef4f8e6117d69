/**
 * Compiles parsed `where` clauses and `order_by` (§2) to PostgreSQL SQL over the `data` jsonb.
 * Every predicate is TRUE or FALSE, never NULL, so `NOT` (for `ne`) stays right for missing
 * fields; every user value and every key name goes in as a bound `$n` parameter.
 */
import pg from 'pg';
import type { OrderBy, Scalar, WhereClause } from '../../core/where.js';

/** Collects positional parameters and hands out their `$n` placeholders. */
export class PgParamList {
  readonly values: unknown[] = [];

  /** Binds `value` and returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

// PostgreSQL text cannot hold NUL, so no stored key or string contains one; a clause naming such
// a key or string is decided here instead of being sent (which would fail the whole statement).
const hasNul = (text: string): boolean => text.includes('\u0000');

/**
 * The jsonb value at a key path: chained `->` with text keys, which follows object keys only and
 * yields NULL on arrays, scalars and missing keys.
 */
function field(keys: readonly string[], params: PgParamList): string {
  if (keys.some(hasNul)) return 'NULL::jsonb';
  return `(data${keys.map((key) => ` -> ${params.add(key)}::text`).join('')})`;
}

/** The text of a jsonb string (only meaningful where `jsonb_typeof` is 'string'). */
const text = (j: string): string => `(${j} #>> '{}')`;
/** JavaScript's toLowerCase(): full Unicode case mapping, as ICU does it. */
const lower = (sql: string): string => `lower(${sql} COLLATE "und-x-icu")`;

/** `j` equals `value` with exact semantics: jsonb equality compares numbers numerically. */
function equals(j: string, value: Scalar, params: PgParamList): string {
  if (typeof value === 'string' && hasNul(value)) return 'false';
  return `COALESCE(${j} = ${params.add(JSON.stringify(value))}::jsonb, false)`;
}

const ORDER_OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** Number or string comparison; any other combination of types never matches. */
function compare(j: string, op: string, value: Scalar, params: PgParamList): string {
  if (typeof value === 'number') {
    return `COALESCE(jsonb_typeof(${j}) = 'number' AND ${j} ${op} ${params.add(JSON.stringify(value))}::jsonb, false)`;
  }
  if (typeof value !== 'string') return 'false';
  // Code point order: COLLATE "C" compares UTF-8 bytes; bytea does the same for a NUL-holding value.
  const subject = hasNul(value)
    ? `convert_to(${text(j)}, 'UTF8') ${op} ${params.add(Buffer.from(value, 'utf8'))}::bytea`
    : `${text(j)} COLLATE "C" ${op} ${params.add(value)}::text`;
  return `COALESCE(jsonb_typeof(${j}) = 'string' AND ${subject}, false)`;
}

/** Predicates on a string against the clause's raw text: strpos/starts_with/right, never LIKE. */
function stringMatch(clause: WhereClause, j: string, params: PgParamList): string {
  if (hasNul(clause.text)) return 'false';
  const folded = clause.lookup.startsWith('i');
  const subject = folded ? lower(text(j)) : text(j);
  const needle = folded ? lower(`${params.add(clause.text)}::text`) : `${params.add(clause.text)}::text`;
  switch (clause.lookup) {
    case 'iexact':
      return `${subject} = ${needle}`;
    case 'contains':
    case 'icontains':
      return `strpos(${subject}, ${needle}) > 0`;
    case 'startswith':
    case 'istartswith':
      return `starts_with(${subject}, ${needle})`;
    default:
      return `right(${subject}, length(${needle})) = ${needle}`;
  }
}

/** The answer of a clause that no stored value can change (a NUL string, a boolean bound); else null. */
function decided(clause: WhereClause): string | null {
  const nulString = typeof clause.value === 'string' && hasNul(clause.value);
  if (clause.lookup === 'exact' && nulString) return 'false';
  if (clause.lookup === 'ne' && nulString) return 'true';
  if (clause.lookup in ORDER_OPERATORS && typeof clause.value !== 'number' && typeof clause.value !== 'string') {
    return 'false';
  }
  return null;
}

/** One clause as an SQL predicate that is TRUE or FALSE. */
export function compileClause(clause: WhereClause, params: PgParamList): string {
  // Decided clauses bind nothing: PostgreSQL rejects a parameter that the SQL never uses.
  const answer = decided(clause);
  if (answer !== null) return answer;
  const j = field(clause.field, params);
  switch (clause.lookup) {
    case 'exact':
      return equals(j, clause.value, params);
    case 'ne':
      return `NOT ${equals(j, clause.value, params)}`;
    case 'in': {
      // Items holding NUL cannot equal a stored value; an empty array matches nothing.
      const items = clause.values.filter((item) => !(typeof item === 'string' && hasNul(item)));
      return `COALESCE(${j} = ANY (${params.add(items.map((item) => JSON.stringify(item)))}::jsonb[]), false)`;
    }
    case 'isnull':
      return clause.value === true
        ? `COALESCE(jsonb_typeof(${j}) = 'null', true)`
        : `COALESCE(jsonb_typeof(${j}) <> 'null', false)`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return compare(j, ORDER_OPERATORS[clause.lookup], clause.value, params);
    case 'contains': {
      const inString = `(jsonb_typeof(${j}) = 'string' AND ${stringMatch(clause, j, params)})`;
      const value = clause.value;
      const element = typeof value === 'string' && hasNul(value) ? null : params.add(JSON.stringify(value));
      // Containment compares scalars like jsonb equality; an array never contains a nested [x] for x.
      const inArray = element
        ? `(jsonb_typeof(${j}) = 'array' AND ${j} @> jsonb_build_array(${element}::jsonb))`
        : 'false';
      return `COALESCE(${inString} OR ${inArray}, false)`;
    }
    default:
      return `COALESCE(jsonb_typeof(${j}) = 'string' AND ${stringMatch(clause, j, params)}, false)`;
  }
}

/** Every clause joined with AND (`true` when there is none). */
export function compileWhere(clauses: readonly WhereClause[], params: PgParamList): string {
  return clauses.length === 0 ? 'true' : clauses.map((clause) => compileClause(clause, params)).join(' AND ');
}

/**
 * The §2 order of a field as four expressions: its type rank, then one key per type (a constant
 * outside it, so that a seek fixes the keys of other types by `=`, which the planner knows keeps
 * the index's order, where `IS NULL` would not), with the keys as literals: declared indexes (§15) are built on exactly these, and the
 * planner matches an index expression only when the query spells it the same way.
 */
export function fieldTerms(keys: readonly string[]): { rank: string; bool: string; num: string; str: string } {
  const j = keys.some(hasNul)
    ? 'NULL::jsonb'
    : `(data${keys.map((key) => ` -> ${pg.escapeLiteral(key)}::text`).join('')})`;
  const type = `jsonb_typeof(${j})`;
  return {
    rank: `(CASE ${type} WHEN 'boolean' THEN 1 WHEN 'number' THEN 2 WHEN 'string' THEN 3 WHEN 'array' THEN 4 WHEN 'object' THEN 5 ELSE 0 END)`,
    bool: `(CASE WHEN ${type} = 'boolean' THEN (${j})::boolean ELSE false END)`,
    num: `(CASE WHEN ${type} = 'number' THEN (${j})::numeric ELSE 0 END)`,
    str: `(CASE WHEN ${type} = 'string' THEN ${text(j)} ELSE '' END COLLATE "C")`,
  };
}

/**
 * ORDER BY terms of the §2 total order: missing/null, booleans, numbers, strings, arrays, objects;
 * `-field` reverses the value order only, ties always by path ascending.
 */
export function compileOrderBy(orderBy: OrderBy | undefined): string {
  if (!orderBy) return 'path';
  const { rank, bool, num, str } = fieldTerms(orderBy.field);
  const dir = orderBy.descending ? 'DESC' : 'ASC';
  return [rank, bool, num, str]
    .map((term) => `${term} ${dir}`)
    .join(', ')
    .concat(', path');
}
