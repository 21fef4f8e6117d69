import type Database from 'better-sqlite3';
import type { IndexStore } from '../../core/documents/index-store.js';
import type { DocumentIndex, IndexField, IndexState } from '../../core/documents/indexes.js';
import { type IndexRow, indexRows } from '../rows.js';
import { createIndexSql, sqliteIndexName } from './index-sql.js';

/** Records a declaration in state `building` (in the caller's transaction, if any); null when it exists. */
export function insertIndexDeclaration(
  db: Database.Database,
  projectId: number,
  declared: Pick<DocumentIndex, 'collection' | 'fields'>,
): DocumentIndex | null {
  const row = db
    .prepare<[number, string, string, string, number], IndexRow>(
      `INSERT INTO document_indexes (project_id, collection, fields, signature, state, created_at)
       VALUES (?, ?, ?, ?, 'building', ?) ON CONFLICT DO NOTHING RETURNING ${indexRows.columns}`,
    )
    .get(...indexRows.newValues(projectId, declared), Date.now());
  return row ? indexRows.of(row) : null;
}

/** The project's declarations, by id. */
export function listIndexDeclarations(db: Database.Database, projectId: number): DocumentIndex[] {
  return db
    .prepare<[number], IndexRow>(`SELECT ${indexRows.columns} FROM document_indexes WHERE project_id = ? ORDER BY id`)
    .all(projectId)
    .map(indexRows.of);
}

/**
 * Declared indexes in SQLite. A build is one `CREATE INDEX` statement: SQLite builds an index
 * under the database's single write lock, so writes (and, this connection being the service's
 * only one, every statement) wait for it; ARCHITECTURE.md gives the measured cost. The index
 * and the state `ready` commit together, so a process that dies mid-build leaves the declaration
 * `building` with no index: building it again starts from nothing.
 */
export class SqliteIndexStore implements IndexStore {
  constructor(private readonly db: Database.Database) {}

  async create(projectId: number, collection: string, fields: IndexField[]): Promise<DocumentIndex | null> {
    return insertIndexDeclaration(this.db, projectId, { collection, fields });
  }

  async list(projectId: number): Promise<DocumentIndex[]> {
    return listIndexDeclarations(this.db, projectId);
  }

  async building(): Promise<DocumentIndex[]> {
    return this.db
      .prepare<[], IndexRow>(`SELECT ${indexRows.columns} FROM document_indexes WHERE state = 'building' ORDER BY id`)
      .all()
      .map(indexRows.of);
  }

  async build(index: DocumentIndex): Promise<IndexState | null> {
    const setState = this.db.prepare<[IndexState, number]>('UPDATE document_indexes SET state = ? WHERE id = ?');
    const stateOf = this.db.prepare<[number], { state: IndexState }>('SELECT state FROM document_indexes WHERE id = ?');
    try {
      // One transaction with the state, so no other build, drop or process comes between the check and the index.
      return this.db
        .transaction((): IndexState | null => {
          const state = stateOf.get(index.id)?.state ?? null;
          if (state !== 'building') return state;
          // An index of an older shape (before the covering columns, migration 12) is built anew.
          this.db.exec(`DROP INDEX IF EXISTS ${sqliteIndexName(index.id)}`);
          this.db.exec(createIndexSql(index));
          setState.run('ready', index.id);
          return 'ready';
        })
        .immediate();
    } catch (error) {
      this.db.exec(`DROP INDEX IF EXISTS ${sqliteIndexName(index.id)}`);
      setState.run('failed', index.id);
      throw error;
    }
  }

  async drop(projectId: number, id: number): Promise<boolean> {
    return this.db
      .transaction(() => {
        const deleted = this.db
          .prepare('DELETE FROM document_indexes WHERE project_id = ? AND id = ?')
          .run(projectId, id).changes;
        if (deleted > 0) this.db.exec(`DROP INDEX IF EXISTS ${sqliteIndexName(id)}`);
        return deleted > 0;
      })
      .immediate();
  }
}
