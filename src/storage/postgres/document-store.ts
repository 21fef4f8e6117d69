import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { exactlySought } from '../../core/documents/indexes.js';
import { validationFailed } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import type { DocumentPath } from '../../core/paths.js';
import type {
  DocumentJson,
  DocumentRecord,
  DocumentStore,
  DocumentWithCollections,
  ListDocumentsOptions,
  NamePage,
  QueryDocumentsOptions,
  QueryResult,
} from '../../core/ports.js';
import { compileSeeks, indexScope } from './index-sql.js';
import { StatementBatch } from './statement-batch.js';
import { compileOrderBy, compileWhere, PgParamList } from './where-sql.js';

/** A row's `{id, path, data}` as JSON text (`DocumentJson`), so no page is parsed and serialized again in Node. */
const DOCUMENT_JSON = `'{"id":"' || id || '","path":' || to_json(path)::text || ',"data":' || data::text || '}' AS doc`;

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
  upsert: `INSERT INTO documents (project_id, path, parent, collection, id, data) VALUES ($1, $2, $3, $4, $5, $6::jsonb)
ON CONFLICT (project_id, path) DO UPDATE SET data = EXCLUDED.data, updated_at = now()
RETURNING project_id, path, id, (xmax = 0) AS created`,
  /** The upserts of one batch (distinct paths): one row per element of the parameter arrays. */
  upsertMany: `INSERT INTO documents (project_id, path, parent, collection, id, data)
SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::jsonb[])
ON CONFLICT (project_id, path) DO UPDATE SET data = EXCLUDED.data, updated_at = now()
RETURNING project_id, path, id, (xmax = 0) AS created`,
  insert:
    'INSERT INTO documents (project_id, path, parent, collection, id, data) VALUES ($1, $2, $3, $4, $5, $6::jsonb)',
  insertMany: `INSERT INTO documents (project_id, path, parent, collection, id, data)
SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::jsonb[])`,
  // jsonb || jsonb on two objects is exactly a shallow merge: top-level keys of the patch win.
  merge: `UPDATE documents SET data = data || $3::jsonb, updated_at = now() WHERE project_id = $1 AND path = $2
RETURNING project_id, path, id, data`,
  mergeMany: `UPDATE documents d SET data = d.data || v.patch, updated_at = now()
FROM unnest($1::int[], $2::text[], $3::jsonb[]) AS v(project_id, path, patch)
WHERE d.project_id = v.project_id AND d.path = v.path
RETURNING d.project_id, d.path, d.id, d.data`,
  delete: 'DELETE FROM documents WHERE project_id = $1 AND path = $2',
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
SELECT doc.id, doc.path, doc.data, ARRAY(${sortedNamesSql()}) AS collections
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
  return `SELECT v.i::int AS i, doc.id, doc.path, doc.data, ARRAY(
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

/** A query's statement, and how the rows it read are counted (§15 rows scanned). */
export interface PostgresQuery {
  sql: string;
  params: unknown[];
  /**
   * `streamed`: rows come out of an index in the query's order, so the scan stops at the limit;
   * `seen` is then each row's position in the scan (none when every row read is returned).
   * Otherwise every candidate is read and `seen` is their count.
   */
  streamed: boolean;
  counted: boolean;
  /** The statement counting the candidates (the rows the scan reads when it reads them all). */
  countSql: string;
  countParams: unknown[];
}

/** The SQL and parameters of a query; the store runs exactly this. */
export function postgresQuerySql(projectId: number, options: QueryDocumentsOptions): PostgresQuery {
  const params = new PgParamList();
  const plan = options.index;
  // A partial index is used only when the planner can prove the query lies in its scope: literals.
  const scope = plan ? [indexScope(projectId, options.collection)] : [`project_id = ${params.add(projectId)}`];
  if (options.parent !== undefined) scope.push(`parent = ${params.add(options.parent)}`);
  if (!plan) scope.push(`collection = ${params.add(options.collection)}`);
  if (options.startAfter !== undefined) scope.push(`path > ${params.add(options.startAfter)}`);
  const candidates = [...scope, ...(plan ? compileSeeks(plan, params) : [])].join(' AND ');
  const countParams = [...params.values];
  const sought = exactlySought(plan);
  const residual = compileWhere(
    options.where.filter((clause) => !sought.has(clause)),
    params,
  );
  const orderBy = compileOrderBy(options.orderBy);
  const page = `LIMIT ${params.add(options.limit ?? null)} OFFSET ${params.add(options.offset ?? 0)}`;
  const streamed = plan ? plan.ordered : !options.orderBy;
  const countSql = `SELECT count(*)::int AS n FROM documents WHERE ${candidates}`;
  const base = { params: params.values, streamed, countSql, countParams };
  if (streamed && residual === 'true') {
    // LIMIT NULL means no limit.
    return {
      ...base,
      counted: false,
      sql: `SELECT ${DOCUMENT_JSON} FROM documents WHERE ${candidates} ORDER BY ${orderBy} ${page}`,
    };
  }
  // The filter goes outside a window over the candidates, which numbers them in scan order
  // (streamed) or counts them all (when they are sorted, all are read anyway).
  const seen = streamed ? 'row_number() OVER ()' : 'count(*) OVER ()';
  const sql = `SELECT doc, seen FROM (SELECT ${DOCUMENT_JSON}, ${residual} AS ok, ${seen} AS seen
  FROM documents WHERE ${candidates} ORDER BY ${orderBy}) AS candidates
