/**
 * The SQL of the SQLite document store: its fixed statements and the one a query compiles to,
 * apart from the store so that tests EXPLAIN exactly what it runs.
 */
import type { QueryDocumentsOptions } from '../../core/documents/document-store.js';
import { exactlySought } from '../../core/documents/indexes.js';
import { compileSeeks, indexScope, sqliteIndexName } from './index-sql.js';
import { compileLive } from './ttl-sql.js';
import { compileOrderBy, compileWhere, SqliteParamList, type SqliteParams } from './where-sql.js';

/** A row's `{id, path, data}` as JSON text (`data` is stored as JSONB; json() renders it). */
const DOCUMENT_JSON = `'{"id":' || json_quote(id) || ',"path":' || json_quote(path) || ',"data":' || json(data) || '}'`;

/**
 * The fixed statements of the SQLite document store, exported so tests can EXPLAIN exactly them.
 * Every one that finds rows names its index (INDEXED BY), for two reasons. Without ANALYZE
 * statistics SQLite guesses that `project_id = ?` selects about ten rows and walks the whole
 * project in primary-key (path) order to skip a sort; and once a declared index (§15, a partial
 * index `WHERE project_id = N AND collection = '…'`) exists, a statement whose planner weighs it
 * compares the bound `@project` with N, so SQLite prepares the statement again each time
 * `@project` is bound: every call (twice the cost of a document GET). A statement pinned to its
 * index never weighs the others.
 */
export const sqliteDocumentSql = {
  get: 'SELECT id, path, json(data) AS data FROM documents INDEXED BY documents_by_path WHERE project_id = @project AND path = @path',
  getStored:
    'SELECT id, path, json(data) AS data, version FROM documents INDEXED BY documents_by_path WHERE project_id = @project AND path = @path',
  insert: `INSERT INTO documents (project_id, path, parent, collection, id, data, created_at, updated_at, version)
VALUES (@project, @path, @parent, @collection, @id, jsonb(@data), @now, @now, @version)`,
  /** Sets `id` too: the id core decided, a new one when the stored document had expired (§17). */
  update:
    'UPDATE documents INDEXED BY documents_by_path SET id = @id, data = jsonb(@data), updated_at = @now, version = @version WHERE project_id = @project AND path = @path',
  delete: 'DELETE FROM documents INDEXED BY documents_by_path WHERE project_id = @project AND path = @path',
  /** The write of a mutation decided on the document its hook saw (`seen`): only while that is still stored. */
  updateIfSeen:
    'UPDATE documents INDEXED BY documents_by_path SET id = @id, data = jsonb(@data), updated_at = @now, version = @version WHERE project_id = @project AND path = @path AND version = @seen',
  insertIfAbsent: `INSERT INTO documents (project_id, path, parent, collection, id, data, created_at, updated_at, version)
VALUES (@project, @path, @parent, @collection, @id, jsonb(@data), @now, @now, @version) ON CONFLICT (project_id, path) DO NOTHING`,
  deleteIfSeen:
    'DELETE FROM documents INDEXED BY documents_by_path WHERE project_id = @project AND path = @path AND version = @seen',
  list: `SELECT ${DOCUMENT_JSON} FROM documents INDEXED BY documents_by_parent
WHERE project_id = @project AND parent = @parent AND collection = @collection AND path > @after
ORDER BY path LIMIT @limit`,
  /** A document with the first path below it (the skip scan's first step), or no row. */
  getWithFirstChild: `SELECT ${DOCUMENT_JSON} AS document, version,
  (SELECT c.path FROM documents c INDEXED BY documents_by_path WHERE c.project_id = @project AND c.path >= @from AND c.path < @to
   ORDER BY c.path LIMIT 1) AS first_child
FROM documents INDEXED BY documents_by_path WHERE project_id = @project AND path = @path`,
  /** One step of the skip scan: the first path in [@from, @to). */
  firstBelow: `SELECT path FROM documents INDEXED BY documents_by_path WHERE project_id = @project AND path >= @from AND path < @to
ORDER BY path LIMIT 1`,
  /** The same step for the root, which has no upper bound. */
  firstFrom:
    'SELECT path FROM documents INDEXED BY documents_by_path WHERE project_id = @project AND path >= @from ORDER BY path LIMIT 1',
} as const;

