import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type {
  AppliedMutation,
  DocumentChangeLog,
  DocumentHistory,
  DocumentJson,
  DocumentMutation,
  DocumentRecord,
  DocumentSnapshot,
  DocumentStore,
  DocumentWithCollections,
  ListDocumentsOptions,
  NamePage,
  QueryDocumentsOptions,
  QueryResult,
  QuerySnapshot,
} from '../../core/documents/document-store.js';
import { insertMutation, putMutation } from '../../core/documents/document-writes.js';
import { exactlySought } from '../../core/documents/indexes.js';
import { deleteThrough, mergeThrough, writtenOf } from '../../core/documents/store-writes.js';
import type { JsonObject } from '../../core/json.js';
import type { DocumentPath } from '../../core/paths.js';
import { defaultRetention } from '../../core/realtime/tree-service.js';
import { DocumentCommits } from './document-commits.js';
import { currentDocumentVersion, documentChangesSince } from './document-log.js';
import { compileSeeks, indexScope } from './index-sql.js';
import { QueryNames } from './query-names.js';
import { StatementBatch } from './statement-batch.js';
import { inTransaction, READ_SNAPSHOT } from './transactions.js';
import { compileOrderBy, compileWhere, PgParamList } from './where-sql.js';

/** Distinct query texts per process that PostgreSQL plans once per connection (`QueryNames`). */
const QUERY_SHAPES_PLANNED_ONCE = 64;

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

/** A document of a project (a read of a batch). */
interface DocumentKey {
  projectId: number;
  path: string;
}

/**
 * Documents in the `documents` table of PostgreSQL; data is jsonb. Each method is one statement;
 * document reads, upserts, inserts and merges that arrive together share one (see `StatementBatch`).
 */
export class PostgresDocumentStore implements DocumentStore {
  private readonly commits: DocumentCommits;
  private readonly reads: StatementBatch<DocumentKey, DocumentWithCollections | null>;
  private readonly queryNames = new QueryNames('cds_documents_query', QUERY_SHAPES_PLANNED_ONCE);

  private changeLog: DocumentChangeLog = { retention: defaultRetention };

  constructor(private readonly pool: pg.Pool) {
    this.commits = new DocumentCommits(pool, () => this.changeLog);
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
  }

  apply(projectId: number, mutations: readonly DocumentMutation[]): Promise<AppliedMutation[]> {
    return this.commits.apply(projectId, mutations);
  }

  configureChangeLog(log: DocumentChangeLog): void {
    this.changeLog = log;
  }

  currentVersion(projectId: number): Promise<number> {
    return currentDocumentVersion(this.pool, projectId);
  }

  changesSince(projectId: number, version: number): Promise<DocumentHistory | null> {
    return documentChangesSince(this.pool, projectId, version);
  }

  async querySnapshot(projectId: number, options: QueryDocumentsOptions): Promise<QuerySnapshot> {
    const query = postgresQuerySql(projectId, options);
    return inTransaction(
      this.pool,
      async (client) => ({
        version: await currentDocumentVersion(client, projectId),
        documents: (await client.query<JsonRow>(this.queryNames.config(query.sql, query.params))).rows.map(
          documentJson,
        ),
      }),
      READ_SNAPSHOT,
    );
  }

  async documentSnapshot(projectId: number, path: string): Promise<DocumentSnapshot> {
    return inTransaction(
      this.pool,
      async (client) => {
        const version = await currentDocumentVersion(client, projectId);
        const { rows } = await client.query<DocumentRecord>(
          prepared('get', postgresDocumentSql.get, [projectId, path]),
        );
        return { version, document: rows[0] ?? null };
      },
      READ_SNAPSHOT,
    );
  }

  async upsert(projectId: number, path: DocumentPath, data: JsonObject) {
    const [applied] = await this.apply(projectId, [putMutation(path, data, randomUUID())]);
    const { id, data: stored, created } = writtenOf(applied);
    return { id, path: path.path, data: stored, created };
  }

  async insert(projectId: number, path: DocumentPath, id: string, data: JsonObject): Promise<DocumentRecord> {
    await this.apply(projectId, [insertMutation(path, data, id)]);
    return { id, path: path.path, data };
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
    return mergeThrough(this, projectId, path, patch);
  }

  delete(projectId: number, path: string): Promise<boolean> {
    return deleteThrough(this, projectId, path);
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
    const { rows } = await this.pool.query<JsonRow & { seen?: string }>(
      this.queryNames.config(query.sql, query.params),
    );
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
      const counted = await this.pool.query<{ n: number }>(this.queryNames.config(query.countSql, query.countParams));
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
