/**
 * The SQL of the PostgreSQL document store: its fixed statements, the skip scan over child
 * collection names, and the statement a query compiles to, apart from the store so that tests
 * EXPLAIN exactly what it runs.
 */
import type pg from 'pg';
import type { DocumentJson, QueryDocumentsOptions, QueryResult } from '../../core/documents/document-store.js';
import { exactlySought } from '../../core/documents/indexes.js';
import { compileSeeks, indexScope } from './index-sql.js';
import { compileLive } from './ttl-sql.js';
import { compileOrderBy, compileWhere, PgParamList } from './where-sql.js';

/** The `{id, path, data}` of the row `alias` as JSON text (`DocumentJson`), so nothing is parsed and serialized again in Node. */
const documentJsonSql = (alias: string) =>
  `'{"id":"' || ${alias}.id || '","path":' || to_json(${alias}.path)::text || ',"data":' || ${alias}.data::text || '}'`;
const DOCUMENT_JSON = `${documentJsonSql('documents')} AS doc`;

/** The SQL expressions a skip scan is written over: bound parameters, or the columns of a batch row. */
interface SkipScanTerms {
  project: string;
  /** `path/` of the document below which names are found ('' for the root). */
  prefix: string;
  /** Where a name starts in a path below it: the prefix's length + 1. */
  start: string;
  /** The exclusive upper bound of the paths below it (`path0`); none for the root. */
  upper: string | null;
}

/** The terms of the single-document statements: `$1` project, `$2` prefix, `$3` start, `$4` upper bound. */
const BOUND_TERMS: SkipScanTerms = { project: '$1', prefix: '$2::text', start: '$3::int', upper: '$4::text' };

/** The fixed statements of the PostgreSQL document store, exported so tests can EXPLAIN exactly them. */
export const postgresDocumentSql = {
  get: 'SELECT id, path, data FROM documents WHERE project_id = $1 AND path = $2',
  getStored: 'SELECT id, path, data, version::float8 AS version FROM documents WHERE project_id = $1 AND path = $2',
  /** `getStored` of several documents at once (`$1`, `$2`: their projects and paths), each row with its key's place `i`. */
  getManyStored: `SELECT k.i::int AS i, d.id, d.path, d.data, d.version::float8 AS version
FROM unnest($1::int[], $2::text[]) WITH ORDINALITY AS k(project_id, path, i)
JOIN documents d ON d.project_id = k.project_id AND d.path = k.path`,
  list: `SELECT ${DOCUMENT_JSON} FROM documents
WHERE project_id = $1 AND parent = $2 AND collection = $3 AND path > $4
ORDER BY path LIMIT $5`,
  childCollections: skipScanSql(true),
  rootCollections: skipScanSql(false),
  getWithCollections: getWithCollectionsSql(),
  getManyWithCollections: getManyWithCollectionsSql(),
} as const;

/** The statements of the admin store's pages (§6), on the same index as `list`. */
export const postgresPagingSql = {
  listPage: `SELECT ${DOCUMENT_JSON} FROM documents
WHERE project_id = $1 AND parent = $2 AND collection = $3 AND path > $4
ORDER BY path LIMIT $5 OFFSET $6`,
  countChildren: 'SELECT count(*)::int AS n FROM documents WHERE project_id = $1 AND parent = $2 AND collection = $3',
} as const;

/**
 * The skip scan over the primary key as a recursive CTE `names`: each step seeks the first path
 * at or after `prefix || name || '0'` ('0' is the byte after '/'), which skips every path of the
 * child collection `name`, so the cost grows with the number of names, not of descendants. The
 * last step finds no row and yields a NULL name, which ends the recursion.
 */
