import type pg from 'pg';
import type { AdminRole } from '../../core/admin/admin-permissions.js';
import type { Admin, AdminStore, AdminWithPassword, ClientInfo } from '../../core/admin/admin-store.js';
import type { Organisation, Project, User } from '../../core/auth/account-store.js';
import { type AdminRow, adminRows, type ProjectRow, projectRows, type UserRow, userRows } from '../rows.js';

/** Admins and the admin API's organisation-wide reads in PostgreSQL; each method is one statement. */
export class PostgresAdminStore implements AdminStore {
  constructor(private readonly pool: pg.Pool) {}

  async createAdmin(orgId: number, email: string, passwordHash: string, role: AdminRole): Promise<Admin | 'taken'> {
    try {
      const { rows } = await this.pool.query<AdminRow>(
        `INSERT INTO admins (org_id, email, password_hash, role) VALUES ($1, $2, $3, $4) RETURNING ${adminRows.columns}`,
        [orgId, email, passwordHash, role],
      );
      return adminRows.of(rows[0] as AdminRow);
    } catch (error) {
      if ((error as { code?: unknown }).code === '23505') return 'taken';
      throw error;
    }
  }

  async findAdminByEmail(email: string): Promise<AdminWithPassword | null> {
    const { rows } = await this.pool.query<AdminRow>(`SELECT ${adminRows.columns} FROM admins WHERE email = $1`, [
      email,
    ]);
    const row = rows[0];
    return row ? adminRows.withPassword(row) : null;
  }

  async findAdminById(adminId: number): Promise<Admin | null> {
    const { rows } = await this.pool.query<AdminRow>(`SELECT ${adminRows.columns} FROM admins WHERE id = $1`, [
      adminId,
    ]);
    const row = rows[0];
    return row ? adminRows.of(row) : null;
  }

  async getOrganisation(orgId: number): Promise<Organisation | null> {
    const { rows } = await this.pool.query<Organisation>('SELECT id, name FROM organisations WHERE id = $1', [orgId]);
    return rows[0] ?? null;
  }

  async listProjects(orgId: number): Promise<Project[]> {
    const { rows } = await this.pool.query<ProjectRow>(
      `SELECT ${projectRows.columns} FROM projects WHERE org_id = $1 ORDER BY id`,
      [orgId],
    );
    return rows.map(projectRows.of);
  }

  async listUsers(projectId: number, offset: number, limit: number): Promise<User[]> {
    const { rows } = await this.pool.query<UserRow>(
      `SELECT ${userRows.columns} FROM users WHERE project_id = $1 ORDER BY id LIMIT $2 OFFSET $3`,
      [projectId, limit, offset],
    );
    return rows.map(userRows.of);
  }

  async countUsers(projectId: number): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM users WHERE project_id = $1',
      [projectId],
    );
    return rows[0]?.n ?? 0;
  }

  async listClients(projectId: number): Promise<ClientInfo[]> {
    const { rows } = await this.pool.query<{ client_id: string; created_at: Date }>(
      'SELECT client_id, created_at FROM clients WHERE project_id = $1 ORDER BY created_at, client_id',
      [projectId],
    );
    return rows.map((row) => ({ clientId: row.client_id, createdAt: row.created_at.getTime() }));
  }

  async replaceClientSecret(projectId: number, clientId: string, secretHash: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE clients SET secret_hash = $1 WHERE project_id = $2 AND client_id = $3',
      [secretHash, projectId, clientId],
    );
    return (rowCount ?? 0) > 0;
  }
}