/** The statements of the admin store's pages (§6), on the same index as `list`. */
export const sqlitePagingSql = {
  listPage: `SELECT ${DOCUMENT_JSON} FROM documents INDEXED BY documents_by_parent
WHERE project_id = @project AND parent = @parent AND collection = @collection AND path > @after
ORDER BY path LIMIT @limit OFFSET @offset`,
  countChildren: `SELECT count(*) AS n FROM documents INDEXED BY documents_by_parent
WHERE project_id = @project AND parent = @parent AND collection = @collection`,
} as const;

/**
 * Counts the rows a query's scan visits: `cds_row_seen()` is the first term after those the
 * index seeks on, so SQLite calls it once per index entry it reads (§15 rows scanned).
 */
const ROW_SEEN = 'cds_row_seen()';

/**
 * The SQL and parameters of a query. When the rows come out of the index in another order than
 * the query's, `sortedWhole` is the same statement without LIMIT and OFFSET: SQLite then sorts
 * with its sorter, where `LIMIT` makes it keep the first rows in a temporary B-tree instead, whose
 * inserts of whole documents cost a third of a 100-row query (the store slices the page itself).
 */
export function sqliteQuerySql(
  projectId: number,
  options: QueryDocumentsOptions,
): { sql: string; sortedWhole?: string; params: SqliteParams } {
  const params = new SqliteParamList();
  const plan = options.index;
  const seeks = plan ? compileSeeks(plan, params) : [];
  // What the seek decides exactly is not checked again on each row it reads (as on PostgreSQL).
  const sought = exactlySought(plan);
  const where = compileWhere(
    options.where.filter((clause) => !sought.has(clause)),
    params,
  );
  const orderField = options.orderBy?.field.join('__');
  const rankFixed = plan?.seeks.some((seek) => plan.index.fields[seek.position]?.field.join('__') === orderField);
  const orderBy = compileOrderBy(options.orderBy, rankFixed);
  Object.assign(params.values, {
    project: projectId,
    collection: options.collection,
    limit: options.limit ?? -1,
    offset: options.offset ?? 0,
  });
  // A partial index is used only when the query names its scope with the same literals, and with
  // them alone: SQLite compares a bound `project_id = @project` with the index's literal too, and
  // then prepares the statement again each time @project is bound (a third of a 100-row query).
  const scope = plan ? [indexScope(projectId, options.collection)] : ['project_id = @project'];
  let index = 'documents_by_collection';
  if (plan) index = sqliteIndexName(plan.index.id);
  else if (options.parent !== undefined) index = 'documents_by_parent';
  if (options.parent !== undefined) {
    params.values.parent = options.parent;
    scope.push('parent = @parent');
  }
  if (!plan) scope.push('collection = @collection');
  if (options.startAfter !== undefined) {
    params.values.after = options.startAfter;
    scope.push('path > @after');
  }
  // An expired document (§17) is a row read and not returned, as one a clause drops.
  const live = options.live ? [compileLive(options.live, params)] : [];
  const whole = `SELECT ${DOCUMENT_JSON} FROM documents INDEXED BY ${index}
WHERE ${[...scope, ...seeks, ROW_SEEN, where, ...live].join(' AND ')}
ORDER BY ${orderBy}`;
  const sql = `${whole} LIMIT @limit OFFSET @offset`;
  // The path indexes yield path order; a declared index its own, which `ordered` says serves the query's.
  const sorted = plan ? !plan.ordered : orderBy !== 'path';
  return sorted ? { sql, sortedWhole: whole, params: params.values } : { sql, params: params.values };
}

/** The paths below `path` ('' is the root): from `prefix` up to `to`, exclusive (none for the root). */
export function belowPath(path: string): { prefix: string; to: string | null } {
  return path === '' ? { prefix: '', to: null } : { prefix: `${path}/`, to: `${path}0` };
}
