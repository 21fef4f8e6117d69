import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type {
  AppliedMutation,
  DocumentChangeEntry,
  DocumentChangeLog,
  DocumentCommit,
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
import { type CommitLogEntry, SqliteDocumentLog } from './document-log.js';
import type { GroupCommit } from './group-commit.js';
import { compileSeeks, indexScope, sqliteIndexName } from './index-sql.js';
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
  upsert: `INSERT INTO documents (project_id, path, parent, collection, id, data, created_at, updated_at, version)
VALUES (@project, @path, @parent, @collection, @id, jsonb(@data), @now, @now, @version)
ON CONFLICT (project_id, path) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at, version = excluded.version
RETURNING id`,
  insert: `INSERT INTO documents (project_id, path, parent, collection, id, data, created_at, updated_at, version)
VALUES (@project, @path, @parent, @collection, @id, jsonb(@data), @now, @now, @version)`,
  update:
    'UPDATE documents INDEXED BY documents_by_path SET data = jsonb(@data), updated_at = @now, version = @version WHERE project_id = @project AND path = @path',
  delete: 'DELETE FROM documents INDEXED BY documents_by_path WHERE project_id = @project AND path = @path',
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

/** The SQL and parameters of a query; the store runs exactly this. */
export function sqliteQuerySql(
  projectId: number,
  options: QueryDocumentsOptions,
): { sql: string; params: SqliteParams } {
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
  const scope = ['project_id = @project'];
  let index = 'documents_by_collection';
  if (plan) {
    // A partial index is used only when the query names its scope with the same literals.
    index = sqliteIndexName(plan.index.id);
    scope.push(indexScope(projectId, options.collection));
  } else if (options.parent !== undefined) {
    index = 'documents_by_parent';
  }
  if (options.parent !== undefined) {
    params.values.parent = options.parent;
    scope.push('parent = @parent');
  }
  scope.push('collection = @collection');
  if (options.startAfter !== undefined) {
    params.values.after = options.startAfter;
    scope.push('path > @after');
  }
  const sql = `SELECT ${DOCUMENT_JSON} FROM documents INDEXED BY ${index}
WHERE ${[...scope, ...seeks, ROW_SEEN, where].join(' AND ')}
ORDER BY ${orderBy} LIMIT @limit OFFSET @offset`;
  return { sql, params: params.values };
}

/** The paths below `path` ('' is the root): from `prefix` up to `to`, exclusive (none for the root). */
function belowPath(path: string): { prefix: string; to: string | null } {
  return path === '' ? { prefix: '', to: null } : { prefix: `${path}/`, to: `${path}0` };
}

/** The first segment of `rest` (everything before its first `/`). */
function firstSegment(rest: string): string {
  const slash = rest.indexOf('/');
  return slash < 0 ? rest : rest.slice(0, slash);
}

/** Code point (UTF-8 byte) order, as SQLite's BINARY collation compares. */
function compareCodePoints(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

interface Row {
  id: string;
  path: string;
  data: string;
  version: number;
}

type Statement<R> = Database.Statement<[SqliteParams], R>;
/** A statement whose only column is a `DocumentJson`, read with `pluck`. */
type JsonStatement = Database.Statement<[SqliteParams], DocumentJson>;

const toRecord = (row: Row): DocumentRecord => ({ id: row.id, path: row.path, data: JSON.parse(row.data) });

// Dynamic query statements are cached by their SQL text; clause shapes repeat, values are bound.
const QUERY_CACHE_SIZE = 200;

/** Documents in the `documents` table of an embedded SQLite database; data is JSONB. */
export class SqliteDocumentStore implements DocumentStore {
  private readonly statements: {
    [K in Exclude<keyof typeof sqliteDocumentSql, 'list' | 'getWithFirstChild'>]: Statement<Row>;
  };
  private readonly getWithFirstChild: Statement<{
    document: DocumentJson;
    version: number;
    first_child: string | null;
  }>;
  private readonly listStatement: JsonStatement;
  private readonly listPage: JsonStatement;
  private readonly queries = new Map<string, JsonStatement>();
  private readonly countChildrenStatement: Statement<{ n: number }>;
  private readonly log: SqliteDocumentLog;
  private changeLog: DocumentChangeLog = { retention: defaultRetention };
  /** Rows visited by the running query (`ROW_SEEN`); statements run synchronously, one at a time. */
  private rowsSeen = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly commits: GroupCommit,
  ) {
    this.log = new SqliteDocumentLog(db);
    db.function('cds_row_seen', { deterministic: false }, () => {
      this.rowsSeen++;
      return 1;
    });
    const prepare = (sql: string) => db.prepare<SqliteParams, Row>(sql);
    this.statements = {
      get: prepare(sqliteDocumentSql.get),
      upsert: prepare(sqliteDocumentSql.upsert),
      insert: prepare(sqliteDocumentSql.insert),
      update: prepare(sqliteDocumentSql.update),
      delete: prepare(sqliteDocumentSql.delete),
      getStored: prepare(sqliteDocumentSql.getStored),
      firstBelow: prepare(sqliteDocumentSql.firstBelow),
      firstFrom: prepare(sqliteDocumentSql.firstFrom),
    };
    this.getWithFirstChild = db.prepare(sqliteDocumentSql.getWithFirstChild);
    this.listStatement = this.prepareJson(sqliteDocumentSql.list);
    this.listPage = this.prepareJson(sqlitePagingSql.listPage);
    this.countChildrenStatement = db.prepare<SqliteParams, { n: number }>(sqlitePagingSql.countChildren);
  }

  configureChangeLog(log: DocumentChangeLog): void {
    this.changeLog = log;
  }

  apply(projectId: number, mutations: readonly DocumentMutation[]): Promise<AppliedMutation[]> {
    return this.commits.run((scope) => {
      // Taken before the savepoint, so a batch that fails never rolls back a version the commit's other writes use.
      const entry = scope.once(`documents:${projectId}`, () => {
        const bumped = this.log.bump(projectId, this.changeLog.retention, scope.time);
        // Every bumped version is announced, even one whose writes were all refused: feeds expect consecutive versions.
        scope.afterCommit(() => this.changeLog.onCommit?.({ projectId, ...bumped.record() }));
        return bumped;
      });
      const commit = { version: entry.version, time: scope.time };
      const changes: DocumentChangeEntry[] = [];
      const applyAll = () => mutations.map((mutation) => this.applyOne(projectId, mutation, commit, entry, changes));
      // Several writes go in a savepoint: a refusal of any of them undoes the others.
      const applied = mutations.length > 1 ? this.db.transaction(applyAll)() : applyAll();
      for (const change of changes) {
        // Changed twice in one commit: the commit's change is from the first previous to the last data.
        const first = entry.changes.get(change.path);
        entry.changes.delete(change.path);
        entry.changes.set(change.path, first ? { ...change, previous: first.previous } : change);
      }
      return applied;
    });
  }

  async currentVersion(projectId: number): Promise<number> {
    return this.log.currentVersion(projectId);
  }

  async changesSince(projectId: number, version: number): Promise<DocumentHistory | null> {
    return this.log.changesSince(projectId, version);
  }

  async querySnapshot(projectId: number, options: QueryDocumentsOptions): Promise<QuerySnapshot> {
    // Statements of this connection run one at a time; the read transaction keeps other processes out.
    return this.db.transaction(() => ({
      version: this.log.currentVersion(projectId),
      documents: this.querySync(projectId, options).documents,
    }))();
  }

  async documentSnapshot(projectId: number, path: string): Promise<DocumentSnapshot> {
    return this.db.transaction(() => {
      const row = this.statements.get.get({ project: projectId, path });
      return { version: this.log.currentVersion(projectId), document: row ? toRecord(row) : null };
    })();
  }

  upsert(projectId: number, path: DocumentPath, data: JsonObject): Promise<DocumentRecord & { created: boolean }> {
    return this.apply(projectId, [putMutation(path, data, randomUUID())]).then(([applied]) => {
      const { id, data: stored, created } = writtenOf(applied);
      return { id, path: path.path, data: stored, created };
    });
  }

  insert(projectId: number, path: DocumentPath, id: string, data: JsonObject): Promise<DocumentRecord> {
    return this.apply(projectId, [insertMutation(path, data, id)]).then(() => ({ id, path: path.path, data }));
  }

  /** One mutation inside the commit: read what it needs, let it decide, store the outcome (one statement). */
  private applyOne(
    projectId: number,
    mutation: DocumentMutation,
    commit: DocumentCommit,
    entry: CommitLogEntry,
    changes: DocumentChangeEntry[],
  ): AppliedMutation {
    const path = mutation.path;
    const key = { project: projectId, path: path.path };
    // Read for the change log's `previous` too (§10 resume), even when the mutation needs no stored document.
    const row = this.statements.getStored.get(key);
    const stored = row ? { ...toRecord(row), version: row.version } : null;
    const change = mutation.decide(mutation.readsStored ? stored : null, commit);
    const { version } = commit;
    if (change.kind === 'delete') {
      if (this.statements.delete.run(key).changes > 0 && stored) {
        const change = { path: path.path, id: stored.id, data: null, previous: stored.data };
        this.logChange(entry, changes, change, commit.time);
      }
      return { kind: 'deleted', path: path.path, version };
    }
    const columns = { ...this.columns(projectId, path, change.data), now: commit.time, version };
    let id: string;
    if (!mutation.readsStored) {
      // The conflict branch keeps the stored id, so getting back the fresh id means the row is new.
      id = this.statements.upsert.get({ ...columns, id: change.newId })?.id ?? change.newId;
    } else if (stored) {
      this.statements.update.run(columns);
      id = stored.id;
    } else {
      this.statements.insert.run({ ...columns, id: change.newId });
      id = change.newId;
    }
    const created = mutation.readsStored ? !stored : id === change.newId;
    const previous = stored?.data ?? null;
    this.logChange(entry, changes, { path: path.path, id, data: change.data, previous }, commit.time);
    return { kind: 'written', id, path: path.path, data: change.data, version, created };
  }

  private logChange(entry: CommitLogEntry, changes: DocumentChangeEntry[], change: DocumentChangeEntry, now: number) {
    this.log.append(entry, change, now);
    changes.push(change);
  }

  async get(projectId: number, path: string): Promise<DocumentRecord | null> {
    const row = this.statements.get.get({ project: projectId, path });
    return row ? toRecord(row) : null;
  }

  async getWithCollections(projectId: number, path: string): Promise<DocumentWithCollections | null> {
    // The row and the skip scan's first seek in one statement: most documents have no children.
    const { prefix, to } = belowPath(path);
    const row = this.getWithFirstChild.get({ project: projectId, path, from: prefix, to });
    if (!row) return null;
    const collections = row.first_child === null ? [] : this.collectionsFrom(projectId, path, row.first_child);
    return { document: row.document, collections, version: row.version };
  }

  async childCollections(projectId: number, path: string): Promise<string[]> {
    const { prefix, to } = belowPath(path);
    const first = this.firstPath(projectId, prefix, to);
    return first === undefined ? [] : this.collectionsFrom(projectId, path, first);
  }

  /** One step of the skip scan: the first path in [`from`, `to`) (no upper bound for the root). */
  private firstPath(projectId: number, from: string, to: string | null): string | undefined {
    const row =
      to === null
        ? this.statements.firstFrom.get({ project: projectId, from })
        : this.statements.firstBelow.get({ project: projectId, from, to });
    return row?.path;
  }

  /**
   * The rest of the skip scan below `path`, from the first path found there: one seek per child
   * collection name. Every path of the child collection `name` sorts before `path/name0` ('0' is
   * the byte after '/'), where the next seek starts.
   */
  private collectionsFrom(projectId: number, path: string, firstPath: string): string[] {
    const { prefix, to } = belowPath(path);
    const names: string[] = [];
    let found: string | undefined = firstPath;
    while (found !== undefined) {
      const name = firstSegment(found.slice(prefix.length));
      names.push(name);
      found = this.firstPath(projectId, `${prefix}${name}0`, to);
    }
    // Seeks meet names in path order ('c!/' sorts before 'c/'); names sort in code point order.
    return names.sort(compareCodePoints);
  }

  merge(projectId: number, path: string, patch: JsonObject): Promise<DocumentRecord | null> {
    return mergeThrough(this, projectId, path, patch);
  }

  delete(projectId: number, path: string): Promise<boolean> {
    return deleteThrough(this, projectId, path);
  }

  async list(projectId: number, options: ListDocumentsOptions): Promise<DocumentJson[]> {
    const params = {
      project: projectId,
      parent: options.parent,
      collection: options.collection,
      after: options.startAfter ?? '',
      limit: options.limit,
    };
    const offset = options.offset ?? 0;
    return offset > 0 ? this.listPage.all({ ...params, offset }) : this.listStatement.all(params);
  }

  async collectionNames(projectId: number, path: string, offset: number, limit: number): Promise<NamePage> {
    const names = await this.childCollections(projectId, path);
    return { names: names.slice(offset, offset + limit), total: names.length };
  }

  async countChildren(projectId: number, parent: string, collection: string): Promise<number> {
    return this.countChildrenStatement.get({ project: projectId, parent, collection })?.n ?? 0;
  }

  async query(projectId: number, options: QueryDocumentsOptions): Promise<QueryResult> {
    return this.querySync(projectId, options);
  }

  private querySync(projectId: number, options: QueryDocumentsOptions): QueryResult {
    const { sql, params } = sqliteQuerySql(projectId, options);
    let statement: JsonStatement;
    try {
      statement = this.queryStatement(sql);
    } catch (error) {
      // An index dropped after the query was planned: the path indexes still answer it.
      if (!options.index || !/no such index/.test(String(error))) throw error;
      const { index: _dropped, ...unindexed } = options;
      return this.querySync(projectId, unindexed);
    }
    this.rowsSeen = 0;
    const documents = statement.all(params);
    return { documents, rowsScanned: this.rowsSeen };
  }

  async explainQuery(projectId: number, options: QueryDocumentsOptions): Promise<string[]> {
    const { sql, params } = sqliteQuerySql(projectId, options);
    const rows = this.db.prepare<SqliteParams, { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).all(params);
    return rows.map((row) => row.detail);
  }

  private prepareJson(sql: string): JsonStatement {
    return this.db.prepare<SqliteParams, DocumentJson>(sql).pluck(true);
  }

  private queryStatement(sql: string): JsonStatement {
    let statement = this.queries.get(sql);
    if (statement) {
      this.queries.delete(sql);
    } else {
      statement = this.prepareJson(sql);
      const oldest = this.queries.keys().next();
      if (this.queries.size >= QUERY_CACHE_SIZE && !oldest.done) this.queries.delete(oldest.value);
    }
    this.queries.set(sql, statement);
    return statement;
  }

  private columns(projectId: number, path: DocumentPath, data: JsonObject): SqliteParams {
    return {
      project: projectId,
      path: path.path,
      parent: path.parent,
      collection: path.collection,
      data: JSON.stringify(data),
      now: Date.now(),
    };
  }
}
