/**
 * The interfaces the domain needs from the outside world. Storage engines (`src/storage/*`)
 * implement them; `src/app.ts` picks the implementations. Nothing here knows SQL or HTTP.
 */
import type { JsonObject } from './json.js';
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

/** One storage engine holding every store. */
export interface Storage {
  readonly engine: 'sqlite' | 'postgres';
  readonly documents: DocumentStore;
  readonly accounts: AccountStore;
  /** Resolves when the database answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
