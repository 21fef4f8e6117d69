import type pg from 'pg';
import type {
  AppliedCall,
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
import { defaultRetention } from '../../core/realtime/tree-service.js';
import type { ChangeLogRetention } from '../../core/realtime/tree-store.js';
import { PostgresDocumentCommits } from './document-commits.js';
import { currentDocumentVersion, documentChangesSince } from './document-log.js';
import {
  childCollectionsQuery,
  getWithCollectionsQuery,
  type PostgresQueryRow,
  postgresDocumentSql,
  postgresPagingSql,
  postgresQueryResult,
  postgresQuerySql,
  prepared,
} from './document-sql.js';
import { QueryNames } from './query-names.js';
import { StatementBatch } from './statement-batch.js';
import { inTransaction, READ_SNAPSHOT } from './transactions.js';

/** Distinct query texts per process that PostgreSQL plans once per connection (`QueryNames`). */
const QUERY_SHAPES_PLANNED_ONCE = 64;

/** A document of a project (a read of a batch). */
interface DocumentKey {
  projectId: number;
  path: string;
}

/**
 * Documents in the `documents` table of PostgreSQL; data is jsonb. Each method is one statement;
 * document reads that arrive together share one (see `StatementBatch`), and writes arriving
 * together share a commit (`PostgresDocumentCommits`).
 */
export class PostgresDocumentStore implements DocumentStore {
  readonly hooksInCommit = false;
  private readonly commits: PostgresDocumentCommits;
  private readonly reads: StatementBatch<DocumentKey, DocumentWithCollections | null>;
  /** `get`s arriving together (the reads of writes' `documents.write` hooks, §16) share a statement. */
  private readonly storedReads: StatementBatch<DocumentKey, StoredDocument | null>;
  private readonly queryNames = new QueryNames('cds_documents_query', QUERY_SHAPES_PLANNED_ONCE);

  constructor(private readonly pool: pg.Pool) {
    this.commits = new PostgresDocumentCommits(pool);
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
    this.storedReads = new StatementBatch({
      runOne: async ({ projectId, path }) => {
        const { rows } = await this.pool.query<StoredDocument>(
          prepared('getStored', postgresDocumentSql.getStored, [projectId, path]),
        );
        return rows[0] ?? null;
      },
      runMany: (keys) => this.getMany(keys),
    });
  }

  /** One statement for the documents of `keys`, in their order (null where absent). */
  private async getMany(keys: DocumentKey[]): Promise<(StoredDocument | null)[]> {
    const { rows } = await this.pool.query<StoredDocument & { i: number }>(
      prepared('get_many_stored', postgresDocumentSql.getManyStored, [
        keys.map((key) => key.projectId),
        keys.map((key) => key.path),
      ]),
    );
    const found: (StoredDocument | null)[] = keys.map(() => null);
    for (const { i, ...document } of rows) found[i - 1] = document;
    return found;
  }

  apply(
    projectId: number,
    mutations: readonly DocumentMutation[],
    retention: ChangeLogRetention = defaultRetention,
    events: EventRecord = 'if-webhook',
  ): Promise<AppliedCall> {
    return this.commits.apply(projectId, mutations, retention, events);
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
        documents: postgresQueryResult(
          (await client.query<PostgresQueryRow>(this.queryNames.config(query.sql, query.params))).rows,
        ).documents,
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

  get(projectId: number, path: string): Promise<StoredDocument | null> {
    return this.storedReads.run({ projectId, path });
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
    const { rows } = await this.pool.query<PostgresQueryRow>(this.queryNames.config(query.sql, query.params));
    return postgresQueryResult(rows);
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
