/** The roles of a project (§6): listing, creating, replacing permissions. */
import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import {
  adminConflictResponses,
  CreateRoleBody,
  ProjectParams,
  RoleParams,
  RoleSchema,
  RolesSchema,
  UpdateRoleBody,
} from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import type { HttpApp } from '../server.js';
import { type AdminProjectDeps, adminRoute, inProject, SCOPE } from './admin-project-shared.js';

/** `/admin/projects/:project_id/roles...`: needs `user.manage`. */
export function projectRoleRoutes(app: HttpApp, deps: AdminProjectDeps): void {
  const { guard, projects } = deps;
  const userManage = inProject(guard, ADMIN_PERMISSIONS.userManage);

  app.get(
    '/admin/projects/:project_id/roles',
    adminRoute(userManage, {
      description: `The project’s roles by name. Needs \`user.manage\`. ${SCOPE}`,
      params: ProjectParams,
      response: { 200: RolesSchema, ...errorResponses },
    }),
    (request) => projects.listRoles(request.projectId),
  );

  app.post(
    '/admin/projects/:project_id/roles',
    adminRoute(userManage, {
      description: `Creates a role; 409 when one of that name exists. Needs \`user.manage\`. ${SCOPE}`,
      params: ProjectParams,
      body: CreateRoleBody,
      response: { 201: RoleSchema, ...adminConflictResponses },
    }),
    async (request, reply) =>
      reply.status(201).send(await projects.createRole(request.projectId, request.body.name, request.body.permissions)),
  );

  app.put(
    '/admin/projects/:project_id/roles/:name',
    adminRoute(userManage, {
      description:
        'Replaces the permissions of a role; 404 `Role not found`. Existing tokens see the change within 10 s. ' +
        `Needs \`user.manage\`. ${SCOPE}`,
      params: RoleParams,
      body: UpdateRoleBody,
      response: { 200: RoleSchema, ...errorResponses },
    }),
    (request) => projects.updateRole(request.projectId, request.params.name, request.body.permissions),
  );
}
