import { randomBytes } from 'node:crypto';
import type { AccountService, ClientCredentials, ProjectCredentials } from '../auth/account-service.js';
import type { AccountStore, Project, User } from '../auth/account-store.js';
import type { AuthService } from '../auth/auth-service.js';
import { sha256Hex } from '../auth/tokens.js';
import { badRequest, conflict, notFound } from '../errors.js';
import type { MeView } from '../leaderboards/leaderboard-views.js';
import { isoTime } from '../leaderboards/period-schedule.js';
import type { AdminStore } from './admin-store.js';

/** A project as the admin API shows it. */
export interface ProjectView {
  id: number;
  org_id: number;
  name: string;
}

/** A client without its secret. */
export interface ClientView {
  client_id: string;
  created_at: string;
}

/** A user as the admin API shows it. */
export interface UserView {
  id: number;
  username: string;
  nickname: string;
  avatar_url: string | null;
  roles: string[];
  /** A disabled user cannot sign in and its tokens are refused (§13). */
  disabled: boolean;
}

/** The changes `PATCH /admin/projects/{project_id}/users/{user_id}` may make. */
export interface UserChange {
  nickname?: string;
  avatar_url?: string | null;
  roles?: string[];
  disabled?: boolean;
}

/** A role as the admin API shows it. */
export interface RoleView {
  name: string;
  permissions: string[];
}

/** A requested page: `page` ≥ 1 and `page_size` items per page (the route schemas bound both). */
export interface PageRequest {
  page?: number;
  page_size?: number;
}

/** The paging fields of every paged admin listing. */
export interface PageInfo {
  page: number;
  page_size: number;
  total: number;
}

/** The defaults of §6 pages. */
export const DEFAULT_PAGE_SIZE = 20;

/** The page and size a request asks for, with the offset they mean. */
export function pageOf(request: PageRequest): { page: number; page_size: number; offset: number } {
  const page = request.page ?? 1;
  const size = request.page_size ?? DEFAULT_PAGE_SIZE;
  return { page, page_size: size, offset: (page - 1) * size };
}

/** Converts a stored project to its view. */
export function projectView(project: Project): ProjectView {
  return { id: project.id, org_id: project.orgId, name: project.name };
}

function userView(user: User): UserView {
  return {
    id: user.id,
    username: user.username,
    nickname: user.nickname,
    avatar_url: user.avatarUrl,
    roles: user.roles,
    disabled: user.disabled,
  };
}

/** What project administration needs. */
export interface ProjectAdminDeps {
  admins: AdminStore;
  accounts: AccountStore;
  accountService: AccountService;
  auth: Pick<AuthService, 'forgetClient' | 'forgetPermissions'>;
  /** Submits a stat for a user as a server would (the leaderboard service's `submit` with source `server`). */
  submit(projectId: number, slug: string, userId: number, value: number): Promise<MeView>;
}

/**
 * Project administration (§6) within a project the caller has already been checked against:
 * projects, clients, users, roles, and stats submitted for any user.
 */
export class ProjectAdminService {
  constructor(private readonly deps: ProjectAdminDeps) {}

  /** The projects of an organisation, by id. */
  async listProjects(orgId: number): Promise<{ projects: ProjectView[] }> {
    return { projects: (await this.deps.admins.listProjects(orgId)).map(projectView) };
  }

  /** One project; 404 `Project not found`. */
  async getProject(projectId: number): Promise<ProjectView> {
    const project = await this.deps.accounts.getProject(projectId);
    if (!project) throw notFound('Project not found');
    return projectView(project);
  }

  /** Creates a project with a client in the organisation; the secret is shown this once. */
  async createProject(orgId: number, name: string): Promise<ProjectCredentials> {
    if (name.trim() === '') throw badRequest('Project name must not be empty');
    const org = await this.deps.admins.getOrganisation(orgId);
    if (!org) throw notFound('Organisation not found');
    return this.deps.accountService.createProjectIn(org, name);
  }

