/**
 * Compiles parsed `where` clauses and `order_by` (§2) to SQLite SQL over the `data` JSON text.
 * Every predicate yields 0 or 1, never NULL, so `NOT` (for `ne`) stays right for missing fields;
 * every user value and every key name goes in as a bound `@pN` parameter.
 */
import type { OrderBy, Scalar, WhereClause } from '../../core/where.js';

/** Values bound by name (better-sqlite3's `@name` placeholders). */
export type SqliteParams = Record<string, string | number | null>;

/** Collects bound values and hands out their placeholders. */
export class SqliteParamList {
  readonly values: SqliteParams = {};
  private next = 0;

  /** Binds `value` and returns its placeholder. */
  add(value: string | number | null): string {
    const name = `p${this.next++}`;
    this.values[name] = value;
    return `@${name}`;
  }
}

/**
 * The JSON path `$."k1"."k2"` of a key path (object keys only, so it never indexes an array).
 * A quoted path label cannot hold a raw `"`, so `"`, `\` and control characters are written as
 * JSON escapes, which SQLite (3.45 and later, bundled by better-sqlite3) decodes when it compares
 * labels: every key is reachable, as on PostgreSQL and in the reference evaluator.
 */
export function jsonPath(keys: readonly string[]): string {
  return `$${keys.map((key) => `.${quoteLabel(key)}`).join('')}`;
}

function quoteLabel(key: string): string {
  let quoted = '';
  for (const char of key) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\') quoted += '\\\\';
    else if (char === '"' || code < 0x20) quoted += `\\u${code.toString(16).padStart(4, '0')}`;
    else quoted += char;
  }
  return `"${quoted}"`;
}

/** The type (`json_type`: NULL when missing), SQL value and JSON text of the field, sharing one bound path. */
interface FieldSql {
  type: string;
  value: string;
  json: string;
}

function field(keys: readonly string[], params: SqliteParamList): FieldSql {
  // An escaped NUL ends a path label for SQLite (`"s\u0000"` would match `s`); the service never
  // stores NUL (PostgreSQL cannot), so a key holding one is simply missing, as on PostgreSQL.
  if (keys.some((key) => key.includes('\u0000'))) return { type: 'NULL', value: 'NULL', json: 'NULL' };
  const path = params.add(jsonPath(keys));
  return { type: `json_type(data, ${path})`, value: `json_extract(data, ${path})`, json: `(data -> ${path})` };
}

/** `f` equals `value` with exact semantics; may be NULL when the field is missing. */
function equals(f: Pick<FieldSql, 'type' | 'value'>, value: Scalar, params: SqliteParamList): string {
  if (value === null) return `${f.type} = 'null'`;
  if (value === true) return `${f.type} = 'true'`;
  if (value === false) return `${f.type} = 'false'`;
  // Comparing as REAL matches JavaScript numbers, also for integers beyond 2^53.
  if (typeof value === 'number')
    return `(${f.type} IN ('integer', 'real') AND CAST(${f.value} AS REAL) = ${params.add(value)})`;
  return `(${f.type} = 'text' AND ${f.value} = ${params.add(value)})`;
}

function isTrue(predicate: string): string {
  return `COALESCE(${predicate}, 0)`;
}

const ORDER_OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** Whether 0 passes `0 <lookup> value`. */
function zeroMatches(lookup: keyof typeof ORDER_OPERATORS, value: number): boolean {
  if (lookup === 'gt') return value < 0;
  if (lookup === 'gte') return value <= 0;
  if (lookup === 'lt') return value > 0;
  return value >= 0;
}

/** Number of code points, which is how SQLite's substr() counts characters. */
function codePoints(text: string): number {
  return [...text].length;
}

/** Predicates on a JSON string field against the clause's raw text (never LIKE: no wildcards). */
function stringMatch(clause: WhereClause, f: FieldSql, params: SqliteParamList): string {
  const folded = clause.lookup.startsWith('i');
  const text = folded ? clause.text.toLowerCase() : clause.text;
  const subject = folded ? `cds_lower(${f.value})` : f.value;
  const length = codePoints(text);
  switch (clause.lookup) {
    case 'iexact':
      return `${subject} = ${params.add(text)}`;
    case 'contains':
    case 'icontains':
      return `instr(${subject}, ${params.add(text)}) > 0`;
    case 'startswith':
    case 'istartswith':
      return `substr(${subject}, 1, ${params.add(length)}) = ${params.add(text)}`;
    default:
      // endswith / iendswith; substr(x, -0) is not an empty suffix, so '' is handled apart.
      return length === 0 ? '1' : `substr(${subject}, -${params.add(length)}) = ${params.add(text)}`;
  }
}

