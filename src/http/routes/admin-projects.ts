import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import { adminAccess, adminOf, decorateAdminRequests } from '../admin-auth-hook.js';
import {
  adminSecurity,
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
import { type AdminProjectDeps, inProject, OWNER_ONLY, SCOPE, tags } from './admin-project-shared.js';
import { projectUserRoutes } from './admin-project-users.js';

export type { AdminProjectDeps };

/** Projects, clients, users and roles of the admin's organisation (§6) under `/admin/...`. */
export function adminProjectRoutes(app: HttpApp, deps: AdminProjectDeps): void {
  const { guard, projects } = deps;
  decorateAdminRequests(app);

  app.get(
    '/admin/orgs/:org_id/projects',
    {
      onRequest: adminAccess(guard, { scope: 'org' }),
      schema: {
        tags,
        description:
          'The projects of the admin’s organisation (any role). Another organisation answers 404 `Organisation not found`.',
        security: adminSecurity,
        params: OrgParams,
        response: { 200: ProjectsSchema, ...errorResponses },
      },
    },
    (request) => projects.listProjects(adminOf(request).orgId),
  );

  app.post(
    '/admin/orgs/:org_id/projects',
    {
      onRequest: adminAccess(guard, { scope: 'org', permission: ADMIN_PERMISSIONS.projectManage }),
      schema: {
        tags,
        description: `Creates a project with the \`player\` role and one client; the secret is shown once. ${OWNER_ONLY}`,
        security: adminSecurity,
        params: OrgParams,
        body: CreateProjectBody,
        response: { 201: ProjectCredentialsSchema, ...errorResponses },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await projects.createProject(adminOf(request).orgId, request.body.name)),
  );

  app.get(
    '/admin/projects/:project_id',
    {
      onRequest: inProject(guard),
      schema: {
        tags,
        description: `One project of the admin’s organisation (any role). ${SCOPE}`,
        security: adminSecurity,
        params: ProjectParams,
        response: { 200: ProjectSchema, ...errorResponses },
      },
    },
    (request) => projects.getProject(request.projectId),
  );
  projectClientRoutes(app, deps);
  projectUserRoutes(app, deps);
  projectRoleRoutes(app, deps);
}