function namesCte(terms: SkipScanTerms): string {
  const below = terms.upper === null ? '' : ` AND d.path < ${terms.upper}`;
  const seek = (from: string) =>
    `SELECT split_part(substr(d.path, ${terms.start}), '/', 1) FROM documents d
WHERE d.project_id = ${terms.project} AND d.path >= ${from}${below} ORDER BY d.path LIMIT 1`;
  return `WITH RECURSIVE names(name) AS (
  (${seek(terms.prefix)})
  UNION ALL
  SELECT (${seek(`${terms.prefix} || n.name || '0'`)}) FROM names n WHERE n.name IS NOT NULL
)`;
}

/**
 * The names found by `namesCte`. The seeks meet them in path order ('c!/' sorts before 'c/'),
 * so they are sorted here, in byte (= code point) order.
 */
function sortedNamesSql(): string {
  return 'SELECT name FROM names WHERE name IS NOT NULL ORDER BY name COLLATE "C"';
}

/** The skip scan alone: the child collection names below a prefix, one row each. */
function skipScanSql(bounded: boolean): string {
  return `${namesCte(bounded ? BOUND_TERMS : { ...BOUND_TERMS, upper: null })}
${sortedNamesSql()}`;
}

/**
 * The document `$5` with its child collection names in one statement (document GET). The names
 * are an uncorrelated subquery of the select list, run only when the document row exists: a
 * missing document costs the primary-key lookup alone.
 */
function getWithCollectionsSql(): string {
  return `${namesCte(BOUND_TERMS)}
SELECT ${documentJsonSql('doc')} AS document, doc.version::float8 AS version, ARRAY(${sortedNamesSql()}) AS collections
FROM documents doc WHERE doc.project_id = $1 AND doc.path = $5`;
}

/**
 * The documents at `$2[i]` of projects `$1[i]` with their child collection names (the document
 * GETs of one batch). The same skip scan, correlated to each row of the batch: `i` is the item's
 * position; missing documents have no row.
 */
function getManyWithCollectionsSql(): string {
  const terms = {
    project: 'v.project_id',
    prefix: "v.path || '/'",
    start: 'length(v.path) + 2',
    upper: "v.path || '0'",
  };
  return `SELECT v.i::int AS i, ${documentJsonSql('doc')} AS document, doc.version::float8 AS version, ARRAY(
${namesCte(terms)}
${sortedNamesSql()}) AS collections
FROM unnest($1::int[], $2::text[]) WITH ORDINALITY AS v(project_id, path, i)
JOIN documents doc ON doc.project_id = v.project_id AND doc.path = v.path`;
}

/** `$1`–`$4` of the bounded skip scan below the document `path`. */
function belowParams(projectId: number, path: string): unknown[] {
  const prefix = `${path}/`;
  return [projectId, prefix, [...prefix].length + 1, `${path}0`];
}

/** The parameters of the child-collection skip scan below `path` ('' is the root). */
export function childCollectionsQuery(projectId: number, path: string): { sql: string; params: unknown[] } {
  if (path === '') return { sql: postgresDocumentSql.rootCollections, params: [projectId, '', 1] };
  return { sql: postgresDocumentSql.childCollections, params: belowParams(projectId, path) };
}

/** The statement and parameters of `getWithCollections`: the document `path` and the scan below it. */
export function getWithCollectionsQuery(projectId: number, path: string): { sql: string; params: unknown[] } {
  return { sql: postgresDocumentSql.getWithCollections, params: [...belowParams(projectId, path), path] };
}

/** A query's statement (§2, §15): the store runs exactly this and reads its rows with `postgresQueryResult`. */
export interface PostgresQuery {
  sql: string;
  params: unknown[];
}

/**
 * A row of a query's statement: a document of the page, or the last row of the scan alone (`doc`
 * null), which tells what the scan read when no document of the page does. `seen`: how many rows
 * the scan had read at this row; none when the statement returns every row it reads.
 */
export interface PostgresQueryRow {
  doc: DocumentJson | null;
  seen?: string;
}

