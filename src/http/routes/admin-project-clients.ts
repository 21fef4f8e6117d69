/** The clients of a project (§6): listing, issuing, rotating secrets. */
import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import { ClientCredentialsSchema, ClientParams, ClientsSchema, NoBody, ProjectParams } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import type { HttpApp } from '../server.js';
import { type AdminProjectDeps, adminRoute, inProject, OWNER_ONLY, SCOPE } from './admin-project-shared.js';

/** `/admin/projects/:project_id/clients...`: owner only. */
export function projectClientRoutes(app: HttpApp, deps: AdminProjectDeps): void {
  const { guard, projects } = deps;
  const projectManage = inProject(guard, ADMIN_PERMISSIONS.projectManage);

  app.get(
    '/admin/projects/:project_id/clients',
    adminRoute(projectManage, {
      description: `The clients of a project, without secrets. ${OWNER_ONLY} ${SCOPE}`,
      params: ProjectParams,
      response: { 200: ClientsSchema, ...errorResponses },
    }),
    (request) => projects.listClients(request.projectId),
  );

  app.post(
    '/admin/projects/:project_id/clients',
    adminRoute(projectManage, {
      description: `Issues another client; its secret is shown once. ${OWNER_ONLY} ${SCOPE}`,
      params: ProjectParams,
      body: NoBody,
      response: { 201: ClientCredentialsSchema, ...errorResponses },
    }),
    async (request, reply) => reply.status(201).send(await projects.createClient(request.projectId)),
  );

  app.post(
    '/admin/projects/:project_id/clients/:client_id/rotate',
    adminRoute(projectManage, {
      description:
        'Gives a client a new secret, shown once; the old secret stops working (at once on this instance, ' +
        `within 5 s on others). 404 \`Client not found\`. ${OWNER_ONLY} ${SCOPE}`,
      params: ClientParams,
      body: NoBody,
      response: { 200: ClientCredentialsSchema, ...errorResponses },
    }),
    (request) => projects.rotateClientSecret(request.projectId, request.params.client_id),
  );
}
