import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import type { TtlService } from '../../core/documents/ttl-service.js';
import { type AdminGuard, decorateAdminRequests } from '../admin-auth-hook.js';
import { adminConflictResponses, ProjectCollectionParams } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import { DeletedTtlSchema, TtlBody, TtlSchema } from '../schemas/ttl.js';
import type { HttpApp } from '../server.js';
import { adminRoute, inProject, SCOPE } from './admin-project-shared.js';

/** What the TTL routes use. */
export interface AdminTtlDeps {
  guard: AdminGuard;
  ttl: TtlService;
}

const PATH = '/admin/projects/:project_id/ttl/:collection';

const EXPIRY =
  'A document of the collection (at any depth) whose field holds a number (epoch milliseconds) or an ISO 8601 ' +
  'time `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` not after now is absent to every read (GET 404, lists, ' +
  'queries, listeners, the admin store) and to writes (PUT creates it anew, PATCH and DELETE 404); any other ' +
  'value never expires. The service deletes it within 60 s of its time as an ordinary delete.';

/** Expiring documents of a collection (§17). */
export function adminTtlRoutes(app: HttpApp, deps: AdminTtlDeps): void {
  const { ttl } = deps;
  decorateAdminRequests(app);
  const anyRole = inProject(deps.guard);
  const manage = inProject(deps.guard, ADMIN_PERMISSIONS.documentManage);

  app.put(
    PATH,
    adminRoute(manage, {
      description:
        `Sets the collection’s TTL field (replacing one set before), in force within 1 s on every instance. ${EXPIRY} ` +
        'An index on the field (§15) is declared with it, unless one whose first field it is exists, and dropped ' +
        'with the setting; the sweep reads expired documents through it. A missing or non-string `field` → 422. ' +
        `Owners and editors. ${SCOPE}`,
      params: ProjectCollectionParams,
      body: TtlBody,
      response: { 200: TtlSchema, ...adminConflictResponses },
    }),
    (request) => ttl.set(request.projectId, request.params.collection, request.body.field),
  );

  app.get(
    PATH,
    adminRoute(anyRole, {
      description: `The collection’s TTL field; none → 404 \`TTL not set\` (any admin role). ${SCOPE}`,
      params: ProjectCollectionParams,
      response: { 200: TtlSchema, ...errorResponses },
    }),
    (request) => ttl.get(request.projectId, request.params.collection),
  );

  app.delete(
    PATH,
    adminRoute(manage, {
      description:
        'Clears the collection’s TTL field: its documents never expire again, and the index made with the ' +
        `setting is dropped; none → 404 \`TTL not set\`. Owners and editors. ${SCOPE}`,
      params: ProjectCollectionParams,
      response: { 200: DeletedTtlSchema, ...errorResponses },
    }),
    (request) => ttl.clear(request.projectId, request.params.collection),
  );
}
