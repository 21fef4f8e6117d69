import type pg from 'pg';
import type {
  AccountStore,
  NewUser,
  Organisation,
  Project,
  RefreshGrant,
  Role,
  User,
  UserAccess,
  UserEvents,
  UserProfile,
  UserRefusal,
  UserWithPassword,
} from '../../core/auth/account-store.js';
import { type ProjectRow, projectRows, type UserRow, userRows, type ViolatedUserKey } from '../rows.js';
import { recordCommitEvents } from './event-store.js';
import { inTransaction } from './transactions.js';

// The id comes from the project's counter in the same statement, so a failed insert (a taken
// username) rolls the counter back, and concurrent sign-ups queue on the project's row.
const INSERT_USER = `
WITH next AS (
  UPDATE projects SET next_user_id = next_user_id + 1 WHERE id = $1 RETURNING next_user_id - 1 AS id
)
INSERT INTO users (project_id, id, username, password_hash, nickname, avatar_url, roles, device_id)
SELECT $1, next.id, $2, $3, $4, $5, $6::jsonb, $7 FROM next
RETURNING ${userRows.columns}`;

/** The unique constraints of `users`, by the key each one guards. */
const USER_KEYS = new Map<unknown, ViolatedUserKey>([
  ['users_by_username', 'username'],
  ['users_project_id_device_id_key', 'device'],
]);

/** Which unique constraint of `users` a failed statement hit, if any. */
function uniqueViolation(error: unknown): ViolatedUserKey {
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' ? (USER_KEYS.get(constraint) ?? null) : null;
}

/** Accounts in PostgreSQL; each method is a single statement, hence atomic. */
export class PostgresAccountStore implements AccountStore {
  constructor(private readonly pool: pg.Pool) {}

  private async one<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R | null> {
    const result = await this.pool.query<R>(sql, params);
    return result.rows[0] ?? null;
  }

  async ensureOrganisation(name: string): Promise<Organisation & { created: boolean }> {
    const inserted = await this.one<Organisation>(
      'INSERT INTO organisations (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING id, name',
      [name],
    );
    if (inserted) return { ...inserted, created: true };
    const existing = await this.one<Organisation>('SELECT id, name FROM organisations WHERE name = $1', [name]);
    if (!existing) throw new Error(`Organisation '${name}' vanished while being ensured`);
    return { ...existing, created: false };
  }

  async createProject(orgId: number, name: string, defaultRole: Role): Promise<Project> {
    const row = await this.one<ProjectRow>(
      `WITH project AS (
         INSERT INTO projects (org_id, name) VALUES ($1, $2) RETURNING ${projectRows.columns}
       ), role AS (
         INSERT INTO roles (project_id, name, permissions) SELECT id, $3, $4::jsonb FROM project
       )
       SELECT ${projectRows.columns} FROM project`,
      [orgId, name, defaultRole.name, JSON.stringify(defaultRole.permissions)],
    );
    if (!row) throw new Error('Project insert returned no row');
    return projectRows.of(row);
  }

  async getProject(projectId: number): Promise<Project | null> {
    const row = await this.one<ProjectRow>(`SELECT ${projectRows.columns} FROM projects WHERE id = $1`, [projectId]);
    return row ? projectRows.of(row) : null;
  }

  async createClient(projectId: number, clientId: string, secretHash: string): Promise<void> {
    await this.pool.query('INSERT INTO clients (client_id, project_id, secret_hash) VALUES ($1, $2, $3)', [
      clientId,
      projectId,
      secretHash,
    ]);
  }

  async findClient(clientId: string): Promise<{ projectId: number; secretHash: string } | null> {
    const row = await this.one<{ project_id: number; secret_hash: string }>(
      'SELECT project_id, secret_hash FROM clients WHERE client_id = $1',
      [clientId],
    );
    return row ? { projectId: row.project_id, secretHash: row.secret_hash } : null;
  }

