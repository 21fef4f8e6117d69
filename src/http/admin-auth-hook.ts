import type { FastifyRequest } from 'fastify';
import type { AdminCaller } from '../core/admin/admin-caller.js';
import type { AdminPermission } from '../core/admin/admin-permissions.js';
import type { AdminService } from '../core/admin/admin-service.js';
import type { Admin } from '../core/admin/admin-store.js';
import { looksLikeServerKey } from '../core/admin/server-keys.js';
import { type ClientAuthenticator, credentialsFromHeaders, requirePermission } from './auth-hook.js';
import type { HttpApp } from './server.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller of an admin route, an admin or a server key; set by `adminAccess` hooks (null before). */
    admin: AdminCaller | null;
  }
}

/** The checks of admin routes (§6), as `AdminService` runs them. */
export type AdminGuard = Pick<
  AdminService,
  'authenticateCaller' | 'requireOrganisation' | 'requireProject' | 'requirePermission'
>;

/**
 * What an admin route needs beyond a valid admin token: a permission, and which tenant its URL
 * names — `org` (`:org_id`), `project` (`:project_id`) or `org-project` (both, the document store).
 */
export interface AdminAccess {
  permission?: AdminPermission;
  scope?: 'org' | 'project' | 'org-project';
}

/** Adds the `admin` request property once, however many admin route groups register. */
export function decorateAdminRequests(app: HttpApp): void {
  if (!app.hasRequestDecorator('admin')) app.decorateRequest('admin', null);
}

/**
 * An `onRequest` hook for an admin route, run before validation so that nothing about a project
 * leaks to a stranger: token (401), then the tenant of the URL (404, the same for another
 * organisation's project and a missing one), then the role's permission (403). A project in
 * scope becomes `request.projectId`, as on client routes. Server keys (§9) are taken only by
 * routes inside one project: a key belongs to one project, so elsewhere it is a 401.
 */
export function adminAccess(guard: AdminGuard, access: AdminAccess = {}) {
  const inProject = access.scope === 'project' || access.scope === 'org-project';
  return async (request: FastifyRequest): Promise<void> => {
    const token = credentialsFromHeaders(request).accessToken;
    const caller = await guard.authenticateCaller(token, { serverKeys: inProject });
    request.admin = caller;
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    if (access.scope === 'org') guard.requireOrganisation(caller, params.org_id);
    if (inProject) {
      const orgId = access.scope === 'org-project' ? (params.org_id ?? '') : undefined;
      request.projectId = (await guard.requireProject(caller, params.project_id, orgId)).id;
    }
    if (access.permission) guard.requirePermission(caller, access.permission);
  };
}

/**
 * An `onRequest` hook for a client route a game server may also call: a player with `permission`
 * (§1, client credentials first), or a server key alone (`Authorization: Bearer sk_…`, client
 * credentials optional) holding `keyPermission`, for its own project (`request.projectId`), with
 * `request.admin` set to it and no user.
 */
export function playerOrServerKey(
  auth: ClientAuthenticator,
  guard: AdminGuard,
  permission: string,
  keyPermission: AdminPermission,
) {
  const player = requirePermission(auth, permission);
  return async (request: FastifyRequest): Promise<void> => {
    const token = credentialsFromHeaders(request).accessToken;
    if (token === undefined || !looksLikeServerKey(token)) return player(request);
    const caller = await guard.authenticateCaller(token, { serverKeys: true });
    if (caller.kind !== 'server_key') throw new Error('a server key authenticated as an admin');
    guard.requirePermission(caller, keyPermission);
    request.admin = caller;
    request.projectId = caller.projectId;
  };
}

/** The caller a guarded route runs for: an admin or a server key. */
export function callerOf(request: FastifyRequest): AdminCaller {
  if (!request.admin) throw new Error('callerOf() on a route without an adminAccess hook');
  return request.admin;
}

/** The admin a guarded route outside any project runs for (such routes refuse server keys). */
export function adminOf(request: FastifyRequest): Admin {
  const caller = callerOf(request);
  if (caller.kind !== 'admin') throw new Error('adminOf() on a route that admits server keys');
  return caller;
}