  /** The clients of a project, without secrets. */
  async listClients(projectId: number): Promise<{ clients: ClientView[] }> {
    const clients = await this.deps.admins.listClients(projectId);
    return { clients: clients.map((c) => ({ client_id: c.clientId, created_at: isoTime(c.createdAt) })) };
  }

  /** Issues another client of the project. */
  createClient(projectId: number): Promise<ClientCredentials> {
    return this.deps.accountService.createClient(projectId);
  }

  /** Gives a client a new secret, shown this once; the old one stops working. */
  async rotateClientSecret(projectId: number, clientId: string): Promise<ClientCredentials> {
    const secret = `cs_${randomBytes(32).toString('base64url')}`;
    if (!(await this.deps.admins.replaceClientSecret(projectId, clientId, sha256Hex(secret)))) {
      throw notFound('Client not found');
    }
    // Other instances drop their cached hash within the auth service's client cache time (5 s).
    this.deps.auth.forgetClient(clientId);
    return { client_id: clientId, client_secret: secret };
  }

  /** A page of the project's users by id. */
  async listUsers(projectId: number, request: PageRequest): Promise<{ users: UserView[] } & PageInfo> {
    const { page, page_size, offset } = pageOf(request);
    const [users, total] = await Promise.all([
      this.deps.admins.listUsers(projectId, offset, page_size),
      this.deps.admins.countUsers(projectId),
    ]);
    return { users: users.map(userView), page, page_size, total };
  }

  /** One user; 404 `User not found`. */
  async getUser(projectId: number, userId: number): Promise<UserView> {
    const user = await this.deps.accounts.findUserById(projectId, userId);
    if (!user) throw notFound('User not found');
    return userView(user);
  }

  /**
   * Changes a user's profile, roles and/or disabled flag; roles are checked before anything
   * changes (400 for unknown ones). Disabling refuses the user's tokens at once here and within
   * the permission cache time elsewhere, and drops its refresh tokens.
   */
  async updateUser(projectId: number, userId: number, change: UserChange): Promise<UserView> {
    await this.getUser(projectId, userId);
    if (change.roles !== undefined) await this.deps.accountService.setUserRoles(projectId, userId, change.roles);
    if (change.disabled !== undefined) {
      await this.deps.accounts.setUserDisabled(projectId, userId, change.disabled);
      this.deps.auth.forgetPermissions(projectId, userId);
    }
    const profile: { nickname?: string; avatarUrl?: string | null } = {};
    if (change.nickname !== undefined) profile.nickname = change.nickname;
    if (change.avatar_url !== undefined) profile.avatarUrl = change.avatar_url;
    if (Object.keys(profile).length > 0) await this.deps.accounts.updateProfile(projectId, userId, profile);
    return this.getUser(projectId, userId);
  }

  /** The roles of the project, by name. */
  async listRoles(projectId: number): Promise<{ roles: RoleView[] }> {
    return { roles: await this.deps.accounts.listRoles(projectId) };
  }

  /** Creates a role; 409 when the project has one of that name. */
  async createRole(projectId: number, name: string, permissions: string[]): Promise<RoleView> {
    if (await this.findRole(projectId, name)) throw conflict(`Role '${name}' already exists`);
    const saved = await this.deps.accountService.createRole(projectId, name, permissions);
    return { name: saved.name, permissions: saved.permissions };
  }

  /** Replaces a role's permissions (effective within the permission cache time); 404 `Role not found`. */
  async updateRole(projectId: number, name: string, permissions: string[]): Promise<RoleView> {
    if (!(await this.findRole(projectId, name))) throw notFound('Role not found');
    const saved = await this.deps.accountService.createRole(projectId, name, permissions);
    return { name: saved.name, permissions: saved.permissions };
  }

  /** Submits a stat for a user of the project, as a game server would; 404 `User not found`. */
  async submitStat(projectId: number, slug: string, userId: number, value: number): Promise<MeView> {
    await this.getUser(projectId, userId);
    return this.deps.submit(projectId, slug, userId, value);
  }

  private async findRole(projectId: number, name: string): Promise<RoleView | undefined> {
    return (await this.deps.accounts.listRoles(projectId)).find((role) => role.name === name);
  }
}
