import type Database from 'better-sqlite3';
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
import type { SqliteEventStore } from './event-store.js';
import { type CachedStatements, withStatementCache } from './statement-cache.js';

/** A user row as SQLite returns it: roles as JSON text, `disabled` 0 or 1. */
export type SqliteUserRow = Omit<UserRow, 'roles' | 'disabled'> & { roles: string; disabled: number };

const userRow = (row: SqliteUserRow): UserRow => ({
  ...row,
  roles: JSON.parse(row.roles) as string[],
  disabled: row.disabled !== 0,
});

/** The user of a row (shared with the admin store). */
export const toUser = (row: SqliteUserRow): User => userRows.of(userRow(row));

/** Which unique constraint of `users` a failed insert hit, if any. */
function uniqueViolation(error: unknown): ViolatedUserKey {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== 'SQLITE_CONSTRAINT_UNIQUE' || typeof message !== 'string') return null;
  if (message.includes('users.username')) return 'username';
  if (message.includes('users.device_id')) return 'device';
  return null;
}

/** Accounts in SQLite; each method is one statement or one transaction. */
export class SqliteAccountStore implements AccountStore {
  private readonly insertUser: (projectId: number, user: NewUser, record?: UserEvents) => User | 'missing';
  private readonly guestTransaction: (
    projectId: number,
    user: NewUser & { deviceId: string },
    record?: UserEvents,
  ) => User | 'missing';
  private readonly accessTransaction: (projectId: number, userId: number) => UserAccess | null;
  private readonly disableTransaction: (projectId: number, userId: number, disabled: boolean) => User | null;
  private readonly consumeTransaction: (projectId: number, tokenHash: string, now: number) => RefreshGrant | null;

  /** Statements prepared once per SQL text (the reads of every request). */
  private readonly cached: CachedStatements;

  constructor(
    private readonly db: Database.Database,
    private readonly events: SqliteEventStore,
  ) {
    this.cached = withStatementCache(db);
    const nextId = db.prepare<[number], { id: number }>(
      'UPDATE projects SET next_user_id = next_user_id + 1 WHERE id = ? RETURNING next_user_id - 1 AS id',
    );
    const insert = db.prepare<
      [number, number, string, string | null, string, string | null, string, string | null, number],
      SqliteUserRow
    >(
      `INSERT INTO users (project_id, id, username, password_hash, nickname, avatar_url, roles, device_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${userRows.columns}`,
    );
    const byDevice = db.prepare<[number, string], SqliteUserRow>(
      `SELECT ${userRows.columns} FROM users WHERE project_id = ? AND device_id = ?`,
    );
    const userAccess = db.prepare<[number, number], { roles: string; disabled: number; token_epoch: number }>(
      'SELECT roles, disabled, token_epoch FROM users WHERE project_id = ? AND id = ?',
    );
    // Disabling moves the epoch on, so every token issued so far is refused even after re-enabling.
    const setDisabled = db.prepare<[number, number, number, number], SqliteUserRow>(
      `UPDATE users SET disabled = ?, token_epoch = token_epoch + ? WHERE project_id = ? AND id = ?
       RETURNING ${userRows.columns}`,
    );
    const dropRefreshTokens = db.prepare<[number, number]>(
      'DELETE FROM refresh_tokens WHERE project_id = ? AND user_id = ?',
    );
    const rolePermissions = db.prepare<[number, string], { permission: string }>(
      `SELECT DISTINCT p.value AS permission FROM roles r, json_each(r.permissions) p
       WHERE r.project_id = ? AND r.name IN (SELECT value FROM json_each(?)) ORDER BY 1`,
    );

    // The id comes from the project's counter in the same transaction, so a failed insert
    // (a taken username) rolls the counter back and ids stay dense.
    this.insertUser = db.transaction((projectId: number, user: NewUser, record?: UserEvents) => {
      const next = nextId.get(projectId);
      if (!next) return 'missing';
      const created = toUser(insert.get(projectId, next.id, ...userRows.newValues(user), Date.now()) as SqliteUserRow);
      if (record) this.events.record(record(created));
      return created;
    });
    this.guestTransaction = db.transaction(
      (projectId: number, user: NewUser & { deviceId: string }, record?: UserEvents) => {
        const existing = byDevice.get(projectId, user.deviceId);
        return existing ? toUser(existing) : this.insertUser(projectId, user, record);
      },
    ).immediate;
    this.accessTransaction = db.transaction((projectId: number, userId: number) => {
      const row = userAccess.get(projectId, userId);
      if (!row) return null;
      return {
        roles: JSON.parse(row.roles) as string[],
        permissions: rolePermissions.all(projectId, row.roles).map((r) => r.permission),
        disabled: row.disabled !== 0,
        tokenEpoch: row.token_epoch,
      };
    });
    this.disableTransaction = db.transaction((projectId: number, userId: number, disabled: boolean) => {
      const row = setDisabled.get(disabled ? 1 : 0, disabled ? 1 : 0, projectId, userId);
      if (!row) return null;
      if (disabled) dropRefreshTokens.run(projectId, userId);
      return toUser(row);
    });

    // Deleting is the rotation: a used token is gone, so a second use finds nothing. The user's
    // row is read in the same transaction: a token of an epoch a disable has passed is used up, refused.
    const consume = db.prepare<[string, number], { user_id: number; token_epoch: number; expires_at: number }>(
      'DELETE FROM refresh_tokens WHERE token_hash = ? AND project_id = ? RETURNING user_id, token_epoch, expires_at',
    );
    this.consumeTransaction = db.transaction((projectId: number, tokenHash: string, now: number) => {
      const token = consume.get(tokenHash, projectId);
      if (!token || token.expires_at <= now) return null;
      const user = userAccess.get(projectId, token.user_id);
      if (!user || user.disabled || user.token_epoch !== token.token_epoch) return null;
      return { userId: token.user_id, tokenEpoch: token.token_epoch };
    });
  }

