/**
 * TTL settings and the sweep's lease on PostgreSQL (§17). The lease is one row: the UPDATE's row
 * lock makes it a compare-and-set among instances claiming at once.
 */
import type pg from 'pg';
import type { LiveFilter } from '../../core/documents/ttl.js';
import type { StoredTtl, TtlStore } from '../../core/documents/ttl-store.js';
import { type TtlRow, ttlRows } from '../rows.js';
import { compileLive } from './ttl-sql.js';
import { PgParamList } from './where-sql.js';

const COLUMNS = ttlRows.columns;
const toTtl = ttlRows.of;

export class PostgresTtlStore implements TtlStore {
  constructor(private readonly pool: pg.Pool) {}

  async list(projectId: number): Promise<StoredTtl[]> {
    const { rows } = await this.pool.query<TtlRow>(
      `SELECT ${COLUMNS} FROM document_ttls WHERE project_id = $1 ORDER BY collection`,
      [projectId],
    );
    return rows.map(toTtl);
  }

  async all(): Promise<StoredTtl[]> {
    const { rows } = await this.pool.query<TtlRow>(
      `SELECT ${COLUMNS} FROM document_ttls ORDER BY project_id, collection`,
    );
    return rows.map(toTtl);
  }

  async set(setting: StoredTtl): Promise<StoredTtl | null> {
    // The CTE's snapshot still sees the row the upsert replaces.
    const { rows } = await this.pool.query<TtlRow>(
      `WITH before AS (SELECT ${COLUMNS} FROM document_ttls WHERE project_id = $1 AND collection = $2),
       upsert AS (
         INSERT INTO document_ttls (${COLUMNS}) VALUES ($1, $2, $3, $4)
         ON CONFLICT (project_id, collection) DO UPDATE SET field = EXCLUDED.field, index_id = EXCLUDED.index_id
       )
       SELECT ${COLUMNS} FROM before`,
      [setting.projectId, setting.collection, setting.field.join('__'), setting.indexId],
    );
    return rows[0] ? toTtl(rows[0]) : null;
  }

  async clear(projectId: number, collection: string): Promise<StoredTtl | null> {
    const { rows } = await this.pool.query<TtlRow>(
      `DELETE FROM document_ttls WHERE project_id = $1 AND collection = $2 RETURNING ${COLUMNS}`,
      [projectId, collection],
    );
    return rows[0] ? toTtl(rows[0]) : null;
  }

  async claimSweep(owner: string, now: number, until: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE ttl_sweep_lease SET owner = $1, expires_at = $2 WHERE id = 1 AND (owner = $1 OR expires_at < $3)',
      [owner, until, now],
    );
    return rowCount === 1;
  }

  async releaseSweep(owner: string): Promise<void> {
    await this.pool.query("UPDATE ttl_sweep_lease SET owner = '', expires_at = 0 WHERE id = 1 AND owner = $1", [owner]);
  }

  async countLiveChildren(projectId: number, parent: string, collection: string, live: LiveFilter): Promise<number> {
    const params = new PgParamList();
    const scope = `project_id = ${params.add(projectId)} AND parent = ${params.add(parent)} AND collection = ${params.add(collection)}`;
    const alive = compileLive(live, params);
    const { rows } = await this.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM documents WHERE ${scope} AND ${alive}`,
      params.values,
    );
    return Number(rows[0]?.n ?? 0);
  }
}
