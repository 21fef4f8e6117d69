/**
 * The rows both engines store alike, once each engine has coerced its driver's types (SQLite's
 * 0/1 and JSON text, PostgreSQL's timestamps): the columns a store selects and the one mapping
 * of such a row to the model. Board rows are in `core/leaderboards/board-record.ts`, being also
 * the API's and the export file's record. No driver and no SQL dialect here.
 */

import type { AdminRole } from '../core/admin/admin-permissions.js';
import type { Admin, AdminWithPassword, ServerKey } from '../core/admin/admin-store.js';
import type { Project, User, UserWithPassword } from '../core/auth/account-store.js';
import type { DocumentIndex, IndexFieldView, IndexState } from '../core/documents/indexes.js';

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

export const USER_COLUMNS =
  'project_id, id, username, password_hash, nickname, avatar_url, roles, disabled, token_epoch';

/** A user without secrets. */
export function userOf(row: UserRow): User {
  return {
    id: row.id,
    projectId: row.project_id,
    username: row.username,
    nickname: row.nickname,
    avatarUrl: row.avatar_url,
    roles: row.roles,
    disabled: row.disabled,
    tokenEpoch: row.token_epoch,
  };
}

/** A user with the stored password hash (sign-in). */
export function userWithPasswordOf(row: UserRow): UserWithPassword {
  return { ...userOf(row), passwordHash: row.password_hash };
}

/** A row of `projects`. */
export interface ProjectRow {
  id: number;
  org_id: number;
  name: string;
}

export const PROJECT_COLUMNS = 'id, org_id, name';

export function projectOf(row: ProjectRow): Project {
  return { id: row.id, orgId: row.org_id, name: row.name };
}

/** An administrator: a row of `admins`. */
export interface AdminRow {
  id: number;
  org_id: number;
  email: string;
  password_hash: string;
  role: AdminRole;
}

export const ADMIN_COLUMNS = 'id, org_id, email, password_hash, role';

export function adminOf(row: AdminRow): Admin {
  return { id: row.id, orgId: row.org_id, email: row.email, role: row.role };
}

/** An admin with the stored password hash (sign-in). */
export function adminWithPasswordOf(row: AdminRow): AdminWithPassword {
  return { ...adminOf(row), passwordHash: row.password_hash };
}

/** A server key (§9): a row of `server_keys`, `created_at` in epoch milliseconds. */
export interface ServerKeyRow extends Omit<ServerKey, 'projectId' | 'createdAt'> {
  project_id: number;
  created_at: number;
}

export const SERVER_KEY_COLUMNS = 'id, project_id, name, role, created_at';

export function serverKeyOf(row: ServerKeyRow): ServerKey {
  return { id: row.id, projectId: row.project_id, name: row.name, role: row.role, createdAt: row.created_at };
}

/** A declared index (§15): a row of `document_indexes`, its fields stored as JSON text in their API form. */
export interface IndexRow {
  id: number;
  project_id: number;
  collection: string;
  fields: string;
  state: IndexState;
}

export const INDEX_COLUMNS = 'id, project_id, collection, fields, state';

export function indexOf(row: IndexRow): DocumentIndex {
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
}
