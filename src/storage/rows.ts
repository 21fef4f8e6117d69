/**
 * The rows both engines store alike, once each engine has coerced its driver's types (SQLite's
 * 0/1 and JSON text, PostgreSQL's timestamps): per table, the columns a store selects and the one
 * mapping of such a row to the model (and, where both engines run the same statement, its values).
 * Board rows are in `core/leaderboards/board-record.ts`, being also the API's and the export file's
 * record. No driver and no SQL dialect here.
 */
import type { Admin, AdminWithPassword, ServerKey } from '../core/admin/admin-store.js';
import type { NewUser, Project, User, UserWithPassword } from '../core/auth/account-store.js';
import {
  type DocumentIndex,
  fieldView,
  type IndexFieldView,
  type IndexState,
  indexSignature,
} from '../core/documents/indexes.js';
import type { StoredTtl } from '../core/documents/ttl-store.js';
import type { JsonValue } from '../core/json.js';
import type { LeaderboardEntry, Standing } from '../core/leaderboards/leaderboard-model.js';
import type { ArchivedStanding, EntryWrite, PeriodStanding } from '../core/leaderboards/leaderboard-store.js';
import type { DisconnectOp, DisconnectWriteOp } from '../core/realtime/disconnect-op-store.js';
import type { RuleAuth } from '../core/rules/compiled-ruleset.js';
import type { ImportWebhookRow } from '../core/transfer/webhook-transfer.js';
import type { NewWebhook, Webhook } from '../core/webhooks/webhook-store.js';

/** A player: a row of `users`. */
export interface UserRow {
  project_id: number;
  id: number;
  username: string;
  password_hash: string | null;
  nickname: string;
  avatar_url: string | null;
  roles: string[];
  disabled: boolean;
  token_epoch: number;
}

/** The unique key of `users` a failed insert violated, as an engine reads its error (null: none of them). */
export type ViolatedUserKey = 'username' | 'device' | null;

export const userRows = {
  columns: 'project_id, id, username, password_hash, nickname, avatar_url, roles, disabled, token_epoch',
  /** The user of a row, without secrets. */
  of(row: UserRow): User {
    const { id, project_id: projectId, username, nickname, avatar_url: avatarUrl, roles, disabled } = row;
    return { id, projectId, username, nickname, avatarUrl, roles, disabled, tokenEpoch: row.token_epoch };
  },
  /** The user of a row with its stored password hash (sign-in). */
  withPassword(row: UserRow): UserWithPassword {
    return { ...userRows.of(row), passwordHash: row.password_hash };
  },
  /**
   * What an insert of a user that failed with `error` answers, by the unique key it `violated`:
   * 'taken' for the username; for a guest's device, the user bound to it meanwhile by a concurrent
   * first call, which `boundUser` reads; anything else rethrows `error`.
   */
  async refusedInsert(
    error: unknown,
    violated: ViolatedUserKey,
    boundUser?: () => Promise<User | null> | User | null,
  ): Promise<'taken' | User> {
    if (violated === 'username') return 'taken';
    const bound = violated === 'device' && boundUser ? await boundUser() : null;
    if (!bound) throw error;
    return bound;
  },
  /** The values of a new user's `username, password_hash, nickname, avatar_url, roles, device_id` (roles as JSON text). */
  newValues(user: NewUser): [string, string | null, string, string | null, string, string | null] {
    const { username, passwordHash, nickname, avatarUrl, roles, deviceId } = user;
    return [username, passwordHash, nickname, avatarUrl ?? null, JSON.stringify(roles), deviceId ?? null];
  },
};

/** A row of `projects`: the project, its organisation under the column's name. */
export interface ProjectRow extends Omit<Project, 'orgId'> {
  org_id: number;
}

export const projectRows = {
  columns: 'id, org_id, name',
  of(row: ProjectRow): Project {
    return { id: row.id, orgId: row.org_id, name: row.name };
  },
};

