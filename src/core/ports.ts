/**
 * The interfaces the domain needs from the outside world. Storage engines (`src/storage/*`)
 * implement them; `src/app.ts` picks the implementations. Nothing here knows SQL or HTTP.
 */
import type { JsonObject, JsonValue } from './json.js';
import type { DocumentPath } from './paths.js';
import type { OrderBy, WhereClause } from './where.js';

/** A stored document as the API returns it. */
export interface DocumentRecord {
  id: string;
  path: string;
  data: JsonObject;
}

/** Which direct children of a collection to list, in path order. */
export interface ListDocumentsOptions {
  parent: string;
  collection: string;
  /** Only documents whose path sorts after this full path. */
  startAfter?: string;
  limit: number;
}

/** A filtered read of a collection (at any depth unless `parent` is given). */
export interface QueryDocumentsOptions {
  collection: string;
  /** Only direct children of this document path. */
  parent?: string;
  where: WhereClause[];
  orderBy?: OrderBy;
  limit?: number;
  offset?: number;
}

/** The JSON document store of every project. Each method is one atomic operation. */
export interface DocumentStore {
  /** Inserts or replaces the document at `path`; `created` tells which happened. */
  upsert(projectId: number, path: DocumentPath, data: JsonObject): Promise<DocumentRecord & { created: boolean }>;
  /** Inserts a new document with the given id; the path is new (its last segment is the id). */
  insert(projectId: number, path: DocumentPath, id: string, data: JsonObject): Promise<DocumentRecord>;
  /** The document at `path`, or null. */
  get(projectId: number, path: string): Promise<DocumentRecord | null>;
  /** Sorted unique names of the segment after `path/` over all documents below `path`. */
  childCollections(projectId: number, path: string): Promise<string[]>;
  /** Shallow-merges `patch` into the stored data; null when the document does not exist. */
  merge(projectId: number, path: string, patch: JsonObject): Promise<DocumentRecord | null>;
  /** Deletes only that document; false when it did not exist. */
  delete(projectId: number, path: string): Promise<boolean>;
  /** Direct children of a collection, by path ascending. */
  list(projectId: number, options: ListDocumentsOptions): Promise<DocumentRecord[]>;
  /** Documents of a collection matching every clause, by `orderBy` then path. */
  query(projectId: number, options: QueryDocumentsOptions): Promise<DocumentRecord[]>;
}

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

/** A role: a named set of permissions within a project. */
export interface Role {
  name: string;
  permissions: string[];
}

/** Organisations, projects, clients, users, roles and refresh tokens. */
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
  /** Creates a user; throws `conflict` when the username is taken. */
  createUser(projectId: number, user: NewUser): Promise<User>;
  /** The user bound to the device, created by `user` when missing (atomically). */
  ensureGuest(projectId: number, user: NewUser & { deviceId: string }): Promise<User>;
  findUserByUsername(projectId: number, username: string): Promise<UserWithPassword | null>;
  findUserById(projectId: number, userId: number): Promise<User | null>;
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
  saveRefreshToken(tokenHash: string, projectId: number, userId: number, expiresAt: Date): Promise<void>;
  /** Marks an unused, unexpired refresh token of the project used and returns its user id; null otherwise. */
  consumeRefreshToken(projectId: number, tokenHash: string, now: Date): Promise<number | null>;
  /** True when no organisation exists yet (first start). */
  isEmpty(): Promise<boolean>;
}

/** One leaf of the realtime tree: a non-object JSON value stored whole at its path. */
export interface TreeLeaf {
  path: string;
  value: JsonValue;
}

/** One child set of a tree write: the subtree at `path` becomes `value`. */
export interface TreeSet {
  path: string;
  /** The stored form of the value (null deletes): what readers and subscribers see. */
  value: JsonValue;
  /** The flattening of `value`: empty for a delete. */
  leaves: TreeLeaf[];
}

/** What a write did at one path: the new value there (null after a delete). */
export interface TreeChange {
  path: string;
  value: JsonValue;
}

/** A committed write: the project version it took and its changes in the order applied. */
export interface TreeCommit {
  version: number;
  changes: TreeChange[];
}

/** A subtree and the project version it reflects, read in one transaction. */
export interface TreeSnapshot {
  value: JsonValue;
  version: number;
}

/** The commits after some version (those with changes, in order) and the current version. */
export interface TreeHistory {
  version: number;
  commits: TreeCommit[];
}

/** How much change log a write keeps: the last `maxWrites` commits, none older than `maxAgeMs`. */
export interface ChangeLogRetention {
  maxWrites: number;
  maxAgeMs: number;
}

/**
 * The realtime tree of every project (§3): one row per leaf keyed by its path, a version
 * counter per project and a bounded change log (§4). Each write is one transaction that takes
 * the project's next version (consecutive; concurrent writes of a project are serialized),
 * applies its sets, appends them to the log and trims the log to `retention`.
 */
export interface TreeStore {
  /** Replaces the subtree at `set.path`; when it has leaves, ancestors holding a leaf become objects. */
  set(projectId: number, set: TreeSet, retention: ChangeLogRetention): Promise<TreeCommit>;
  /** Applies child sets (no path a prefix of another) at once; also returns the merged value at `path`. */
  patch(
    projectId: number,
    path: string,
    sets: TreeSet[],
    retention: ChangeLogRetention,
  ): Promise<TreeCommit & { value: JsonValue }>;
  /** Deletes the subtree at `path` (a commit even when nothing was there). */
  delete(projectId: number, path: string, retention: ChangeLogRetention): Promise<TreeCommit>;
  /** The assembled value at `path` with the version it reflects. */
  snapshot(projectId: number, path: string): Promise<TreeSnapshot>;
  /** The names of the children of `path` when it is an object; its value when a leaf; else none. */
  children(projectId: number, path: string): Promise<{ leaf: JsonValue; keys: string[] }>;
  /** The project's current version: 0 before its first write. */
  currentVersion(projectId: number): Promise<number>;
  /** Every commit after `version`, or null when the log no longer covers them (or `version` is not in 0..current). */
  changesSince(projectId: number, version: number): Promise<TreeHistory | null>;
}

/**
 * Broadcasts between every instance sharing it: in-process now, Redis pub/sub later, so
 * messages are strings and the interface stays this small.
 */
export interface Bus {
  /** Delivers `message` to every listener of `channel` on every instance, in publish order. */
  publish(channel: string, message: string): Promise<void>;
  /** Listens on `channel` from when it resolves; the function it resolves to stops listening. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** One storage engine holding every store. */
export interface Storage {
  readonly engine: 'sqlite' | 'postgres';
  readonly documents: DocumentStore;
  readonly accounts: AccountStore;
  readonly tree: TreeStore;
  /** Resolves when the database answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
