import { randomBytes } from 'node:crypto';
import type { AccountStore, Project } from '../auth/account-store.js';
import { PASSWORD_MIN_LENGTH } from '../auth/auth-service.js';
import {
  DEFAULT_SCRYPT_PARAMS,
  dummyHash,
  hashPassword,
  type ScryptParams,
  verifyPassword,
} from '../auth/passwords.js';
import { AppError, conflict, notFound, type ValidationIssue, validationFailed } from '../errors.js';
import type { AdminCaller } from './admin-caller.js';
import { type AdminPermission, type AdminRole, isAdminRole, ROLE_PERMISSIONS, roleHolds } from './admin-permissions.js';
import type { Admin, AdminStore, ServerKeyGrant } from './admin-store.js';
import { AdminTokens } from './admin-tokens.js';
import { looksLikeServerKey } from './server-keys.js';

/** An admin as the API and the CLI show it. */
export interface AdminView {
  id: number;
  org_id: number;
  email: string;
  role: AdminRole;
}

/** `GET /admin/me`: the admin with the permissions of their role. */
export interface AdminMe extends AdminView {
  permissions: string[];
}

/** The `POST /admin/auth/login` answer. */
export interface AdminLogin {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
}

/** Settings of the admin service. */
export interface AdminServiceOptions {
  admins: AdminStore;
  projects: Pick<AccountStore, 'getProject'>;
  /** Recognises server keys; without it, admin routes take admin tokens only. */
  serverKeys?: { authenticate(credential: string): Promise<ServerKeyGrant | null> };
  /** The HS256 key shared with client tokens (CDS_JWT_SECRET). */
  jwtSecret: Uint8Array;
  tokenTtlSeconds?: number;
  scrypt?: ScryptParams;
}

/** The email of the owner admin made on first start. */
export const FIRST_OWNER_EMAIL = 'admin@localhost';

const INVALID_TOKEN = 'Invalid or expired token';
const INVALID_LOGIN = 'Invalid email or password';
const PROJECT_NOT_FOUND = 'Project not found';
const ORGANISATION_NOT_FOUND = 'Organisation not found';
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
const ID = /^[1-9][0-9]{0,15}$/;

/** Trims and lower-cases an email, so one address is one admin whatever its spelling. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The largest id either engine stores (PostgreSQL's INTEGER): a larger one names nothing. */
export const MAX_ID = 2_147_483_647;

/** Parses an id taken from a URL; null unless it is a positive decimal integer up to MAX_ID. */
export function parseId(raw: string | number | undefined): number | null {
  const text = String(raw ?? '');
  if (!ID.test(text)) return null;
  const id = Number(text);
  return id <= MAX_ID ? id : null;
}

/** Converts a stored admin to its view. */
export function adminView(admin: Admin): AdminView {
  return { id: admin.id, org_id: admin.orgId, email: admin.email, role: admin.role };
}

/**
 * Admins (§6): creation (CLI, first start), login with admin tokens, and the checks every admin
 * route runs: who is asking, whether the project is theirs, whether their role allows it.
 */
export class AdminService {
  private readonly admins: AdminStore;
  private readonly projects: Pick<AccountStore, 'getProject'>;
  private readonly tokens: AdminTokens;
  private readonly scrypt: ScryptParams;
  private readonly serverKeys: AdminServiceOptions['serverKeys'];

  constructor(options: AdminServiceOptions) {
    this.admins = options.admins;
    this.projects = options.projects;
    this.serverKeys = options.serverKeys;
    this.tokens = new AdminTokens(options.jwtSecret, options.tokenTtlSeconds ?? 3600);
    this.scrypt = options.scrypt ?? DEFAULT_SCRYPT_PARAMS;
  }

  /** Creates an admin of an existing organisation; 404 for an unknown one, 409 for a taken email. */
  async createAdmin(orgId: number, input: { email: string; password: string; role: string }): Promise<AdminView> {
    const email = normalizeEmail(input.email);
    const issues: ValidationIssue[] = [];
    if (!EMAIL.test(email)) issues.push({ loc: ['body', 'email'], msg: 'must be an email address', type: 'format' });
    if ([...input.password].length < PASSWORD_MIN_LENGTH) {
      issues.push({
        loc: ['body', 'password'],
        msg: `must be at least ${PASSWORD_MIN_LENGTH} characters`,
        type: 'minLength',
      });
    }
    if (!isAdminRole(input.role)) {
      issues.push({ loc: ['body', 'role'], msg: 'must be one of owner, editor, viewer', type: 'enum' });
    }
    if (issues.length > 0) throw validationFailed(issues);
    if (!(await this.admins.getOrganisation(orgId))) throw notFound(ORGANISATION_NOT_FOUND);
    const hash = await hashPassword(input.password, this.scrypt);
    const admin = await this.admins.createAdmin(orgId, email, hash, input.role as AdminRole);
    if (admin === 'taken') throw conflict('Email already registered');
    return adminView(admin);
  }

