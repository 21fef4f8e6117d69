/** What the admin routes share, most of them under `/admin/projects/:project_id`. */

import type { FastifyRequest } from 'fastify';
import type { AdminPermission } from '../../core/admin/admin-permissions.js';
import { parseId } from '../../core/admin/admin-service.js';
import type { ProjectAdminService } from '../../core/admin/project-admin-service.js';
import { notFound } from '../../core/errors.js';
import { type AdminGuard, adminAccess } from '../admin-auth-hook.js';
import { adminSecurity } from '../schemas/admin.js';

/** What the project administration routes use. */
export interface AdminProjectDeps {
  guard: AdminGuard;
  projects: ProjectAdminService;
}

export const tags = ['admin'];
export const OWNER_ONLY = 'Owner only (`project.manage`): a client secret opens every player’s data.';
export const SCOPE = 'A project of another organisation answers 404 `Project not found`.';

/** The guard of a route under `/admin/projects/:project_id`, with the permission it needs (none: any role). */
export const inProject = (guard: AdminGuard, permission?: AdminPermission) =>
  adminAccess(guard, { scope: 'project', ...(permission ? { permission } : {}) });

/** A check an admin route runs on each request before its handler (`adminAccess`, or one of its own). */
type AdminHook = (request: FastifyRequest) => Promise<void>;

/**
 * An admin route's options: its guards, and its schema (description, params, body, answers) with
 * the admin token as its security, listed under `admin` unless the schema names its `tags`.
 */
export function adminRoute<Schema extends object>(onRequest: AdminHook | AdminHook[], schema: Schema) {
  return { onRequest, schema: { tags, ...schema, security: adminSecurity } };
}

/** The id a URL names; 404 `missing` unless it is a positive integer. */
export function idOf(raw: string, missing: string): number {
  const id = parseId(raw);
  if (id === null) throw notFound(missing);
  return id;
}
