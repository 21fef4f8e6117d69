import type { CommitEvents } from '../events/outbox-events.js';
/** The accounts port: organisations, projects, clients, users, roles and refresh tokens. */
/** An organisation, owner of projects. */
export interface Organisation {
  id: number;
  name: string;
}

/** A project: the unit of isolation of all client data. */
export interface Project {
  id: number;
  orgId: number;
  name: string;
}

/** A player of a project, without secrets. */
export interface User {
  id: number;
  projectId: number;
  username: string;
  nickname: string;
  avatarUrl: string | null;
  roles: string[];
  /** A disabled user cannot sign in, refresh or use a token (§9, §13). */
  disabled: boolean;
  /**
   * Moves on at every disable. Access tokens carry the epoch they were issued under and are
   * refused once it is not the user's current one, so re-enabling revives no older token.
   */
  tokenEpoch: number;
}

/** What the check of every client request needs to know about its user (cached a few seconds). */
export interface UserAccess {
  /** The user's roles, by name. */
  roles: string[];
  /** Union of the permissions of the user's roles. */
  permissions: string[];
  disabled: boolean;
  tokenEpoch: number;
}

/** What a consumed refresh token stood for: its user and the token epoch it was issued under. */
export interface RefreshGrant {
  userId: number;
  tokenEpoch: number;
}

/** The public part of a user that leaderboards show. */
export interface UserProfile {
  nickname: string;
  avatarUrl: string | null;
}

/** A user together with the stored password hash (null when none was set). */
export interface UserWithPassword extends User {
  passwordHash: string | null;
}

/** What a new user is created with. */
export interface NewUser {
  username: string;
  passwordHash: string | null;
  nickname: string;
  avatarUrl?: string | null;
  roles: string[];
  /** Binds a guest account to a device. */
  deviceId?: string;
}

/** Why a store created no user: the project has the username (`taken`), or there is no such project (`missing`). */
export type UserRefusal = 'taken' | 'missing';

/** A role: a named set of permissions within a project. */
export interface Role {
  name: string;
  permissions: string[];
}

/** Organisations, projects, clients, users, roles and refresh tokens. */
/** The events of a user's creation, given the user as created (its id is the store's). */
export type UserEvents = (created: User) => CommitEvents;

export interface AccountStore {
  /** The organisation of that name, created when missing; `created` tells which happened. */
  ensureOrganisation(name: string): Promise<Organisation & { created: boolean }>;
  /** Creates a project with the default `player` role. */
  createProject(orgId: number, name: string, defaultRole: Role): Promise<Project>;
  getProject(projectId: number): Promise<Project | null>;
  /** Registers a client of a project; only the secret's hash is stored. */
  createClient(projectId: number, clientId: string, secretHash: string): Promise<void>;
  /** The project and secret hash of a client id, or null. */
  findClient(clientId: string): Promise<{ projectId: number; secretHash: string } | null>;
  /**
   * Creates a user; a refusal when the username is taken (case-insensitively) or the project
   * missing. `record` gives the events to record with the new user (§16), in its transaction.
   */
  createUser(projectId: number, user: NewUser, record?: UserEvents): Promise<User | UserRefusal>;
  /** The user bound to the device, created by `user` when missing (atomically, `record`ed as `createUser`'s); a refusal as `createUser`'s. */
  ensureGuest(
    projectId: number,
    user: NewUser & { deviceId: string },
    record?: UserEvents,
  ): Promise<User | UserRefusal>;
  findUserByUsername(projectId: number, username: string): Promise<UserWithPassword | null>;
  /** The guest bound to the device, or null (its first login has not happened). */
  findUserByDevice(projectId: number, deviceId: string): Promise<User | null>;
  findUserById(projectId: number, userId: number): Promise<User | null>;
  /** The public profiles of those users that exist (leaderboard listings). */
  profilesOf(projectId: number, userIds: readonly number[]): Promise<Map<number, UserProfile>>;
  /** Updates the profile fields given; null when the user does not exist. */
  updateProfile(
    projectId: number,
    userId: number,
    profile: { nickname?: string; avatarUrl?: string | null },
  ): Promise<User | null>;
  setUserRoles(projectId: number, userId: number, roles: string[]): Promise<void>;
  /** Creates or replaces a role. */
  upsertRole(projectId: number, role: Role): Promise<void>;
  /** The roles of a project, by name. */
  listRoles(projectId: number): Promise<Role[]>;
  /** Union of the permissions of the user's roles; null when the user does not exist. */
  permissionsOf(projectId: number, userId: number): Promise<string[] | null>;
  /** Permissions, disabled flag and token epoch of a user in one read; null when the user does not exist. */
  accessOf(projectId: number, userId: number): Promise<UserAccess | null>;
  /**
   * Enables or disables a user. Disabling also moves the token epoch on and drops the user's
   * refresh tokens, in one transaction. Null when the user does not exist.
   */
  setUserDisabled(projectId: number, userId: number, disabled: boolean): Promise<User | null>;
  /**
   * Stores a new refresh token's hash, issued under the user's token epoch `tokenEpoch` as read
   * before (and drops the user's expired tokens, and those of earlier epochs).
   */
  saveRefreshToken(
    tokenHash: string,
    projectId: number,
    userId: number,
    expiresAt: Date,
    tokenEpoch: number,
  ): Promise<void>;
  /**
   * Removes a refresh token of the project. Returns its user and epoch when it had not expired and
   * was issued under the user's current epoch to a user still enabled, read in the same step: a
   * token saved by a sign-in or refresh that raced a disable is refused, even after re-enabling.
   * Null otherwise.
   */
  consumeRefreshToken(projectId: number, tokenHash: string, now: Date): Promise<RefreshGrant | null>;
  /** True when no organisation exists yet (first start). */
  isEmpty(): Promise<boolean>;
}