  /** Creates the first start's owner admin with a random password, returned this once. */
  async createFirstOwner(orgId: number): Promise<AdminView & { password: string }> {
    const password = randomBytes(18).toString('base64url');
    const admin = await this.createAdmin(orgId, { email: FIRST_OWNER_EMAIL, password, role: 'owner' });
    return { ...admin, password };
  }

  /** Signs an admin in; any mismatch is one 401 after the same scrypt work. */
  async login(input: { email: string; password: string }): Promise<AdminLogin> {
    const admin = await this.admins.findAdminByEmail(normalizeEmail(input.email));
    const matches = await verifyPassword(input.password, admin?.passwordHash ?? (await dummyHash(this.scrypt)));
    if (!admin || !matches) throw new AppError('invalid_login', INVALID_LOGIN);
    const signed = await this.tokens.sign(admin.id);
    return { access_token: signed.token, token_type: 'bearer', expires_in: signed.expiresIn };
  }

  /** The admin of a valid admin token who still exists; 401 otherwise (a client token included). */
  async authenticate(token: string | undefined): Promise<Admin> {
    const adminId = token ? await this.tokens.verify(token) : null;
    const admin = adminId === null ? null : await this.admins.findAdminById(adminId);
    if (!admin) throw new AppError('invalid_token', INVALID_TOKEN);
    return admin;
  }

  /**
   * The caller of an admin route: the admin of a valid admin token, or, where `serverKeys` is
   * true (routes inside one project), a live server key. 401 otherwise.
   */
  async authenticateCaller(token: string | undefined, options: { serverKeys: boolean }): Promise<AdminCaller> {
    if (token && looksLikeServerKey(token)) {
      const grant = options.serverKeys && this.serverKeys ? await this.serverKeys.authenticate(token) : null;
      if (!grant) throw new AppError('invalid_token', INVALID_TOKEN);
      return { kind: 'server_key', keyId: grant.id, orgId: grant.orgId, projectId: grant.projectId, role: grant.role };
    }
    return { kind: 'admin', ...(await this.authenticate(token)) };
  }

  /** The admin with the permissions of their role. */
  me(admin: Admin): AdminMe {
    return { ...adminView(admin), permissions: [...ROLE_PERMISSIONS[admin.role]].sort() };
  }

  /** Throws 403 unless the admin's role holds the permission. */
  requirePermission(caller: Pick<AdminCaller, 'role'>, permission: AdminPermission): void {
    if (!roleHolds(caller.role, permission)) throw new AppError('forbidden', `Permission '${permission}' required`);
  }

  /** The admin's own organisation when `rawOrgId` names it; 404 otherwise (another tenant's, malformed). */
  requireOrganisation(caller: Pick<AdminCaller, 'orgId'>, rawOrgId: string | number | undefined): number {
    if (parseId(rawOrgId) !== caller.orgId) throw notFound(ORGANISATION_NOT_FOUND);
    return caller.orgId;
  }

  /**
   * The project `rawProjectId` names when it belongs to the admin's organisation (and to
   * `rawOrgId` when the URL names one); 404 `Project not found` otherwise, the same answer
   * whether the project is another tenant's or does not exist. A server key has one project only.
   */
  async requireProject(
    caller: AdminCaller,
    rawProjectId: string | number | undefined,
    rawOrgId?: string | number,
  ): Promise<Project> {
    const projectId = parseId(rawProjectId);
    const orgMatches = rawOrgId === undefined || parseId(rawOrgId) === caller.orgId;
    const keyMatches = caller.kind === 'admin' || caller.projectId === projectId;
    const project = projectId === null || !orgMatches || !keyMatches ? null : await this.projects.getProject(projectId);
    if (!project || project.orgId !== caller.orgId) throw notFound(PROJECT_NOT_FOUND);
    return project;
  }
}
