import type Database from 'better-sqlite3';
import {
  CallChanges,
  type DecidedMutation,
  decideMutation,
  ProjectCommits,
} from '../../core/documents/commit-builder.js';
import type {
  AppliedCall,
  AppliedMutation,
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
  StoredDocument,
} from '../../core/documents/document-store.js';
import type { EventRecord } from '../../core/events/event-recording.js';
import { documentEvents } from '../../core/events/outbox-events.js';
import type { JsonObject } from '../../core/json.js';
import type { DocumentPath } from '../../core/paths.js';
import { defaultRetention } from '../../core/realtime/tree-service.js';
import type { ChangeLogRetention } from '../../core/realtime/tree-store.js';
import { SqliteDocumentLog } from './document-log.js';
import { type JsonStatement, prepareJson, SqliteDocumentQueries } from './document-queries.js';
import { belowPath, sqliteDocumentSql, sqlitePagingSql } from './document-sql.js';
import type { SqliteEventStore } from './event-store.js';
import type { CommitScope, GroupCommit } from './group-commit.js';
import type { SqliteParams } from './where-sql.js';

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

const toRecord = (row: Row): DocumentRecord => ({ id: row.id, path: row.path, data: JSON.parse(row.data) });

/** Documents in the `documents` table of an embedded SQLite database; data is JSONB. */
export class SqliteDocumentStore implements DocumentStore {
  readonly hooksInCommit = true;
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
  private readonly queries: SqliteDocumentQueries;
  private readonly countChildrenStatement: Statement<{ n: number }>;
  private readonly log: SqliteDocumentLog;

  constructor(
    private readonly db: Database.Database,
    private readonly commits: GroupCommit,
    private readonly events: SqliteEventStore,
  ) {
    this.log = new SqliteDocumentLog(db);
    this.queries = new SqliteDocumentQueries(db);
    const prepare = (sql: string) => db.prepare<SqliteParams, Row>(sql);
    this.statements = {
      get: prepare(sqliteDocumentSql.get),
      insert: prepare(sqliteDocumentSql.insert),
      update: prepare(sqliteDocumentSql.update),
      delete: prepare(sqliteDocumentSql.delete),
      updateIfSeen: prepare(sqliteDocumentSql.updateIfSeen),
      insertIfAbsent: prepare(sqliteDocumentSql.insertIfAbsent),
      deleteIfSeen: prepare(sqliteDocumentSql.deleteIfSeen),
      getStored: prepare(sqliteDocumentSql.getStored),
      firstBelow: prepare(sqliteDocumentSql.firstBelow),
      firstFrom: prepare(sqliteDocumentSql.firstFrom),
    };
    this.getWithFirstChild = db.prepare(sqliteDocumentSql.getWithFirstChild);
    this.listStatement = prepareJson(db, sqliteDocumentSql.list);
    this.listPage = prepareJson(db, sqlitePagingSql.listPage);
    this.countChildrenStatement = db.prepare<SqliteParams, { n: number }>(sqlitePagingSql.countChildren);
  }

  apply(
    projectId: number,
    mutations: readonly DocumentMutation[],
    retention: ChangeLogRetention = defaultRetention,
    events: EventRecord = 'if-webhook',
  ): Promise<AppliedCall> {
    return this.commits.run((scope) => {
      const project = scope.once(`documents:${projectId}`, () => this.openProject(projectId, scope, retention));
      const commit = { version: project.next, time: scope.time };
      const changes = new CallChanges();
      const applyAll = () => {
        const applied = mutations.map((mutation) => this.applyOne(projectId, mutation, commit, changes));
        const changed = changes.list();
        this.log.append(projectId, commit.version, changed, commit.time);
        return { applied, changed };
      };
      // Several writes go in a savepoint: a refusal of any of them undoes the others.
      const { applied, changed } = mutations.length > 1 ? this.db.transaction(applyAll)() : applyAll();
      const record = project.accept(changed);
      if (this.events.records(projectId, events))
        this.events.append(projectId, documentEvents(projectId, record, commit.time), commit.time);
      return { applied, commit: record };
    });
  }

