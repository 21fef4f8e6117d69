import type Database from 'better-sqlite3';
import type { ServerKey, ServerKeyGrant, ServerKeyRole, ServerKeyStore } from '../../core/admin/admin-store.js';
import { type ServerKeyRow, serverKeyRows } from '../rows.js';

/** Server keys in SQLite; each method is one statement. A revoked key keeps its row, with `revoked_at`. */
export class SqliteServerKeyStore implements ServerKeyStore {
  constructor(private readonly db: Database.Database) {}

  async create(projectId: number, name: string, role: ServerKeyRole, keyHash: string): Promise<ServerKey> {
    const row = this.db
      .prepare<[number, string, string, string, number], ServerKeyRow>(
        `INSERT INTO server_keys (project_id, name, role, key_hash, created_at) VALUES (?, ?, ?, ?, ?)
         RETURNING ${serverKeyRows.columns}`,
      )
      .get(projectId, name, role, keyHash, Date.now()) as ServerKeyRow;
    return serverKeyRows.of(row);
  }

  async list(projectId: number): Promise<ServerKey[]> {
    const rows = this.db
      .prepare<[number], ServerKeyRow>(
        `SELECT ${serverKeyRows.columns} FROM server_keys WHERE project_id = ? AND revoked_at IS NULL ORDER BY id`,
      )
      .all(projectId);
    return rows.map(serverKeyRows.of);
  }

  async revoke(projectId: number, keyId: number): Promise<boolean> {
    const result = this.db
      .prepare('UPDATE server_keys SET revoked_at = ? WHERE project_id = ? AND id = ? AND revoked_at IS NULL')
      .run(Date.now(), projectId, keyId);
    return result.changes > 0;
  }

  async findByHash(keyHash: string): Promise<ServerKeyGrant | null> {
    const row = this.db
      .prepare<[string], ServerKeyRow & { org_id: number }>(
        `SELECT k.id, k.project_id, k.name, k.role, k.created_at, p.org_id
         FROM server_keys k JOIN projects p ON p.id = k.project_id
         WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
      )
      .get(keyHash);
    return row ? { ...serverKeyRows.of(row), orgId: row.org_id } : null;
  }
}
