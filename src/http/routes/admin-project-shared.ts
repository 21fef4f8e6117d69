/** What the project administration routes (admin-project*.ts) share. */

import type { AdminPermission } from '../../core/admin/admin-permissions.js';
import type { ProjectAdminService } from '../../core/admin/project-admin-service.js';
import { type AdminGuard, adminAccess } from '../admin-auth-hook.js';

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