  async ensureOrganisation(name: string): Promise<Organisation & { created: boolean }> {
    const inserted = this.cached
      .prepare<[string, number], Organisation>(
        'INSERT INTO organisations (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING RETURNING id, name',
      )
      .get(name, Date.now());
    if (inserted) return { ...inserted, created: true };
    const existing = this.cached
      .prepare<[string], Organisation>('SELECT id, name FROM organisations WHERE name = ?')
      .get(name);
    if (!existing) throw new Error(`Organisation '${name}' vanished while being ensured`);
    return { ...existing, created: false };
  }

  async createProject(orgId: number, name: string, defaultRole: Role): Promise<Project> {
    const create = this.db.transaction(() => {
      const row = this.cached
        .prepare<[number, string, number], ProjectRow>(
          `INSERT INTO projects (org_id, name, created_at) VALUES (?, ?, ?) RETURNING ${projectRows.columns}`,
        )
        .get(orgId, name, Date.now()) as ProjectRow;
      this.cached
        .prepare('INSERT INTO roles (project_id, name, permissions) VALUES (?, ?, ?)')
        .run(row.id, defaultRole.name, JSON.stringify(defaultRole.permissions));
      return projectRows.of(row);
    });
    return create();
  }

  async getProject(projectId: number): Promise<Project | null> {
    const row = this.cached
      .prepare<[number], ProjectRow>(`SELECT ${projectRows.columns} FROM projects WHERE id = ?`)
      .get(projectId);
    return row ? projectRows.of(row) : null;
  }

  async createClient(projectId: number, clientId: string, secretHash: string): Promise<void> {
    this.cached
      .prepare('INSERT INTO clients (client_id, project_id, secret_hash, created_at) VALUES (?, ?, ?, ?)')
      .run(clientId, projectId, secretHash, Date.now());
  }

  async findClient(clientId: string): Promise<{ projectId: number; secretHash: string } | null> {
    const row = this.cached
      .prepare<[string], { project_id: number; secret_hash: string }>(
        'SELECT project_id, secret_hash FROM clients WHERE client_id = ?',
      )
      .get(clientId);
    return row ? { projectId: row.project_id, secretHash: row.secret_hash } : null;
  }

  async createUser(projectId: number, user: NewUser, record?: UserEvents): Promise<User | UserRefusal> {
    try {
      return this.insertUser(projectId, user, record);
    } catch (error) {
      return userRows.refusedInsert(error, uniqueViolation(error));
    }
  }

  async ensureGuest(
    projectId: number,
    user: NewUser & { deviceId: string },
    record?: UserEvents,
  ): Promise<User | UserRefusal> {
    try {
      return this.guestTransaction(projectId, user, record);
    } catch (error) {
      // Another process may have bound the device between our read and write: theirs is the guest.
      return userRows.refusedInsert(error, uniqueViolation(error), () =>
        this.findUserByDevice(projectId, user.deviceId),
      );
    }
  }

  async findUserByDevice(projectId: number, deviceId: string): Promise<User | null> {
    const row = this.cached
      .prepare<[number, string], SqliteUserRow>(
        `SELECT ${userRows.columns} FROM users WHERE project_id = ? AND device_id = ?`,
      )
      .get(projectId, deviceId);
    return row ? toUser(row) : null;
  }