/** An array field having an element equal to `value`. */
function arrayHas(keys: readonly string[], value: Scalar, params: SqliteParamList): string {
  const element = { type: 'e.type', value: 'e.value' };
  return `EXISTS (SELECT 1 FROM json_each(data, ${params.add(jsonPath(keys))}) AS e WHERE ${equals(element, value, params)})`;
}

/** One clause as an SQL predicate that is 0 or 1. */
export function compileClause(clause: WhereClause, params: SqliteParamList): string {
  const f = field(clause.field, params);
  switch (clause.lookup) {
    case 'exact':
      return isTrue(equals(f, clause.value, params));
    case 'ne':
      return `NOT ${isTrue(equals(f, clause.value, params))}`;
    case 'in':
      if (clause.values.length === 0) return '0';
      return isTrue(clause.values.map((item) => equals(f, item, params)).join(' OR '));
    case 'isnull':
      return clause.value === true ? `COALESCE(${f.type} = 'null', 1)` : `COALESCE(${f.type} <> 'null', 0)`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const op = ORDER_OPERATORS[clause.lookup];
      const value = clause.value;
      if (typeof value === 'number') {
        // The field's JSON text CASTs to its number, and any other JSON text (a string starts with
        // '"') to 0: when 0 fails the comparison, it alone decides, with one JSON call a row.
        const compare = `CAST(${f.json} AS REAL) ${op} ${params.add(value)}`;
        return isTrue(zeroMatches(clause.lookup, value) ? `${f.type} IN ('integer', 'real') AND ${compare}` : compare);
      }
      if (typeof value === 'string') return isTrue(`${f.type} = 'text' AND ${f.value} ${op} ${params.add(value)}`);
      return '0';
    }
    case 'contains': {
      const inString = `(${f.type} = 'text' AND ${stringMatch(clause, f, params)})`;
      const inArray = `(${f.type} = 'array' AND ${arrayHas(clause.field, clause.value, params)})`;
      return isTrue(`${inString} OR ${inArray}`);
    }
    default:
      return isTrue(`${f.type} = 'text' AND ${stringMatch(clause, f, params)}`);
  }
}

/** Every clause joined with AND (`1` when there is none). */
export function compileWhere(clauses: readonly WhereClause[], params: SqliteParamList): string {
  return clauses.length === 0 ? '1' : clauses.map((clause) => compileClause(clause, params)).join(' AND ');
}

/** An SQL string literal (SQLite has no backslash escapes: quotes are doubled). */
export const sqlLiteral = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The §2 order of a field as two expressions, its type rank and its value, with the JSON path
 * as a literal: declared indexes (§15) are built on exactly these, and SQLite matches an index
 * expression only when the query spells it the same way.
 */
export function fieldTerms(keys: readonly string[]): { rank: string; key: string } {
  const path = sqlLiteral(jsonPath(keys));
  const type = `json_type(data, ${path})`;
  const value = `json_extract(data, ${path})`;
  return {
    rank: `CASE ${type} WHEN 'false' THEN 1 WHEN 'true' THEN 1 WHEN 'integer' THEN 2 WHEN 'real' THEN 2 WHEN 'text' THEN 3 WHEN 'array' THEN 4 WHEN 'object' THEN 5 ELSE 0 END`,
    // Within one rank the key has one SQL type (integer, real or text), so SQLite compares like with like.
    key: `CASE ${type} WHEN 'false' THEN 0 WHEN 'true' THEN 1 WHEN 'integer' THEN CAST(${value} AS REAL) WHEN 'real' THEN ${value} WHEN 'text' THEN ${value} END`,
  };
}

/**
 * ORDER BY terms of the §2 total order: missing/null, booleans, numbers, strings, arrays, objects;
 * `-field` reverses the value order only, ties always by path ascending. `rankFixed`: an index
 * seek fixes the field's rank (`rank = c`), and the rank term is left out, since SQLite does not
 * see that an index column bound by `=` leaves the index's order intact when it is named.
 */
export function compileOrderBy(orderBy: OrderBy | undefined, rankFixed = false): string {
  if (!orderBy) return 'path';
  if (orderBy.field.some((key) => key.includes('\u0000'))) return 'path';
  const { rank, key } = fieldTerms(orderBy.field);
  const direction = orderBy.descending ? 'DESC' : 'ASC';
  return rankFixed ? `${key} ${direction}, path` : `${rank} ${direction}, ${key} ${direction}, path`;
}