/**
 * The SQL and parameters of a query; the store runs exactly this.
 *
 * The rows it read (§15 rows scanned) come with the rows it returns, in the same statement: the
 * candidates (the rows the scope and seeks select) are numbered in the query's order, and the
 * last of them is returned even when it is no match of the page (`doc` null), so its number is
 * the count of all of them when the page is not full, or when no document matches at all. When
 * the rows come out of an index in the query's order the scan stops at the page's last match,
 * whose number is what it read; when they are sorted, all are read and each carries their count.
 */
export function postgresQuerySql(projectId: number, options: QueryDocumentsOptions): PostgresQuery {
  const params = new PgParamList();
  const plan = options.index;
  // A partial index is used only when the planner can prove the query lies in its scope: literals.
  const scope = plan ? [indexScope(projectId, options.collection)] : [`project_id = ${params.add(projectId)}`];
  if (options.parent !== undefined) scope.push(`parent = ${params.add(options.parent)}`);
  if (!plan) scope.push(`collection = ${params.add(options.collection)}`);
  if (options.startAfter !== undefined) scope.push(`path > ${params.add(options.startAfter)}`);
  const candidates = [...scope, ...(plan ? compileSeeks(plan, params) : [])].join(' AND ');
  const sought = exactlySought(plan);
  const clauses = compileWhere(
    options.where.filter((clause) => !sought.has(clause)),
    params,
  );
  // An expired document (§17) is a candidate read and not returned, as one a clause drops.
  const residual = options.live ? `${clauses} AND ${compileLive(options.live, params)}` : clauses;
  const orderBy = compileOrderBy(options.orderBy);
  const streamed = plan ? plan.ordered : !options.orderBy;
  const offset = options.offset ?? 0;
  // LIMIT NULL means no limit.
  const limit = `LIMIT ${params.add(options.limit ?? null)}`;
  if (streamed && residual === 'true' && offset === 0) {
    // Every row read is returned, and the scan stops at the limit: the rows are the count.
    return {
      params: params.values,
      sql: `SELECT ${DOCUMENT_JSON} FROM documents WHERE ${candidates} ORDER BY ${orderBy} ${limit}`,
    };
  }
  // The filter and the page come after the windows, which see every candidate in the query's order
  // (the subquery's ORDER BY is kept); `lead` reads one row ahead to know the last.
  const seen = streamed ? 'row_number() OVER ()' : 'count(*) OVER ()';
  const read = `SELECT id, path, data, ok, ${seen} AS seen, lead(true, 1, false) OVER () AS more
  FROM (SELECT id, path, data, ${residual} AS ok FROM documents WHERE ${candidates} ORDER BY ${orderBy}) AS candidates`;
  // `offset` counts matches: they are numbered apart from the rows the filter drops (the last row is last either way).
  const paged =
    offset === 0
      ? `SELECT id, path, data, seen, more, ok AS page FROM (${read}) AS read`
      : `SELECT id, path, data, seen, more, ok AND row_number() OVER () > ${params.add(offset)} AS page
  FROM (${read}) AS read WHERE ok OR NOT more`;
  const sql = `SELECT CASE WHEN page THEN ${documentJsonSql('scanned')} END AS doc, seen
FROM (${paged}) AS scanned
WHERE page OR NOT more ${limit}`;
  return { params: params.values, sql };
}

/**
 * The page and the rows read of a query's rows (`postgresQuerySql`): the last row's `seen`, or
 * the rows themselves when the statement returns every row it reads.
 */
export function postgresQueryResult(rows: readonly PostgresQueryRow[]): QueryResult {
  const documents: DocumentJson[] = [];
  for (const row of rows) if (row.doc !== null) documents.push(row.doc);
  const last = rows.at(-1);
  return { documents, rowsScanned: last?.seen === undefined ? rows.length : Number(last.seen) };
}

/**
 * A fixed statement as a named prepared statement: PostgreSQL parses and plans it once per
 * connection instead of on every call (2–3× less work for a point lookup or the skip scan).
 */
export function prepared(name: string, text: string, values: unknown[]): pg.QueryConfig {
  return { name: `cds_documents_${name}`, text, values };
}
