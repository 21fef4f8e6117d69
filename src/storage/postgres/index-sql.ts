/**
 * PostgreSQL expression indexes of declared indexes (§15). Each index field is four key columns
 * of `fieldTerms` (the §2 type rank, then a boolean, numeric and "C"-collated text key, each a
 * constant outside its type), then `path`: the order `compileOrderBy` asks for. The index is partial to
 * its project and collection, which a query using it names as literals, so the planner can
 * prove the index covers it whatever the parameters.
 */
import pg from 'pg';
import type { DocumentIndex, IndexPlan } from '../../core/documents/indexes.js';
import { prefixEnd, typeGroup } from '../../core/documents/indexes.js';
import type { Scalar, WhereClause } from '../../core/where.js';
import { fieldTerms, type PgParamList } from './where-sql.js';

/** The database index of a declaration. */
export const postgresIndexName = (id: number) => `cds_index_${id}`;

/** The partial-index scope of a declaration, as a query must also spell it. */
export function indexScope(projectId: number, collection: string): string {
  return `project_id = ${Math.trunc(projectId)} AND collection = ${pg.escapeLiteral(collection)}`;
}

/** The statement building a declaration's index without blocking writes (outside a transaction). */
export function createIndexSql(index: DocumentIndex): string {
  const columns = index.fields.flatMap(({ field, descending }) => {
    const terms = fieldTerms(field);
    const direction = descending ? ' DESC' : '';
    return [terms.rank, terms.bool, terms.num, terms.str].map((term) => `${term}${direction}`);
  });
  return `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${postgresIndexName(index.id)} ON documents (${[...columns, 'path'].join(', ')})
WHERE ${indexScope(index.projectId, index.collection)}`;
}

type Terms = ReturnType<typeof fieldTerms>;
const KEYS = ['bool', 'num', 'str'] as const;
const KEY_OF = { boolean: 'bool', number: 'num', string: 'str' } as const;
const CASTS = { bool: 'boolean', num: 'numeric', str: 'text' } as const;
const RANKS = { null: 0, boolean: 1, number: 2, string: 3 } as const;
const ORDER_OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** What the key of another type holds. */
const OTHER = { bool: 'false', num: '0', str: "''" } as const;

/** The rank fixed and the keys before `key` at their constants: the seek then goes on `key`. */
function upTo(terms: Terms, group: keyof typeof RANKS, key: (typeof KEYS)[number] | null): string[] {
  const before = key === null ? KEYS : KEYS.slice(0, KEYS.indexOf(key));
  return [`${terms.rank} = ${RANKS[group]}`, ...before.map((k) => `${terms[k]} = ${OTHER[k]}`)];
}

/** A scalar bound as its key's type (numbers as their JSON text, so numeric keeps every digit). */
function bind(value: Scalar, params: PgParamList): string {
  const key = KEY_OF[typeGroup(value) as keyof typeof KEY_OF];
  return `${params.add(typeof value === 'number' ? JSON.stringify(value) : value)}::${CASTS[key]}`;
}

/** The seek terms of one clause: implied by the clause, each a condition on the index's columns. */
function seekTerms(clause: WhereClause, terms: Terms, params: PgParamList): string[] {
  const group = typeGroup(clause.value);
  switch (clause.lookup) {
    case 'isnull':
      return upTo(terms, 'null', null);
    case 'exact': {
      if (group === 'null') return upTo(terms, 'null', null);
      const key = KEY_OF[group];
      // The keys after it are NULL too, so an equality fixes the field's four columns.
      const after = KEYS.slice(KEYS.indexOf(key) + 1).map((k) => `${terms[k]} = ${OTHER[k]}`);
      return [...upTo(terms, group, key), `${terms[key]} = ${bind(clause.value, params)}`, ...after];
    }
    case 'in': {
      const first = typeGroup(clause.values[0] ?? null) as keyof typeof KEY_OF;
      const key = KEY_OF[first];
      const items = clause.values.map((item) => (typeof item === 'number' ? JSON.stringify(item) : item));
      return [...upTo(terms, first, key), `${terms[key]} = ANY (${params.add(items)}::${CASTS[key]}[])`];
    }
    case 'startswith': {
      const end = prefixEnd(clause.text);
      const seek = [...upTo(terms, 'string', 'str'), `${terms.str} >= ${params.add(clause.text)}::text`];
      return end === null ? seek : [...seek, `${terms.str} < ${params.add(end)}::text`];
    }
    default: {
      const op = ORDER_OPERATORS[clause.lookup as keyof typeof ORDER_OPERATORS];
      const key = KEY_OF[group as keyof typeof KEY_OF];
      return [...upTo(terms, group, key), `${terms[key]} ${op} ${bind(clause.value, params)}`];
    }
  }
}

/** Every seek term of a plan, for the query's WHERE. */
export function compileSeeks(plan: IndexPlan, params: PgParamList): string[] {
  return plan.seeks.flatMap((seek) => {
    const terms = fieldTerms(plan.index.fields[seek.position]?.field ?? []);
    return seek.clauses.flatMap((clause) => seekTerms(clause, terms, params));
  });
}
