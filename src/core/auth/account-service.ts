import { randomBytes } from 'node:crypto';
import { badRequest, notFound } from '../errors.js';
import type { AccountStore, Organisation } from './account-store.js';
import type { AuthService } from './auth-service.js';
import { checkCredentials, createdUser } from './auth-service.js';
import { hashPassword } from './passwords.js';
import { PLAYER_PERMISSIONS, PLAYER_ROLE } from './player-role.js';
import { sha256Hex } from './tokens.js';

/** What creating a project reports; the secret is shown this once and only its hash is kept. */
export interface ProjectCredentials {
  org_id: number;
  project_id: number;
  client_id: string;
  client_secret: string;
}

/** A client's credentials, as issued. */
export interface ClientCredentials {
  client_id: string;
  client_secret: string;
}

/** A role as the CLI reports it. */
export interface RoleDescription {
  project_id: number;
  name: string;
  permissions: string[];
}

const ROLE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const PERMISSION_NAME = /^[A-Za-z0-9_.:-]{1,128}$/;
const BOOTSTRAP_NAME = 'default';

/** Administration of organisations, projects, clients, users and roles (CLI, first start, §6). */
export class AccountService {
  constructor(
    private readonly accounts: AccountStore,
    private readonly auth: AuthService,
  ) {}

  /**
   * On an empty database, creates organisation and project `default` with a client and returns
   * their credentials; null when anything exists (so it reports them only on the first start).
   */
  async bootstrapIfEmpty(): Promise<ProjectCredentials | null> {
    if (!(await this.accounts.isEmpty())) return null;
    const org = await this.accounts.ensureOrganisation(BOOTSTRAP_NAME);
    // Another instance starting at the same moment created it first; it reports the credentials.
    if (!org.created) return null;
    return this.createProjectIn(org, BOOTSTRAP_NAME);
  }

  /** Creates a project (and its organisation unless one of that name exists) with a client. */
  async createProject(orgName: string, projectName: string): Promise<ProjectCredentials> {
    if (orgName.trim() === '') throw badRequest('Organisation name must not be empty');
    if (projectName.trim() === '') throw badRequest('Project name must not be empty');
    return this.createProjectIn(await this.accounts.ensureOrganisation(orgName), projectName);
  }

  /** Creates a project with the `player` role and a client in an existing organisation (CLI, §6). */
  async createProjectIn(org: Organisation, projectName: string): Promise<ProjectCredentials> {
    const project = await this.accounts.createProject(org.id, projectName, {
      name: PLAYER_ROLE,
      permissions: [...PLAYER_PERMISSIONS],
    });
    const client = await this.createClient(project.id);
    return { org_id: org.id, project_id: project.id, ...client };
  }

  /** Issues a new client of a project: a random id and a 256-bit secret, stored hashed. */
  async createClient(projectId: number): Promise<ClientCredentials> {
    const clientId = `cid_${randomBytes(12).toString('hex')}`;
    const clientSecret = `cs_${randomBytes(32).toString('base64url')}`;
    await this.accounts.createClient(projectId, clientId, sha256Hex(clientSecret));
    return { client_id: clientId, client_secret: clientSecret };
  }

  /** Creates a user with exactly the roles named (default `player`); every role must exist. */
  async createUser(
    projectId: number,
    input: { username: string; password: string; roles?: string[] },
  ): Promise<{ id: number; username: string }> {
    checkCredentials(input.username, input.password);
    await this.requireProject(projectId);
    const roles = [...new Set(input.roles ?? [PLAYER_ROLE])];
    await this.requireRoles(projectId, roles);
    const passwordHash = await hashPassword(input.password);
    const user = createdUser(
      await this.accounts.createUser(
        projectId,
        { username: input.username, passwordHash, nickname: input.username, roles },
        this.auth.userEvents(projectId),
      ),
    );
    return { id: user.id, username: user.username };
  }

  /** Creates a role, or replaces the permissions of an existing one; effective here at once. */
  async createRole(projectId: number, name: string, permissions: string[]): Promise<RoleDescription> {
    if (!ROLE_NAME.test(name)) throw badRequest(`Invalid role name '${name}': use 1 to 64 letters, digits, _ . or -`);
    const invalid = permissions.find((permission) => !PERMISSION_NAME.test(permission));
    if (invalid !== undefined) throw badRequest(`Invalid permission name '${invalid}'`);
    await this.requireProject(projectId);
    const unique = [...new Set(permissions)];
    await this.accounts.upsertRole(projectId, { name, permissions: unique });
    this.auth.forgetPermissions();
    return { project_id: projectId, name, permissions: unique };
  }

  /** Gives a user exactly these roles; effective here at once, elsewhere within the cache time. */
  async setUserRoles(projectId: number, userId: number, roles: string[]): Promise<void> {
    await this.requireProject(projectId);
    if (!(await this.accounts.findUserById(projectId, userId))) throw notFound('User not found');
    const unique = [...new Set(roles)];
    await this.requireRoles(projectId, unique);
    await this.accounts.setUserRoles(projectId, userId, unique);
    this.auth.forgetPermissions(projectId, userId);
  }

  /** An access token for an existing user (`cds token`). */
  async issueToken(projectId: number, userId: number): Promise<{ access_token: string }> {
    await this.requireProject(projectId);
    const { access_token } = await this.auth.issueAccessToken(projectId, userId);
    return { access_token };
  }

  private async requireProject(projectId: number): Promise<void> {
    if (!(await this.accounts.getProject(projectId))) throw notFound('Project not found');
  }

  /** Throws a 400 naming every role that the project does not define. */
  private async requireRoles(projectId: number, roles: string[]): Promise<void> {
    const known = new Set((await this.accounts.listRoles(projectId)).map((role) => role.name));
    const unknown = roles.filter((role) => !known.has(role));
    if (unknown.length > 0) {
      throw badRequest(`Unknown role${unknown.length > 1 ? 's' : ''} in project ${projectId}: ${unknown.join(', ')}`);
    }
  }
}