WHERE ok ${page}`;
  return { ...base, counted: true, sql };
}

/**
 * A fixed statement as a named prepared statement: PostgreSQL parses and plans it once per
 * connection instead of on every call (2–3× less work for a point lookup or the skip scan).
 */
function prepared(name: string, text: string, values: unknown[]): pg.QueryConfig {
  return { name: `cds_documents_${name}`, text, values };
}

const NUL_ISSUE = { loc: ['body', 'data'], msg: 'Strings may not contain the NUL character', type: 'value_error' };

/** Turns PostgreSQL's refusal of `\u0000` in jsonb (22P05) into the §0 validation failure. */
function rejectNul(error: unknown): never {
  if ((error as { code?: unknown }).code === '22P05') throw validationFailed([NUL_ISSUE]);
  throw error;
}

/** A document row to write: its columns, with `data` as JSON text. */
interface RowWrite {
  projectId: number;
  path: DocumentPath;
  id: string;
  data: JsonObject;
  json: string;
}

/** A document of a project (a read of a batch). */
interface DocumentKey {
  projectId: number;
  path: string;
}

/** A shallow merge to apply: the patch as JSON text. */
interface MergeWrite {
  projectId: number;
  path: string;
  patch: string;
}

interface WrittenRow {
  project_id: number;
  path: string;
  id: string;
  created: boolean;
}

interface MergedRow extends DocumentRecord {
  project_id: number;
}

const documentKey = (projectId: number, path: string) => `${projectId}/${path}`;

/**
 * Documents in the `documents` table of PostgreSQL; data is jsonb. Each method is one statement;
 * document reads, upserts, inserts and merges that arrive together share one (see `StatementBatch`).
 */
export class PostgresDocumentStore implements DocumentStore {
  private readonly upserts: StatementBatch<RowWrite, DocumentRecord & { created: boolean }>;
  private readonly inserts: StatementBatch<RowWrite, DocumentRecord>;
  private readonly merges: StatementBatch<MergeWrite, DocumentRecord | null>;
  private readonly reads: StatementBatch<DocumentKey, DocumentWithCollections | null>;

  constructor(private readonly pool: pg.Pool) {
    const rowKey = (write: RowWrite) => documentKey(write.projectId, write.path.path);
    this.upserts = new StatementBatch({
      key: rowKey,
      runOne: async (write) => {
        const { rows } = await this.pool
          .query<WrittenRow>(prepared('upsert', postgresDocumentSql.upsert, rowColumns(write)))
          .catch(rejectNul);
        return upserted(write, one(rows));
      },
      runMany: async (writes) => {
        const { rows } = await this.pool.query<WrittenRow>(
          prepared('upsert_many', postgresDocumentSql.upsertMany, columnArrays(writes)),
        );
        const byKey = new Map(rows.map((row) => [documentKey(row.project_id, row.path), row]));
        return writes.map((write) => upserted(write, byKey.get(rowKey(write))));
      },
    });
    this.inserts = new StatementBatch({
      key: rowKey,
      runOne: async (write) => {
        await this.pool.query(prepared('insert', postgresDocumentSql.insert, rowColumns(write))).catch(rejectNul);
        return inserted(write);
      },
      runMany: async (writes) => {
        await this.pool.query(prepared('insert_many', postgresDocumentSql.insertMany, columnArrays(writes)));
        return writes.map(inserted);
      },
    });
    this.reads = new StatementBatch({
      runOne: async ({ projectId, path }) => {
        const { sql, params } = getWithCollectionsQuery(projectId, path);
        const { rows } = await this.pool.query<DocumentWithCollections>(prepared('get_with_collections', sql, params));
        return rows[0] ?? null;
      },
      runMany: async (keys) => {
        const { rows } = await this.pool.query<DocumentWithCollections & { i: number }>(
          prepared('get_many_with_collections', postgresDocumentSql.getManyWithCollections, [
            keys.map((key) => key.projectId),
            keys.map((key) => key.path),
          ]),
        );
        const found: (DocumentWithCollections | null)[] = keys.map(() => null);
        for (const { i, ...document } of rows) found[i - 1] = document;
        return found;
      },
    });
    this.merges = new StatementBatch({
      key: (write) => documentKey(write.projectId, write.path),
      runOne: async (write) => {
        const { rows } = await this.pool
          .query<MergedRow>(prepared('merge', postgresDocumentSql.merge, [write.projectId, write.path, write.patch]))
          .catch(rejectNul);
        return rows[0] ? merged(rows[0]) : null;
      },
      runMany: async (writes) => {
        const { rows } = await this.pool.query<MergedRow>(
          prepared('merge_many', postgresDocumentSql.mergeMany, [
            writes.map((write) => write.projectId),
            writes.map((write) => write.path),
            writes.map((write) => write.patch),
          ]),
        );
        const byKey = new Map(rows.map((row) => [documentKey(row.project_id, row.path), merged(row)]));
        return writes.map((write) => byKey.get(documentKey(write.projectId, write.path)) ?? null);
      },
    });
  }

  upsert(projectId: number, path: DocumentPath, data: JsonObject): Promise<DocumentRecord & { created: boolean }> {
    return this.upserts.run({ projectId, path, id: randomUUID(), data, json: JSON.stringify(data) });
  }

  insert(projectId: number, path: DocumentPath, id: string, data: JsonObject): Promise<DocumentRecord> {
    return this.inserts.run({ projectId, path, id, data, json: JSON.stringify(data) });
  }

  async get(projectId: number, path: string): Promise<DocumentRecord | null> {
    const { rows } = await this.pool.query<DocumentRecord>(prepared('get', postgresDocumentSql.get, [projectId, path]));
    return rows[0] ?? null;
  }

  getWithCollections(projectId: number, path: string): Promise<DocumentWithCollections | null> {
    return this.reads.run({ projectId, path });
  }

  async childCollections(projectId: number, path: string): Promise<string[]> {
    const { sql, params } = childCollectionsQuery(projectId, path);
    const name = path === '' ? 'root_collections' : 'child_collections';
    const { rows } = await this.pool.query<{ name: string }>(prepared(name, sql, params));
    return rows.map((row) => row.name);
  }

  merge(projectId: number, path: string, patch: JsonObject): Promise<DocumentRecord | null> {
    return this.merges.run({ projectId, path, patch: JSON.stringify(patch) });
  }

  async delete(projectId: number, path: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(prepared('delete', postgresDocumentSql.delete, [projectId, path]));
    return (rowCount ?? 0) > 0;
  }

  async list(projectId: number, options: ListDocumentsOptions): Promise<DocumentJson[]> {
    const params = [projectId, options.parent, options.collection, options.startAfter ?? '', options.limit];
    const offset = options.offset ?? 0;
    const { rows } =
      offset > 0
        ? await this.pool.query<JsonRow>(prepared('list_page', postgresPagingSql.listPage, [...params, offset]))
        : await this.pool.query<JsonRow>(prepared('list', postgresDocumentSql.list, params));
    return rows.map(documentJson);
  }

  async collectionNames(projectId: number, path: string, offset: number, limit: number): Promise<NamePage> {
    const names = await this.childCollections(projectId, path);
    return { names: names.slice(offset, offset + limit), total: names.length };
  }

  async countChildren(projectId: number, parent: string, collection: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(postgresPagingSql.countChildren, [
      projectId,
      parent,
      collection,
    ]);
    return rows[0]?.n ?? 0;
  }

  async query(projectId: number, options: QueryDocumentsOptions): Promise<QueryResult> {
    const query = postgresQuerySql(projectId, options);
    const { rows } = await this.pool.query<JsonRow & { seen?: string }>(query.sql, query.params);
    const documents = rows.map(documentJson);
    const offset = options.offset ?? 0;
    const last = rows.at(-1);
    const limited = options.limit !== undefined && rows.length === options.limit;
    let rowsScanned: number | null = null;
    if (!query.counted) {
      // Every row read was returned, after the `offset` skipped (all of them when some came back).
      if (limited || rows.length > 0 || offset === 0) rowsScanned = offset + rows.length;
    } else if (query.streamed) {
      if (limited && last) rowsScanned = Number(last.seen);
    } else if (last) {
      rowsScanned = Number(last.seen);
    }
    // The scan read every candidate and no returned row tells how many: count them.
    if (rowsScanned === null) {
      const counted = await this.pool.query<{ n: number }>(query.countSql, query.countParams);
      rowsScanned = counted.rows[0]?.n ?? 0;
    }
    return { documents, rowsScanned };
  }

  async explainQuery(projectId: number, options: QueryDocumentsOptions): Promise<string[]> {
    const { sql, params } = postgresQuerySql(projectId, options);
    const { rows } = await this.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
    return rows.map((row) => row['QUERY PLAN']);
  }
}

interface JsonRow {
  doc: DocumentJson;
}

const documentJson = (row: JsonRow) => row.doc;

function rowColumns(write: RowWrite): unknown[] {
  const { projectId, path, id, json } = write;
  return [projectId, path.path, path.parent, path.collection, id, json];
}

/** The parameters of a multi-row statement: one array per column. */
function columnArrays(writes: RowWrite[]): unknown[][] {
  return [
    writes.map((write) => write.projectId),
    writes.map((write) => write.path.path),
    writes.map((write) => write.path.parent),
    writes.map((write) => write.path.collection),
    writes.map((write) => write.id),
    writes.map((write) => write.json),
  ];
}

function upserted(write: RowWrite, row: WrittenRow | undefined): DocumentRecord & { created: boolean } {
  if (!row) throw new Error('The upsert returned no row');
  return { id: row.id, path: write.path.path, data: write.data, created: row.created };
}

function inserted(write: RowWrite): DocumentRecord {
  return { id: write.id, path: write.path.path, data: write.data };
}

function merged(row: MergedRow): DocumentRecord {
  return { id: row.id, path: row.path, data: row.data };
}

function one<T>(rows: T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('The statement returned no row');
  return row;
}
