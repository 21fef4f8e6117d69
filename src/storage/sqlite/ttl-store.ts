/**
 * TTL settings and the sweep's lease on SQLite (§17). The one writer at a time makes the lease's
 * UPDATE a compare-and-set across the connections of every instance on the file.
 */
import type Database from 'better-sqlite3';
import type { LiveFilter } from '../../core/documents/ttl.js';
import type { StoredTtl, TtlStore } from '../../core/documents/ttl-store.js';
import { type TtlRow, ttlRows } from '../rows.js';
import { compileLive, registerTimeFunction } from './ttl-sql.js';
import { SqliteParamList } from './where-sql.js';

const COLUMNS = ttlRows.columns;
const toTtl = ttlRows.of;

export class SqliteTtlStore implements TtlStore {
  constructor(private readonly db: Database.Database) {
    registerTimeFunction(db);
  }

  async list(projectId: number): Promise<StoredTtl[]> {
    return this.db
      .prepare<[number], TtlRow>(`SELECT ${COLUMNS} FROM document_ttls WHERE project_id = ? ORDER BY collection`)
      .all(projectId)
      .map(toTtl);
  }

  async all(): Promise<StoredTtl[]> {
    return this.db
      .prepare<[], TtlRow>(`SELECT ${COLUMNS} FROM document_ttls ORDER BY project_id, collection`)
      .all()
      .map(toTtl);
  }

  async set(setting: StoredTtl): Promise<StoredTtl | null> {
    return this.db.transaction(() => {
      const before = this.find(setting.projectId, setting.collection);
      this.db
        .prepare(
          `INSERT INTO document_ttls (${COLUMNS}) VALUES (?, ?, ?, ?)
           ON CONFLICT (project_id, collection) DO UPDATE SET field = excluded.field, index_id = excluded.index_id`,
        )
        .run(setting.projectId, setting.collection, setting.field.join('__'), setting.indexId);
      return before;
    })();
  }

  async clear(projectId: number, collection: string): Promise<StoredTtl | null> {
    const row = this.db
      .prepare<[number, string], TtlRow>(
        `DELETE FROM document_ttls WHERE project_id = ? AND collection = ? RETURNING ${COLUMNS}`,
      )
      .get(projectId, collection);
    return row ? toTtl(row) : null;
  }

  async claimSweep(owner: string, now: number, until: number): Promise<boolean> {
    const claimed = this.db
      .prepare('UPDATE ttl_sweep_lease SET owner = ?, expires_at = ? WHERE id = 1 AND (owner = ? OR expires_at < ?)')
      .run(owner, until, owner, now);
    return claimed.changes === 1;
  }

  async releaseSweep(owner: string): Promise<void> {
    this.db.prepare("UPDATE ttl_sweep_lease SET owner = '', expires_at = 0 WHERE id = 1 AND owner = ?").run(owner);
  }

  async countLiveChildren(projectId: number, parent: string, collection: string, live: LiveFilter): Promise<number> {
    const params = new SqliteParamList();
    const alive = compileLive(live, params);
    const sql = `SELECT count(*) AS n FROM documents INDEXED BY documents_by_parent
WHERE project_id = @project AND parent = @parent AND collection = @collection AND ${alive}`;
    const row = this.db
      .prepare<Record<string, unknown>, { n: number }>(sql)
      .get({ ...params.values, project: projectId, parent, collection });
    return row?.n ?? 0;
  }

  private find(projectId: number, collection: string): StoredTtl | null {
    const row = this.db
      .prepare<[number, string], TtlRow>(`SELECT ${COLUMNS} FROM document_ttls WHERE project_id = ? AND collection = ?`)
      .get(projectId, collection);
    return row ? toTtl(row) : null;
  }
}
