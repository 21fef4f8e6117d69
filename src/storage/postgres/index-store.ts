import type pg from 'pg';
import {
  type DocumentIndex,
  fieldView,
  type IndexField,
  type IndexFieldView,
  type IndexState,
  indexSignature,
} from '../../core/documents/indexes.js';
import type { IndexStore } from '../../core/ports.js';
import { createIndexSql, postgresIndexName } from './index-sql.js';

interface IndexRow {
  id: number;
  project_id: number;
  collection: string;
  fields: string;
  state: IndexState;
}

const COLUMNS = 'id, project_id, collection, fields, state';

const toIndex = (row: IndexRow): DocumentIndex => ({
  id: row.id,
  projectId: row.project_id,
  collection: row.collection,
  fields: (JSON.parse(row.fields) as IndexFieldView[]).map((item) => ({
    field: item.field.split('__'),
    descending: item.order === 'desc',
  })),
  state: row.state,
});

/**
 * Declared indexes in PostgreSQL. A build is `CREATE INDEX CONCURRENTLY`: reads and writes of
 * the table go on while it runs (it waits for transactions older than itself, never the other
 * way round), then `ANALYZE` gives the planner the new expressions' statistics.
 */
export class PostgresIndexStore implements IndexStore {
  constructor(private readonly pool: pg.Pool) {}

  async create(projectId: number, collection: string, fields: IndexField[]): Promise<DocumentIndex | null> {
    const { rows } = await this.pool.query<IndexRow>(
      `INSERT INTO document_indexes (project_id, collection, fields, signature, state)
       VALUES ($1, $2, $3, $4, 'building') ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      [projectId, collection, JSON.stringify(fields.map(fieldView)), indexSignature(collection, fields)],
    );
    return rows[0] ? toIndex(rows[0]) : null;
  }

  async list(projectId: number): Promise<DocumentIndex[]> {
    const { rows } = await this.pool.query<IndexRow>(
      `SELECT ${COLUMNS} FROM document_indexes WHERE project_id = $1 ORDER BY id`,
      [projectId],
    );
    return rows.map(toIndex);
  }

  async build(index: DocumentIndex): Promise<IndexState> {
    const name = postgresIndexName(index.id);
    try {
      await this.pool.query(createIndexSql(index));
      await this.pool.query('ANALYZE documents');
      const { rowCount } = await this.pool.query(
        "UPDATE document_indexes SET state = 'ready' WHERE id = $1 AND state = 'building'",
        [index.id],
      );
      // Dropped while it was being built: the drop could not remove what did not exist yet.
      if (rowCount === 0) await this.pool.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      return 'ready';
    } catch (error) {
      // A failed concurrent build leaves an invalid index behind.
      await this.pool.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`).catch(() => undefined);
      await this.pool.query("UPDATE document_indexes SET state = 'failed' WHERE id = $1", [index.id]);
      throw error;
    }
  }

  async drop(projectId: number, id: number): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM document_indexes WHERE project_id = $1 AND id = $2', [
      projectId,
      id,
    ]);
    if (!rowCount) return false;
    await this.pool.query(`DROP INDEX CONCURRENTLY IF EXISTS ${postgresIndexName(id)}`);
    return true;
  }
}
