import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import { adminAccess, adminOf, decorateAdminRequests } from '../admin-auth-hook.js';
import {
  CreateProjectBody,
  OrgParams,
  ProjectCredentialsSchema,
  ProjectParams,
  ProjectSchema,
  ProjectsSchema,
} from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import type { HttpApp } from '../server.js';
import { projectClientRoutes } from './admin-project-clients.js';
import { projectRoleRoutes } from './admin-project-roles.js';
import { type AdminProjectDeps, adminRoute, inProject, OWNER_ONLY, SCOPE } from './admin-project-shared.js';
import { projectUserRoutes } from './admin-project-users.js';

export type { AdminProjectDeps };

/** Projects, clients, users and roles of the admin's organisation (§6) under `/admin/...`. */
export function adminProjectRoutes(app: HttpApp, deps: AdminProjectDeps): void {
  const { guard, projects } = deps;
  decorateAdminRequests(app);

  app.get(
    '/admin/orgs/:org_id/projects',
    adminRoute(adminAccess(guard, { scope: 'org' }), {
      description:
        'The projects of the admin’s organisation (any role). Another organisation answers 404 `Organisation not found`.',
      params: OrgParams,
      response: { 200: ProjectsSchema, ...errorResponses },
    }),
    (request) => projects.listProjects(adminOf(request).orgId),
  );

  app.post(
    '/admin/orgs/:org_id/projects',
    adminRoute(adminAccess(guard, { scope: 'org', permission: ADMIN_PERMISSIONS.projectManage }), {
      description: `Creates a project with the \`player\` role and one client; the secret is shown once. ${OWNER_ONLY}`,
      params: OrgParams,
      body: CreateProjectBody,
      response: { 201: ProjectCredentialsSchema, ...errorResponses },
    }),
    async (request, reply) =>
      reply.status(201).send(await projects.createProject(adminOf(request).orgId, request.body.name)),
  );

  app.get(
    '/admin/projects/:project_id',
    adminRoute(inProject(guard), {
      description: `One project of the admin’s organisation (any role). ${SCOPE}`,
      params: ProjectParams,
      response: { 200: ProjectSchema, ...errorResponses },
    }),
    (request) => projects.getProject(request.projectId),
  );
  projectClientRoutes(app, deps);
  projectUserRoutes(app, deps);
  projectRoleRoutes(app, deps);
}
