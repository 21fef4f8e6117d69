import type Database from 'better-sqlite3';
import {
  type DocumentIndex,
  fieldView,
  type IndexField,
  type IndexFieldView,
  type IndexState,
  indexSignature,
} from '../../core/documents/indexes.js';
import type { IndexStore } from '../../core/ports.js';
import { createIndexSql, sqliteIndexName } from './index-sql.js';

interface IndexRow {
  id: number;
  project_id: number;
  collection: string;
  fields: string;
  state: IndexState;
}

const COLUMNS = 'id, project_id, collection, fields, state';

/** The stored form of fields is their API form (`a__b`, `asc`). */
export function parseStoredFields(json: string): IndexField[] {
  return (JSON.parse(json) as IndexFieldView[]).map((item) => ({
    field: item.field.split('__'),
    descending: item.order === 'desc',
  }));
}

const toIndex = (row: IndexRow): DocumentIndex => ({
  id: row.id,
  projectId: row.project_id,
  collection: row.collection,
  fields: parseStoredFields(row.fields),
  state: row.state,
});

/**
 * Declared indexes in SQLite. A build is one `CREATE INDEX` statement: SQLite builds an index
 * under the database's single write lock, so writes (and, this connection being the service's
 * only one, every statement) wait for it; ARCHITECTURE.md gives the measured cost.
 */
export class SqliteIndexStore implements IndexStore {
  constructor(private readonly db: Database.Database) {}

  async create(projectId: number, collection: string, fields: IndexField[]): Promise<DocumentIndex | null> {
    const row = this.db
      .prepare<[number, string, string, string, number], IndexRow>(
        `INSERT INTO document_indexes (project_id, collection, fields, signature, state, created_at)
         VALUES (?, ?, ?, ?, 'building', ?) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      )
      .get(
        projectId,
        collection,
        JSON.stringify(fields.map(fieldView)),
        indexSignature(collection, fields),
        Date.now(),
      );
    return row ? toIndex(row) : null;
  }

  async list(projectId: number): Promise<DocumentIndex[]> {
    return this.db
      .prepare<[number], IndexRow>(`SELECT ${COLUMNS} FROM document_indexes WHERE project_id = ? ORDER BY id`)
      .all(projectId)
      .map(toIndex);
  }

  async build(index: DocumentIndex): Promise<IndexState> {
    const setState = this.db.prepare<[IndexState, number]>('UPDATE document_indexes SET state = ? WHERE id = ?');
    const exists = this.db.prepare<[number], { id: number }>('SELECT id FROM document_indexes WHERE id = ?');
    try {
      // One transaction, so a drop cannot come between the check and the index.
      this.db
        .transaction(() => {
          if (!exists.get(index.id)) return;
          this.db.exec(createIndexSql(index));
          setState.run('ready', index.id);
        })
        .immediate();
      return 'ready';
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