/** An administrator: a row of `admins`, the admin with its organisation under the column's name and its password hash. */
export interface AdminRow extends Omit<Admin, 'orgId'> {
  org_id: number;
  password_hash: string;
}

export const adminRows = {
  columns: 'id, org_id, email, password_hash, role',
  of(row: AdminRow): Admin {
    return { id: row.id, orgId: row.org_id, email: row.email, role: row.role };
  },
  /** The admin of a row with its stored password hash (sign-in). */
  withPassword(row: AdminRow): AdminWithPassword {
    return { ...adminRows.of(row), passwordHash: row.password_hash };
  },
};

/** A server key (§9): a row of `server_keys`, `created_at` in epoch milliseconds. */
export interface ServerKeyRow extends Omit<ServerKey, 'projectId' | 'createdAt'> {
  project_id: number;
  created_at: number;
}

export const serverKeyRows = {
  columns: 'id, project_id, name, role, created_at',
  of(row: ServerKeyRow): ServerKey {
    return { id: row.id, projectId: row.project_id, name: row.name, role: row.role, createdAt: row.created_at };
  },
};

/** A webhook (§16): a row of `webhooks`, its events parsed and `created_at` in epoch milliseconds. */
export interface WebhookRow {
  id: number;
  project_id: number;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  created_at: number;
}

export const webhookRows = {
  columns: 'id, project_id, url, events, description, secret, created_at',
  of(row: WebhookRow): Webhook {
    const { id, url, events, description, secret } = row;
    return { id, projectId: row.project_id, url, events, description, secret, createdAt: row.created_at };
  },
  /** The values of a new webhook's `project_id, url, events, description, secret, created_at` (events as JSON text). */
  newValues(
    projectId: number,
    webhook: NewWebhook,
    now: number,
  ): [number, string, string, string | null, string, number] {
    const { url, events, description, secret } = webhook;
    return [projectId, url, JSON.stringify(events), description, secret, now];
  },
  /** The secret of a webhook an import creates (§8): the plan gives every new one a secret. */
  importedSecret(row: ImportWebhookRow): string {
    if (row.secret === null) throw new Error('an imported webhook to create has no secret');
    return row.secret;
  },
};

/** A collection's TTL setting (§17): a row of `document_ttls`, its field path joined by `__`. */
export interface TtlRow {
  project_id: number;
  collection: string;
  field: string;
  index_id: number | null;
}

export const ttlRows = {
  columns: 'project_id, collection, field, index_id',
  of: (row: TtlRow): StoredTtl => ({
    projectId: row.project_id,
    collection: row.collection,
    field: row.field.split('__'),
    indexId: row.index_id,
  }),
};

/** A declared index (§15): a row of `document_indexes`, its fields stored as JSON text in their API form. */
export interface IndexRow {
  id: number;
  project_id: number;
  collection: string;
  fields: string;
  state: IndexState;
}

export const indexRows = {
  columns: 'id, project_id, collection, fields, state',
  of(row: IndexRow): DocumentIndex {
    return {
      id: row.id,
      projectId: row.project_id,
      collection: row.collection,
      fields: (JSON.parse(row.fields) as IndexFieldView[]).map((item) => ({
        field: item.field.split('__'),
        descending: item.order === 'desc',
      })),
      state: row.state,
    };
  },
  /** The values of a new declaration's `project_id, collection, fields, signature` (fields in their API form). */
  newValues(
    projectId: number,
    declared: Pick<DocumentIndex, 'collection' | 'fields'>,
  ): [number, string, string, string] {
    const { collection, fields } = declared;
    return [projectId, collection, JSON.stringify(fields.map(fieldView)), indexSignature(collection, fields)];
  },
};

/** A user's stat on a board in its current period: a row of `leaderboard_entries`. */
export interface EntryRow {
  user_id: number;
  stat_value: number;
  league: string;
  updated_at: number;
}