  /** A project's part of a group commit: its version read once, and stored once with the log's trim. */
  private openProject(projectId: number, scope: CommitScope, retention: ChangeLogRetention): ProjectCommits {
    const before = this.log.read(projectId);
    const project = new ProjectCommits(projectId, before.version);
    scope.beforeCommit(() => {
      if (project.commits.length > 0) this.log.close(projectId, before, project.last, retention, scope.time);
    });
    return project;
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
      documents: this.queries.run(projectId, options).documents,
    }))();
  }

  async documentSnapshot(projectId: number, path: string): Promise<DocumentSnapshot> {
    return this.db.transaction(() => {
      const row = this.statements.get.get({ project: projectId, path });
      return { version: this.log.currentVersion(projectId), document: row ? toRecord(row) : null };
    })();
  }

  /** One mutation inside the commit: read what it needs, let it decide, store the outcome (one statement). */
  private applyOne(
    projectId: number,
    mutation: DocumentMutation,
    commit: DocumentCommit,
    changes: CallChanges,
  ): AppliedMutation {
    const onSeen = mutation.seen === undefined ? undefined : this.applyOnSeen(projectId, mutation, commit, changes);
    if (onSeen) return onSeen;
    const path = mutation.path;
    const key = { project: projectId, path: path.path };
    // Read for the change log's `previous` too (§10 resume), even when the mutation needs no stored document.
    const row = this.statements.getStored.get(key);
    const stored = row ? { ...toRecord(row), version: row.version } : null;
    const { change, applied } = decideMutation(mutation, stored, commit, changes);
    if (change.kind === 'delete') {
      if (stored) this.statements.delete.run(key);
      return applied;
    }
    const columns = { ...this.columns(projectId, path, change.data), now: commit.time, version: commit.version };
    if (stored) this.statements.update.run({ ...columns, id: applied.kind === 'written' ? applied.id : stored.id });
    else this.statements.insert.run({ ...columns, id: change.newId });
    return applied;
  }

  /**
   * The mutation decided on `seen`, stored by a statement that changes nothing unless that is still
   * the stored document (no read, no parse). Undefined when it changed, or when `decide` refused (a
   * refusal is judged on the stored document): `applyOne` then reads and decides.
   */
  private applyOnSeen(
    projectId: number,
    mutation: DocumentMutation,
    commit: DocumentCommit,
    changes: CallChanges,
  ): AppliedMutation | undefined {
    const seen = mutation.seen ?? null;
    let decided: DecidedMutation;
    try {
      decided = decideMutation(mutation, seen, commit);
    } catch {
      return undefined;
    }
    const { change, applied, entry } = decided;
    let run: Database.RunResult | undefined;
    if (change.kind === 'delete') {
      const key = { project: projectId, path: mutation.path.path };
      if (seen) run = this.statements.deleteIfSeen.run({ ...key, seen: seen.version });
    } else {
      const id = applied.kind === 'written' ? applied.id : change.newId;
      const columns = {
        ...this.columns(projectId, mutation.path, change.data),
        now: commit.time,
        version: commit.version,
      };
      run = seen
        ? this.statements.updateIfSeen.run({ ...columns, id, seen: seen.version })
        : this.statements.insertIfAbsent.run({ ...columns, id });
    }
    if (run?.changes !== 1) return undefined;
    if (entry) changes.add(entry);
    return applied;
  }

  async get(projectId: number, path: string): Promise<StoredDocument | null> {
    const row = this.statements.getStored.get({ project: projectId, path });
    return row ? { ...toRecord(row), version: row.version } : null;
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
    return this.queries.run(projectId, options);
  }

  async explainQuery(projectId: number, options: QueryDocumentsOptions): Promise<string[]> {
    return this.queries.explain(projectId, options);
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
