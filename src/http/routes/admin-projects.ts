import { ADMIN_PERMISSIONS, type AdminPermission } from '../../core/admin/admin-permissions.js';
import { parseId } from '../../core/admin/admin-service.js';
import type { ProjectAdminService } from '../../core/admin/project-admin-service.js';
import { notFound } from '../../core/errors.js';
import { type AdminGuard, adminAccess, adminOf, decorateAdminRequests } from '../admin-auth-hook.js';
import {
  adminConflictResponses,
  adminErrorResponses,
  adminSecurity,
  ClientCredentialsSchema,
  ClientParams,
  ClientsSchema,
  CreateProjectBody,
  CreateRoleBody,
  NoBody,
  OrgParams,
  PageQuery,
  ProjectCredentialsSchema,
  ProjectParams,
  ProjectSchema,
  ProjectsSchema,
  RoleParams,
  RoleSchema,
  RolesSchema,
  UpdateRoleBody,
  UpdateUserBody,
  UserParams,
  UserSchema,
  UsersPageSchema,
} from '../schemas/admin.js';
import type { HttpApp } from '../server.js';

/** What the project administration routes use. */
export interface AdminProjectDeps {
  guard: AdminGuard;
  projects: ProjectAdminService;
}

const tags = ['admin'];
const OWNER_ONLY = 'Owner only (`project.manage`): a client secret opens every player’s data.';
const SCOPE = 'A project of another organisation answers 404 `Project not found`.';

/** The user id of the URL; 404 `User not found` unless it is a positive integer. */
function userIdOf(raw: string): number {
  const id = parseId(raw);
  if (id === null) throw notFound('User not found');
  return id;
}

/** Projects, clients, users and roles of the admin's organisation (§6) under `/admin/...`. */
export function adminProjectRoutes(app: HttpApp, deps: AdminProjectDeps): void {
  const { guard, projects } = deps;
  decorateAdminRequests(app);
  const inProject = (permission?: AdminPermission) =>
    adminAccess(guard, { scope: 'project', ...(permission ? { permission } : {}) });
  const userManage = inProject(ADMIN_PERMISSIONS.userManage);
  const projectManage = inProject(ADMIN_PERMISSIONS.projectManage);

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
        response: { 200: ProjectsSchema, ...adminErrorResponses },
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
        response: { 201: ProjectCredentialsSchema, ...adminErrorResponses },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await projects.createProject(adminOf(request).orgId, request.body.name)),
  );

  app.get(
    '/admin/projects/:project_id',
    {
      onRequest: inProject(),
      schema: {
        tags,
        description: `One project of the admin’s organisation (any role). ${SCOPE}`,
        security: adminSecurity,
        params: ProjectParams,
        response: { 200: ProjectSchema, ...adminErrorResponses },
      },
    },
    (request) => projects.getProject(request.projectId),
  );

  app.get(
    '/admin/projects/:project_id/clients',
    {
      onRequest: projectManage,
      schema: {
        tags,
        description: `The clients of a project, without secrets. ${OWNER_ONLY} ${SCOPE}`,
        security: adminSecurity,
        params: ProjectParams,
        response: { 200: ClientsSchema, ...adminErrorResponses },
      },
    },
    (request) => projects.listClients(request.projectId),
  );

  app.post(
    '/admin/projects/:project_id/clients',
    {
      onRequest: projectManage,
      schema: {
        tags,
        description: `Issues another client; its secret is shown once. ${OWNER_ONLY} ${SCOPE}`,
        security: adminSecurity,
        params: ProjectParams,
        body: NoBody,
        response: { 201: ClientCredentialsSchema, ...adminErrorResponses },
      },
    },
    async (request, reply) => reply.status(201).send(await projects.createClient(request.projectId)),
  );

  app.post(
    '/admin/projects/:project_id/clients/:client_id/rotate',
    {
      onRequest: projectManage,
      schema: {
        tags,
        description:
          'Gives a client a new secret, shown once; the old secret stops working (at once on this instance, ' +
          `within 5 s on others). 404 \`Client not found\`. ${OWNER_ONLY} ${SCOPE}`,
        security: adminSecurity,
        params: ClientParams,
        body: NoBody,
        response: { 200: ClientCredentialsSchema, ...adminErrorResponses },
      },
    },
    (request) => projects.rotateClientSecret(request.projectId, request.params.client_id),
  );

  app.get(
    '/admin/projects/:project_id/users',
    {
      onRequest: userManage,
      schema: {
        tags,
        description: `The project’s users by id, one page. Needs \`user.manage\`. ${SCOPE}`,
        security: adminSecurity,
        params: ProjectParams,
        querystring: PageQuery,
        response: { 200: UsersPageSchema, ...adminErrorResponses },
      },
    },
    (request) => projects.listUsers(request.projectId, request.query),
  );

  app.get(
    '/admin/projects/:project_id/users/:user_id',
    {
      onRequest: userManage,
      schema: {
        tags,
        description: `One user; 404 \`User not found\`. Needs \`user.manage\`. ${SCOPE}`,
        security: adminSecurity,
        params: UserParams,
        response: { 200: UserSchema, ...adminErrorResponses },
      },
    },
    (request) => projects.getUser(request.projectId, userIdOf(request.params.user_id)),
  );

  app.patch(
    '/admin/projects/:project_id/users/:user_id',
    {
      onRequest: userManage,
      schema: {
        tags,
        description:
          'Changes a user’s nickname, avatar_url, roles (exactly the roles given; an unknown role is a 400 ' +
          'and changes nothing) and/or `disabled`. Role changes reach existing tokens within 10 s. Disabling refuses ' +
          'login and guest sign-in (401 `Account disabled`) and refresh, and the user’s tokens within 10 s on every ' +
          'instance (sockets close with 1008); tokens issued before a disable stay refused after re-enabling. ' +
          `Needs \`user.manage\`. ${SCOPE}`,
        security: adminSecurity,
        params: UserParams,
        body: UpdateUserBody,
        response: { 200: UserSchema, ...adminErrorResponses },
      },
    },
    (request) => projects.updateUser(request.projectId, userIdOf(request.params.user_id), request.body),
  );

  app.get(
    '/admin/projects/:project_id/roles',
    {
      onRequest: userManage,
      schema: {
        tags,
        description: `The project’s roles by name. Needs \`user.manage\`. ${SCOPE}`,
        security: adminSecurity,
        params: ProjectParams,
        response: { 200: RolesSchema, ...adminErrorResponses },
      },
    },
    (request) => projects.listRoles(request.projectId),
  );

  app.post(
    '/admin/projects/:project_id/roles',
    {
      onRequest: userManage,
      schema: {
        tags,
        description: `Creates a role; 409 when one of that name exists. Needs \`user.manage\`. ${SCOPE}`,
        security: adminSecurity,
        params: ProjectParams,
        body: CreateRoleBody,
        response: { 201: RoleSchema, ...adminConflictResponses },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await projects.createRole(request.projectId, request.body.name, request.body.permissions)),
  );

  app.put(
    '/admin/projects/:project_id/roles/:name',
    {
      onRequest: userManage,
      schema: {
        tags,
        description:
          'Replaces the permissions of a role; 404 `Role not found`. Existing tokens see the change within 10 s. ' +
          `Needs \`user.manage\`. ${SCOPE}`,
        security: adminSecurity,
        params: RoleParams,
        body: UpdateRoleBody,
        response: { 200: RoleSchema, ...adminErrorResponses },
      },
    },
    (request) => projects.updateRole(request.projectId, request.params.name, request.body.permissions),
  );
}
