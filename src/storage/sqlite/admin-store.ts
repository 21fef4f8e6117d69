import type Database from 'better-sqlite3';
import type { AdminRole } from '../../core/admin/admin-permissions.js';
import type { Admin, AdminStore, AdminWithPassword, ClientInfo } from '../../core/admin/admin-store.js';
import type { Organisation, Project, User } from '../../core/auth/account-store.js';
import { type AdminRow, adminRows, type ProjectRow, projectRows, userRows } from '../rows.js';
import { type SqliteUserRow, toUser } from './account-store.js';

/** Admins and the admin API's organisation-wide reads in SQLite; each method is one statement. */
export class SqliteAdminStore implements AdminStore {
  constructor(private readonly db: Database.Database) {}

  async createAdmin(orgId: number, email: string, passwordHash: string, role: AdminRole): Promise<Admin | 'taken'> {
    try {
      const row = this.db
        .prepare<[number, string, string, string, number], AdminRow>(
          `INSERT INTO admins (org_id, email, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?)
           RETURNING ${adminRows.columns}`,
        )
        .get(orgId, email, passwordHash, role, Date.now()) as AdminRow;
      return adminRows.of(row);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE') return 'taken';
      throw error;
    }
  }

  async findAdminByEmail(email: string): Promise<AdminWithPassword | null> {
    const row = this.db
      .prepare<[string], AdminRow>(`SELECT ${adminRows.columns} FROM admins WHERE email = ?`)
      .get(email);
    return row ? adminRows.withPassword(row) : null;
  }

  async findAdminById(adminId: number): Promise<Admin | null> {
    const row = this.db
      .prepare<[number], AdminRow>(`SELECT ${adminRows.columns} FROM admins WHERE id = ?`)
      .get(adminId);
    return row ? adminRows.of(row) : null;
  }

  async getOrganisation(orgId: number): Promise<Organisation | null> {
    const row = this.db.prepare<[number], Organisation>('SELECT id, name FROM organisations WHERE id = ?').get(orgId);
    return row ?? null;
  }

  async listProjects(orgId: number): Promise<Project[]> {
    const rows = this.db
      .prepare<[number], ProjectRow>(`SELECT ${projectRows.columns} FROM projects WHERE org_id = ? ORDER BY id`)
      .all(orgId);
    return rows.map(projectRows.of);
  }

  async listUsers(projectId: number, offset: number, limit: number): Promise<User[]> {
    const rows = this.db
      .prepare<[number, number, number], SqliteUserRow>(
        `SELECT ${userRows.columns} FROM users WHERE project_id = ? ORDER BY id LIMIT ? OFFSET ?`,
      )
      .all(projectId, limit, offset);
    return rows.map(toUser);
  }

  async countUsers(projectId: number): Promise<number> {
    const row = this.db
      .prepare<[number], { n: number }>('SELECT count(*) AS n FROM users WHERE project_id = ?')
      .get(projectId);
    return row?.n ?? 0;
  }

  async listClients(projectId: number): Promise<ClientInfo[]> {
    const rows = this.db
      .prepare<[number], { client_id: string; created_at: number }>(
        'SELECT client_id, created_at FROM clients WHERE project_id = ? ORDER BY created_at, client_id',
      )
      .all(projectId);
    return rows.map((row) => ({ clientId: row.client_id, createdAt: row.created_at }));
  }

  async replaceClientSecret(projectId: number, clientId: string, secretHash: string): Promise<boolean> {
    const result = this.db
      .prepare('UPDATE clients SET secret_hash = ? WHERE project_id = ? AND client_id = ?')
      .run(secretHash, projectId, clientId);
    return result.changes > 0;
  }
}
