import type { FastifyRequest } from 'fastify';
import type { ServerKeyService } from '../../core/admin/server-keys.js';
import { type AdminGuard, callerOf, decorateAdminRequests } from '../admin-auth-hook.js';
import {
  CreateServerKeyBody,
  DeletedServerKeySchema,
  IssuedServerKeySchema,
  ProjectParams,
  ServerKeyParams,
  ServerKeysSchema,
} from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import type { HttpApp } from '../server.js';
import { adminRoute, idOf, inProject } from './admin-project-shared.js';

/** What the server key routes use. */
export interface AdminServerKeyDeps {
  guard: AdminGuard;
  keys: ServerKeyService;
}

const SCOPE = 'A project of another organisation (or, for a key, another project) answers 404 `Project not found`.';
const MANAGERS =
  "Owners and editors only (403 `Permission 'server_key.manage' required` otherwise); a server key cannot " +
  'issue or revoke keys, so a leaked key cannot mint one that outlives its revocation.';

/**
 * Server keys of a project (§9) under `/admin/projects/{project_id}/server-keys`. A key is sent
 * as `Authorization: Bearer sk_…` on the admin routes of its project and the admin document
 * store of its project, with the permissions of its role; anywhere else it is a 401.
 */
export function adminServerKeyRoutes(app: HttpApp, deps: AdminServerKeyDeps): void {
  const { guard, keys } = deps;
  decorateAdminRequests(app);
  const anyRole = inProject(guard);
  const managers = [anyRole, async (request: FastifyRequest) => keys.requireManager(callerOf(request))];

  app.get(
    '/admin/projects/:project_id/server-keys',
    adminRoute(anyRole, {
      description: `The project’s server keys, without the keys; revoked keys are not listed. Any admin role. ${SCOPE}`,
      params: ProjectParams,
      response: { 200: ServerKeysSchema, ...errorResponses },
    }),
    (request) => keys.list(request.projectId),
  );

  app.post(
    '/admin/projects/:project_id/server-keys',
    adminRoute(managers, {
      description:
        'Issues a server key for game servers: `sk_` and 256 random bits, shown this once (only its SHA-256 is ' +
        'stored). `role` is `editor` or `viewer` (422 otherwise); the key acts with that role’s permissions on ' +
        `this project’s admin routes and admin document store. ${MANAGERS} ${SCOPE}`,
      params: ProjectParams,
      body: CreateServerKeyBody,
      response: { 201: IssuedServerKeySchema, ...errorResponses },
    }),
    async (request, reply) => reply.status(201).send(await keys.create(request.projectId, request.body)),
  );

  app.delete(
    '/admin/projects/:project_id/server-keys/:key_id',
    adminRoute(managers, {
      description:
        'Revokes a server key: refused (401) at once on this instance and within 5 s on every other. 404 ' +
        `\`Server key not found\` for an unknown or already revoked key. ${MANAGERS} ${SCOPE}`,
      params: ServerKeyParams,
      response: { 200: DeletedServerKeySchema, ...errorResponses },
    }),
    (request) => keys.revoke(request.projectId, idOf(request.params.key_id, 'Server key not found')),
  );
}