  async findUserByUsername(projectId: number, username: string): Promise<UserWithPassword | null> {
    // The username column is COLLATE NOCASE, so this matches case-insensitively.
    const row = this.cached
      .prepare<[number, string], SqliteUserRow>(
        `SELECT ${userRows.columns} FROM users WHERE project_id = ? AND username = ?`,
      )
      .get(projectId, username);
    return row ? userRows.withPassword(userRow(row)) : null;
  }

  async findUserById(projectId: number, userId: number): Promise<User | null> {
    const row = this.cached
      .prepare<[number, number], SqliteUserRow>(`SELECT ${userRows.columns} FROM users WHERE project_id = ? AND id = ?`)
      .get(projectId, userId);
    return row ? toUser(row) : null;
  }

  async profilesOf(projectId: number, userIds: readonly number[]): Promise<Map<number, UserProfile>> {
    const rows = this.cached
      .prepare<[number, string], { id: number; nickname: string; avatar_url: string | null }>(
        'SELECT id, nickname, avatar_url FROM users WHERE project_id = ? AND id IN (SELECT value FROM json_each(?))',
      )
      .all(projectId, JSON.stringify(userIds));
    return new Map(rows.map((row) => [row.id, { nickname: row.nickname, avatarUrl: row.avatar_url }]));
  }

  async updateProfile(
    projectId: number,
    userId: number,
    profile: { nickname?: string; avatarUrl?: string | null },
  ): Promise<User | null> {
    const setAvatar = profile.avatarUrl !== undefined ? 1 : 0;
    const row = this.cached
      .prepare<[string | null, number, string | null, number, number], SqliteUserRow>(
        `UPDATE users SET nickname = coalesce(?, nickname), avatar_url = CASE WHEN ? THEN ? ELSE avatar_url END
         WHERE project_id = ? AND id = ? RETURNING ${userRows.columns}`,
      )
      .get(profile.nickname ?? null, setAvatar, profile.avatarUrl ?? null, projectId, userId);
    return row ? toUser(row) : null;
  }

  async setUserRoles(projectId: number, userId: number, roles: string[]): Promise<void> {
    this.cached
      .prepare('UPDATE users SET roles = ? WHERE project_id = ? AND id = ?')
      .run(JSON.stringify(roles), projectId, userId);
  }

  async upsertRole(projectId: number, role: Role): Promise<void> {
    this.cached
      .prepare(
        `INSERT INTO roles (project_id, name, permissions) VALUES (?, ?, ?)
         ON CONFLICT (project_id, name) DO UPDATE SET permissions = excluded.permissions`,
      )
      .run(projectId, role.name, JSON.stringify(role.permissions));
  }

  async listRoles(projectId: number): Promise<Role[]> {
    const rows = this.cached
      .prepare<[number], { name: string; permissions: string }>(
        'SELECT name, permissions FROM roles WHERE project_id = ? ORDER BY name',
      )
      .all(projectId);
    return rows.map((row) => ({ name: row.name, permissions: JSON.parse(row.permissions) as string[] }));
  }

  async permissionsOf(projectId: number, userId: number): Promise<string[] | null> {
    return this.accessTransaction(projectId, userId)?.permissions ?? null;
  }

  async accessOf(projectId: number, userId: number): Promise<UserAccess | null> {
    return this.accessTransaction(projectId, userId);
  }

  async setUserDisabled(projectId: number, userId: number, disabled: boolean): Promise<User | null> {
    return this.disableTransaction(projectId, userId, disabled);
  }

  async saveRefreshToken(
    tokenHash: string,
    projectId: number,
    userId: number,
    expiresAt: Date,
    tokenEpoch: number,
  ): Promise<void> {
    this.db.transaction(() => {
      // Tokens the user let expire, or issued before a disable, go when a new one is issued, so
      // the table holds live tokens only.
      this.cached
        .prepare(
          'DELETE FROM refresh_tokens WHERE project_id = ? AND user_id = ? AND (expires_at <= ? OR token_epoch < ?)',
        )
        .run(projectId, userId, Date.now(), tokenEpoch);
      this.cached
        .prepare(
          'INSERT INTO refresh_tokens (token_hash, project_id, user_id, expires_at, token_epoch) VALUES (?, ?, ?, ?, ?)',
        )
        .run(tokenHash, projectId, userId, expiresAt.getTime(), tokenEpoch);
    })();
  }

  async consumeRefreshToken(projectId: number, tokenHash: string, now: Date): Promise<RefreshGrant | null> {
    return this.consumeTransaction(projectId, tokenHash, now.getTime());
  }

  async isEmpty(): Promise<boolean> {
    return this.cached.prepare('SELECT 1 FROM organisations LIMIT 1').get() === undefined;
  }
}
