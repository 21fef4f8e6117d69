import type pg from 'pg';
import type { ServerKey, ServerKeyGrant, ServerKeyRole, ServerKeyStore } from '../../core/admin/admin-store.js';
import { type ServerKeyRow, serverKeyRows } from '../rows.js';

/** A key row as `pg` returns it: `created_at` a Date. */
type PostgresKeyRow = Omit<ServerKeyRow, 'created_at'> & { created_at: Date };

const toServerKey = (row: PostgresKeyRow): ServerKey =>
  serverKeyRows.of({ ...row, created_at: row.created_at.getTime() });

/** Server keys in PostgreSQL; each method is one statement. A revoked key keeps its row, with `revoked_at`. */
export class PostgresServerKeyStore implements ServerKeyStore {
  constructor(private readonly pool: pg.Pool) {}

  async create(projectId: number, name: string, role: ServerKeyRole, keyHash: string): Promise<ServerKey> {
    const { rows } = await this.pool.query<PostgresKeyRow>(
      `INSERT INTO server_keys (project_id, name, role, key_hash) VALUES ($1, $2, $3, $4) RETURNING ${serverKeyRows.columns}`,
      [projectId, name, role, keyHash],
    );
    return toServerKey(rows[0] as PostgresKeyRow);
  }

  async list(projectId: number): Promise<ServerKey[]> {
    const { rows } = await this.pool.query<PostgresKeyRow>(
      `SELECT ${serverKeyRows.columns} FROM server_keys WHERE project_id = $1 AND revoked_at IS NULL ORDER BY id`,
      [projectId],
    );
    return rows.map(toServerKey);
  }

  async revoke(projectId: number, keyId: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE server_keys SET revoked_at = now() WHERE project_id = $1 AND id = $2 AND revoked_at IS NULL',
      [projectId, keyId],
    );
    return (rowCount ?? 0) > 0;
  }

  async findByHash(keyHash: string): Promise<ServerKeyGrant | null> {
    const { rows } = await this.pool.query<PostgresKeyRow & { org_id: number }>(
      `SELECT k.id, k.project_id, k.name, k.role, k.created_at, p.org_id
       FROM server_keys k JOIN projects p ON p.id = k.project_id
       WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [keyHash],
    );
    const row = rows[0];
    return row ? { ...toServerKey(row), orgId: row.org_id } : null;
  }
}
