/** The users of a project (§6): listing, reading, editing. */
import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import { PageQuery, ProjectParams, UpdateUserBody, UserParams, UserSchema, UsersPageSchema } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import type { HttpApp } from '../server.js';
import { type AdminProjectDeps, adminRoute, idOf, inProject, SCOPE } from './admin-project-shared.js';

/** The user id of the URL; 404 `User not found` unless it is a positive integer. */
const userIdOf = (raw: string) => idOf(raw, 'User not found');

/** `/admin/projects/:project_id/users...`: needs `user.manage`. */
export function projectUserRoutes(app: HttpApp, deps: AdminProjectDeps): void {
  const { guard, projects } = deps;
  const userManage = inProject(guard, ADMIN_PERMISSIONS.userManage);

  app.get(
    '/admin/projects/:project_id/users',
    adminRoute(userManage, {
      description: `The project’s users by id, one page. Needs \`user.manage\`. ${SCOPE}`,
      params: ProjectParams,
      querystring: PageQuery,
      response: { 200: UsersPageSchema, ...errorResponses },
    }),
    (request) => projects.listUsers(request.projectId, request.query),
  );

  app.get(
    '/admin/projects/:project_id/users/:user_id',
    adminRoute(userManage, {
      description: `One user; 404 \`User not found\`. Needs \`user.manage\`. ${SCOPE}`,
      params: UserParams,
      response: { 200: UserSchema, ...errorResponses },
    }),
    (request) => projects.getUser(request.projectId, userIdOf(request.params.user_id)),
  );

  app.patch(
    '/admin/projects/:project_id/users/:user_id',
    adminRoute(userManage, {
      description:
        'Changes a user’s nickname, avatar_url, roles (exactly the roles given; an unknown role is a 400 ' +
        'and changes nothing) and/or `disabled`. Role changes reach existing tokens within 10 s. Disabling refuses ' +
        'login and guest sign-in (401 `Account disabled`) and refresh, and the user’s tokens within 10 s on every ' +
        'instance (sockets close with 1008); tokens issued before a disable stay refused after re-enabling. ' +
        `Needs \`user.manage\`. ${SCOPE}`,
      params: UserParams,
      body: UpdateUserBody,
      response: { 200: UserSchema, ...errorResponses },
    }),
    (request) => projects.updateUser(request.projectId, userIdOf(request.params.user_id), request.body),
  );
}
