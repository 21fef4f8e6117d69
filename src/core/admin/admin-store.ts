/** The admin ports: admins and organisation-wide reads (§6), server keys (§9). */
import type { Organisation, Project, User } from '../auth/account-store.js';
import type { AdminRole } from './admin-permissions.js';

/** An administrator: a member of one organisation with a role (§6). */
export interface Admin {
  id: number;
  orgId: number;
  /** Normalized (trimmed, lower case); unique over all organisations. */
  email: string;
  role: AdminRole;
}

/** An admin with the stored password hash. */
export interface AdminWithPassword extends Admin {
  passwordHash: string;
}

/** A client of a project, without its secret. */
export interface ClientInfo {
  clientId: string;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** Admins, and the organisation-wide reads and client changes of the admin API (§6). */
export interface AdminStore {
  /** Creates an admin; `taken` when an admin of any organisation has the email. */
  createAdmin(orgId: number, email: string, passwordHash: string, role: AdminRole): Promise<Admin | 'taken'>;
  findAdminByEmail(email: string): Promise<AdminWithPassword | null>;
  findAdminById(adminId: number): Promise<Admin | null>;
  getOrganisation(orgId: number): Promise<Organisation | null>;
  /** The projects of an organisation, by id. */
  listProjects(orgId: number): Promise<Project[]>;
  /** Users of a project by id, `limit` from `offset`. */
  listUsers(projectId: number, offset: number, limit: number): Promise<User[]>;
  countUsers(projectId: number): Promise<number>;
  /** The clients of a project, oldest first. */
  listClients(projectId: number): Promise<ClientInfo[]>;
  /** Replaces the secret hash of a client of that project; false when it has no such client. */
  replaceClientSecret(projectId: number, clientId: string, secretHash: string): Promise<boolean>;
}

/** The admin role of a server key: never `owner` (a key cannot manage projects or clients). */
export type ServerKeyRole = Exclude<AdminRole, 'owner'>;

/** A server key of a project (§9), without its secret. */
export interface ServerKey {
  id: number;
  projectId: number;
  name: string;
  role: ServerKeyRole;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** A live server key with the organisation of its project, as a key lookup finds it. */
export interface ServerKeyGrant extends ServerKey {
  orgId: number;
}

/** Server keys of game servers (§9), stored as SHA-256 hashes of the keys only. */
export interface ServerKeyStore {
  create(projectId: number, name: string, role: ServerKeyRole, keyHash: string): Promise<ServerKey>;
  /** The project's keys that are not revoked, by id. */
  list(projectId: number): Promise<ServerKey[]>;
  /** Revokes a live key of the project; false when it has no such key (or it was revoked). */
  revoke(projectId: number, keyId: number): Promise<boolean>;
  /** The live key with that hash, or null (unknown or revoked). */
  findByHash(keyHash: string): Promise<ServerKeyGrant | null>;
}
