/**
 * SQLite expression indexes of declared indexes (§15). Each index field is two key columns, the
 * field's §2 type rank and its value (REAL for numbers and booleans, TEXT for strings, NULL for
 * missing and null), then `path`: so an index yields rows in exactly the order `compileOrderBy`
 * asks for. Then `id`, `data` and `parent`, all a query reads: the index covers its queries, which read
 * the entries they return side by side instead of one table seek per document (the documents of
 * a range of values are scattered over the table). The index is partial to its project and collection. SQLite matches an index
 * expression only when the query spells it the same way, with literals rather than parameters,
 * so both are written by `fieldTerms`, and a query using the index names project and collection
 * as literals too.
 */
import type { DocumentIndex, IndexPlan } from '../../core/documents/indexes.js';
import { prefixEnd, typeGroup } from '../../core/documents/indexes.js';
import type { Scalar, WhereClause } from '../../core/where.js';
import { fieldTerms, type SqliteParamList, sqlLiteral } from './where-sql.js';

/** The database index of a declaration. */
export const sqliteIndexName = (id: number) => `cds_index_${id}`;

/** The partial-index scope of a declaration, as a query must also spell it. */
export function indexScope(projectId: number, collection: string): string {
  return `project_id = ${projectId} AND collection = ${sqlLiteral(collection)}`;
}

/** The statement creating a declaration's database index. */
export function createIndexSql(index: DocumentIndex): string {
  const columns = index.fields.flatMap(({ field, descending }) => {
    const { rank, key } = fieldTerms(field);
    const direction = descending ? ' DESC' : '';
    return [`${rank}${direction}`, `${key}${direction}`];
  });
  return `CREATE INDEX ${sqliteIndexName(index.id)} ON documents (${[...columns, 'path', 'id', 'data', 'parent'].join(', ')})
WHERE ${indexScope(index.projectId, index.collection)}`;
}

const RANKS = { null: 0, boolean: 1, number: 2, string: 3 } as const;

/** A scalar as its index key: booleans are 0 and 1. */
function keyOf(value: Scalar): string | number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

const ORDER_OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** The seek terms of one clause: implied by the clause, and each a condition on the index's columns. */
function seekTerms(clause: WhereClause, rank: string, key: string, params: SqliteParamList): string[] {
  const group = typeGroup(clause.value);
  switch (clause.lookup) {
    case 'isnull':
      return [`${rank} = 0`, `${key} IS NULL`];
    case 'exact':
      if (group === 'null') return [`${rank} = 0`, `${key} IS NULL`];
      return [`${rank} = ${RANKS[group]}`, `${key} = ${params.add(keyOf(clause.value))}`];
    case 'in': {
      const items = clause.values.map((item) => params.add(keyOf(item)));
      return [`${rank} = ${RANKS[typeGroup(clause.values[0] ?? null)]}`, `${key} IN (${items.join(', ')})`];
    }
    case 'startswith': {
      const end = prefixEnd(clause.text);
      const terms = [`${rank} = 3`, `${key} >= ${params.add(clause.text)}`];
      return end === null ? terms : [...terms, `${key} < ${params.add(end)}`];
    }
    default: {
      const op = ORDER_OPERATORS[clause.lookup as keyof typeof ORDER_OPERATORS];
      return [`${rank} = ${RANKS[group]}`, `${key} ${op} ${params.add(keyOf(clause.value))}`];
    }
  }
}

/** Every seek term of a plan, for the query's WHERE. */
export function compileSeeks(plan: IndexPlan, params: SqliteParamList): string[] {
  return plan.seeks.flatMap((seek) => {
    const { rank, key } = fieldTerms(plan.index.fields[seek.position]?.field ?? []);
    return seek.clauses.flatMap((clause) => seekTerms(clause, rank, key, params));
  });
}