  private async insertUser(projectId: number, user: NewUser, record?: UserEvents): Promise<User | 'missing'> {
    if (!record) {
      const row = await this.one<UserRow>(INSERT_USER, [projectId, ...userRows.newValues(user)]);
      return row ? userRows.of(row) : 'missing';
    }
    // With its events: the user and the outbox rows in one transaction.
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<UserRow>(INSERT_USER, [projectId, ...userRows.newValues(user)]);
      const row = rows[0];
      if (!row) return 'missing';
      const created = userRows.of(row);
      await recordCommitEvents(client, record(created));
      return created;
    });
  }

  async createUser(projectId: number, user: NewUser, record?: UserEvents): Promise<User | UserRefusal> {
    try {
      return await this.insertUser(projectId, user, record);
    } catch (error) {
      return userRows.refusedInsert(error, uniqueViolation(error));
    }
  }

  async ensureGuest(
    projectId: number,
    user: NewUser & { deviceId: string },
    record?: UserEvents,
  ): Promise<User | UserRefusal> {
    const existing = await this.findUserByDevice(projectId, user.deviceId);
    if (existing) return existing;
    try {
      return await this.insertUser(projectId, user, record);
    } catch (error) {
      // A concurrent first call may have bound the device first: its user is the guest.
      return userRows.refusedInsert(error, uniqueViolation(error), () =>
        this.findUserByDevice(projectId, user.deviceId),
      );
    }
  }

  async findUserByDevice(projectId: number, deviceId: string): Promise<User | null> {
    const sql = `SELECT ${userRows.columns} FROM users WHERE project_id = $1 AND device_id = $2`;
    const row = await this.one<UserRow>(sql, [projectId, deviceId]);
    return row && userRows.of(row);
  }

  async findUserByUsername(projectId: number, username: string): Promise<UserWithPassword | null> {
    const row = await this.one<UserRow>(
      `SELECT ${userRows.columns} FROM users WHERE project_id = $1 AND lower(username) = lower($2)`,
      [projectId, username],
    );
    return row ? userRows.withPassword(row) : null;
  }

  async findUserById(projectId: number, userId: number): Promise<User | null> {
    const row = await this.one<UserRow>(`SELECT ${userRows.columns} FROM users WHERE project_id = $1 AND id = $2`, [
      projectId,
      userId,
    ]);
    return row ? userRows.of(row) : null;
  }

  async profilesOf(projectId: number, userIds: readonly number[]): Promise<Map<number, UserProfile>> {
    const { rows } = await this.pool.query<{ id: number; nickname: string; avatar_url: string | null }>({
      name: 'cds_profiles_of',
      text: 'SELECT id, nickname, avatar_url FROM users WHERE project_id = $1 AND id = ANY($2::int[])',
      values: [projectId, userIds],
    });
    return new Map(rows.map((row) => [row.id, { nickname: row.nickname, avatarUrl: row.avatar_url }]));
  }

  async updateProfile(
    projectId: number,
    userId: number,
    profile: { nickname?: string; avatarUrl?: string | null },
  ): Promise<User | null> {
    const row = await this.one<UserRow>(
      `UPDATE users SET nickname = coalesce($3, nickname), avatar_url = CASE WHEN $4::boolean THEN $5 ELSE avatar_url END
       WHERE project_id = $1 AND id = $2 RETURNING ${userRows.columns}`,
      [projectId, userId, profile.nickname ?? null, profile.avatarUrl !== undefined, profile.avatarUrl ?? null],
    );
    return row ? userRows.of(row) : null;
  }

  async setUserRoles(projectId: number, userId: number, roles: string[]): Promise<void> {
    await this.pool.query('UPDATE users SET roles = $3::jsonb WHERE project_id = $1 AND id = $2', [
      projectId,
      userId,
      JSON.stringify(roles),
    ]);
  }

  async upsertRole(projectId: number, role: Role): Promise<void> {
    await this.pool.query(
      `INSERT INTO roles (project_id, name, permissions) VALUES ($1, $2, $3::jsonb)
       ON CONFLICT (project_id, name) DO UPDATE SET permissions = excluded.permissions`,
      [projectId, role.name, JSON.stringify(role.permissions)],
    );
  }

  async listRoles(projectId: number): Promise<Role[]> {
    const { rows } = await this.pool.query<Role>(
      'SELECT name, permissions FROM roles WHERE project_id = $1 ORDER BY name COLLATE "C"',
      [projectId],
    );
    return rows;
  }

  async permissionsOf(projectId: number, userId: number): Promise<string[] | null> {
    return (await this.accessOf(projectId, userId))?.permissions ?? null;
  }

  async accessOf(projectId: number, userId: number): Promise<UserAccess | null> {
    const row = await this.one<{ roles: string[]; permissions: string[]; disabled: boolean; token_epoch: number }>(
      `SELECT u.roles, u.disabled, u.token_epoch, coalesce((
         SELECT jsonb_agg(DISTINCT p.permission ORDER BY p.permission)
         FROM roles r, jsonb_array_elements_text(r.permissions) AS p(permission)
         WHERE r.project_id = u.project_id AND r.name IN (SELECT jsonb_array_elements_text(u.roles))
       ), '[]'::jsonb) AS permissions
       FROM users u WHERE u.project_id = $1 AND u.id = $2`,
      [projectId, userId],
    );
    return row
      ? { roles: row.roles, permissions: row.permissions, disabled: row.disabled, tokenEpoch: row.token_epoch }
      : null;
  }

  async setUserDisabled(projectId: number, userId: number, disabled: boolean): Promise<User | null> {
    // One statement: disabling moves the epoch on (every token issued so far stays refused, even
    // after re-enabling) and drops the user's refresh tokens.
    const row = await this.one<UserRow>(
      `WITH changed AS (
         UPDATE users SET disabled = $3, token_epoch = token_epoch + CASE WHEN $3 THEN 1 ELSE 0 END
         WHERE project_id = $1 AND id = $2 RETURNING ${userRows.columns}
       ), dropped AS (
         DELETE FROM refresh_tokens WHERE $3 AND project_id = $1 AND user_id = $2 AND EXISTS (SELECT 1 FROM changed)
       )
       SELECT * FROM changed`,
      [projectId, userId, disabled],
    );
    return row ? userRows.of(row) : null;
  }

  async saveRefreshToken(
    tokenHash: string,
    projectId: number,
    userId: number,
    expiresAt: Date,
    tokenEpoch: number,
  ): Promise<void> {
    // Tokens the user let expire, or issued before a disable, go when a new one is issued, so the
    // table holds live tokens only.
    await this.pool.query(
      `WITH expired AS (
         DELETE FROM refresh_tokens WHERE project_id = $2 AND user_id = $3 AND (expires_at <= now() OR token_epoch < $5)
       )
       INSERT INTO refresh_tokens (token_hash, project_id, user_id, expires_at, token_epoch) VALUES ($1, $2, $3, $4, $5)`,
      [tokenHash, projectId, userId, expiresAt, tokenEpoch],
    );
  }

  async consumeRefreshToken(projectId: number, tokenHash: string, now: Date): Promise<RefreshGrant | null> {
    // Deleting is the rotation: a used token is gone, so a second use finds nothing. The user's
    // row is read by the same statement: a token of an epoch a disable has passed is used up, refused.
    const row = await this.one<{ user_id: number; token_epoch: number; expires_at: Date; current: boolean }>(
      `DELETE FROM refresh_tokens t USING users u
       WHERE t.token_hash = $1 AND t.project_id = $2 AND u.project_id = t.project_id AND u.id = t.user_id
       RETURNING t.user_id, t.token_epoch, t.expires_at, t.token_epoch = u.token_epoch AND NOT u.disabled AS current`,
      [tokenHash, projectId],
    );
    if (!row?.current || row.expires_at.getTime() <= now.getTime()) return null;
    return { userId: row.user_id, tokenEpoch: row.token_epoch };
  }

  async isEmpty(): Promise<boolean> {
    const row = await this.one<{ empty: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM organisations) AS empty', []);
    return row?.empty ?? true;
  }
}
