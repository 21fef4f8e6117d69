import type { AdminService } from '../../core/admin/admin-service.js';
import { adminAccess, adminOf, decorateAdminRequests } from '../admin-auth-hook.js';
import { AdminLoginBody, AdminMeSchema, AdminTokenSchema } from '../schemas/admin.js';
import { ErrorSchema, errorResponses } from '../schemas/common.js';
import type { HttpApp } from '../server.js';
import { adminRoute, tags } from './admin-project-shared.js';

/** Admin login and the signed-in admin (§6). */
export function adminAuthRoutes(app: HttpApp, deps: { admins: AdminService }): void {
  const { admins } = deps;
  decorateAdminRequests(app);

  app.post(
    '/admin/auth/login',
    {
      schema: {
        tags,
        description:
          'Signs an admin in with email and password. A wrong email or password answers the same 401 ' +
          '`Invalid email or password` after the same work. The token is an HS256 JWT (typ "admin") for ' +
          '`Authorization: Bearer` on admin routes; it is refused on client routes.',
        body: AdminLoginBody,
        response: {
          200: AdminTokenSchema,
          401: ErrorSchema,
          413: ErrorSchema,
          415: ErrorSchema,
          422: ErrorSchema,
          429: ErrorSchema,
        },
      },
    },
    (request) => admins.login(request.body),
  );

  app.get(
    '/admin/me',
    adminRoute(adminAccess(admins), {
      description: 'The signed-in admin: organisation, role and the permissions the role holds.',
      response: { 200: AdminMeSchema, ...errorResponses },
    }),
    async (request) => admins.me(adminOf(request)),
  );
}
