import type { FastifyRequest } from 'fastify';
import type { AdminPermission } from '../core/admin/admin-permissions.js';
import type { AdminService } from '../core/admin/admin-service.js';
import type { Admin } from '../core/ports.js';
import { credentialsFromHeaders } from './auth-hook.js';
import type { HttpApp } from './server.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in admin; set by `adminAccess` hooks (null before). */
    admin: Admin | null;
  }
}

/** The checks of admin routes (§6), as `AdminService` runs them. */
export type AdminGuard = Pick<
  AdminService,
  'authenticate' | 'requireOrganisation' | 'requireProject' | 'requirePermission'
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
 * scope becomes `request.projectId`, as on client routes.
 */
export function adminAccess(guard: AdminGuard, access: AdminAccess = {}) {
  return async (request: FastifyRequest): Promise<void> => {
    const admin = await guard.authenticate(credentialsFromHeaders(request).accessToken);
    request.admin = admin;
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    if (access.scope === 'org') guard.requireOrganisation(admin, params.org_id);
    if (access.scope === 'project' || access.scope === 'org-project') {
      const orgId = access.scope === 'org-project' ? (params.org_id ?? '') : undefined;
      request.projectId = (await guard.requireProject(admin, params.project_id, orgId)).id;
    }
    if (access.permission) guard.requirePermission(admin, access.permission);
  };
}

/** The admin a guarded route runs for. */
export function adminOf(request: FastifyRequest): Admin {
  if (!request.admin) throw new Error('adminOf() on a route without an adminAccess hook');
  return request.admin;
}
