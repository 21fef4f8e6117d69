import type Database from 'better-sqlite3';
import type { AdminRole } from '../../core/admin/admin-permissions.js';
import type { Admin, AdminStore, AdminWithPassword, ClientInfo } from '../../core/admin/admin-store.js';
import type { Organisation, Project, User } from '../../core/auth/account-store.js';
import { conflict } from '../../core/errors.js';

interface AdminRow {
  id: number;
  org_id: number;
  email: string;
  password_hash: string;
  role: AdminRole;
}

interface UserRow {
  project_id: number;
  id: number;
  username: string;
  nickname: string;
  avatar_url: string | null;
  roles: string;
  disabled: number;
  token_epoch: number;
}

const ADMIN_COLUMNS = 'id, org_id, email, password_hash, role';

const toAdmin = (row: AdminRow): Admin => ({ id: row.id, orgId: row.org_id, email: row.email, role: row.role });

/** Admins and the admin API's organisation-wide reads in SQLite; each method is one statement. */
export class SqliteAdminStore implements AdminStore {
  constructor(private readonly db: Database.Database) {}

  async createAdmin(orgId: number, email: string, passwordHash: string, role: AdminRole): Promise<Admin> {
    try {
      const row = this.db
        .prepare<[number, string, string, string, number], AdminRow>(
          `INSERT INTO admins (org_id, email, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?)
           RETURNING ${ADMIN_COLUMNS}`,
        )
        .get(orgId, email, passwordHash, role, Date.now()) as AdminRow;
      return toAdmin(row);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw conflict('Email already registered');
      throw error;
    }
  }

  async findAdminByEmail(email: string): Promise<AdminWithPassword | null> {
    const row = this.db.prepare<[string], AdminRow>(`SELECT ${ADMIN_COLUMNS} FROM admins WHERE email = ?`).get(email);
    return row ? { ...toAdmin(row), passwordHash: row.password_hash } : null;
  }

  async findAdminById(adminId: number): Promise<Admin | null> {
    const row = this.db.prepare<[number], AdminRow>(`SELECT ${ADMIN_COLUMNS} FROM admins WHERE id = ?`).get(adminId);
    return row ? toAdmin(row) : null;
  }

  async getOrganisation(orgId: number): Promise<Organisation | null> {
    const row = this.db.prepare<[number], Organisation>('SELECT id, name FROM organisations WHERE id = ?').get(orgId);
    return row ?? null;
  }

  async listProjects(orgId: number): Promise<Project[]> {
    const rows = this.db
      .prepare<[number], { id: number; org_id: number; name: string }>(
        'SELECT id, org_id, name FROM projects WHERE org_id = ? ORDER BY id',
      )
      .all(orgId);
    return rows.map((row) => ({ id: row.id, orgId: row.org_id, name: row.name }));
  }

  async listUsers(projectId: number, offset: number, limit: number): Promise<User[]> {
    const rows = this.db
      .prepare<[number, number, number], UserRow>(
        `SELECT project_id, id, username, nickname, avatar_url, roles, disabled, token_epoch FROM users
         WHERE project_id = ? ORDER BY id LIMIT ? OFFSET ?`,
      )
      .all(projectId, limit, offset);
    return rows.map((row) => ({
      id: row.id,
      projectId: row.project_id,
      username: row.username,
      nickname: row.nickname,
      avatarUrl: row.avatar_url,
      roles: JSON.parse(row.roles) as string[],
      disabled: row.disabled !== 0,
      tokenEpoch: row.token_epoch,
    }));
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