export const entryRows = {
  of(row: EntryRow): LeaderboardEntry {
    return { userId: row.user_id, statValue: row.stat_value, league: row.league, updatedAt: row.updated_at };
  },
  /**
   * The values of an entry's compare-and-set update, in the order of the statement both engines
   * run: the new `league, stat_value, score, updated_at`, the entry's `leaderboard_id, user_id`,
   * then the `stat_value, updated_at, league` it must still hold.
   */
  updateValues(boardId: number, { next, score }: EntryWrite, previous: LeaderboardEntry): (string | number)[] {
    const { league, statValue, updatedAt, userId } = next;
    return [
      league,
      statValue,
      score,
      updatedAt,
      boardId,
      userId,
      previous.statValue,
      previous.updatedAt,
      previous.league,
    ];
  },
};

/** A final standing of an archived period: a row of `leaderboard_history`. */
export interface HistoryRow extends EntryRow {
  rank: number;
  reward: JsonValue | null;
}

export const historyRows = {
  columns: 'rank, user_id, stat_value, league, updated_at, reward',
  of(row: HistoryRow): ArchivedStanding {
    return { rank: row.rank, ...entryRows.of(row), reward: row.reward };
  },
};

/**
 * A user's standing as one row: the entry's columns (null without one) beside the user's
 * assignment, from `leaderboard_entries` and `leaderboard_assignments`.
 */
export interface StandingRow {
  user_id: number;
  stat_value: number | null;
  league: string | null;
  updated_at: number | null;
  assigned: string | null;
}

export const standingRows = {
  of(row: StandingRow): Standing {
    const { user_id, stat_value, league, updated_at } = row;
    const entry =
      stat_value !== null && league !== null && updated_at !== null
        ? entryRows.of({ user_id, stat_value, league, updated_at })
        : null;
    return { entry, assignedLeague: row.assigned };
  },
};

/** A user's final standing in an archived period: a row of `leaderboard_history` with its period's end. */
export interface PeriodStandingRow {
  period_start: number;
  period_end: number;
  rank: number;
  stat_value: number;
  league: string;
  reward: JsonValue | null;
}

export const periodStandingRows = {
  columns: 'h.period_start, p.period_end, h.rank, h.stat_value, h.league, h.reward',
  of(row: PeriodStandingRow): PeriodStanding {
    return {
      periodStart: row.period_start,
      periodEnd: row.period_end,
      rank: row.rank,
      statValue: row.stat_value,
      league: row.league,
      reward: row.reward,
    };
  },
};

/** An on-disconnect op (§17): a row of `disconnect_ops`, its value and auth as JSON text, times as numbers. */
export interface DisconnectOpRow {
  id: string;
  instance_id: string;
  connection_id: string;
  seq: number;
  project_id: number;
  op: string;
  path: string;
  value: string;
  user_id: number | null;
  auth: string | null;
  created_at: number;
}

export const disconnectOpRows = {
  columns: 'id, instance_id, connection_id, seq, project_id, op, path, value, user_id, auth, created_at',
  /** The row's values in `columns` order, for an insert. */
  values(op: DisconnectOp): unknown[] {
    const auth = op.auth === null ? null : JSON.stringify(op.auth);
    const value = JSON.stringify(op.value);
    return [
      op.id,
      op.instanceId,
      op.connectionId,
      op.seq,
      op.projectId,
      op.op,
      op.path,
      value,
      op.userId,
      auth,
      op.createdAt,
    ];
  },
  of(row: DisconnectOpRow): DisconnectOp {
    return {
      id: row.id,
      instanceId: row.instance_id,
      connectionId: row.connection_id,
      seq: row.seq,
      projectId: row.project_id,
      op: row.op as DisconnectWriteOp,
      path: row.path,
      value: JSON.parse(row.value) as JsonValue,
      userId: row.user_id,
      auth: row.auth === null ? null : (JSON.parse(row.auth) as RuleAuth),
      createdAt: row.created_at,
    };
  },
};
