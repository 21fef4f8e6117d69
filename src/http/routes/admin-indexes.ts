import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import type { DocumentService } from '../../core/documents/document-service.js';
import type { IndexService } from '../../core/documents/index-service.js';
import { explanation } from '../../core/documents/query-explain.js';
import { type AdminGuard, decorateAdminRequests } from '../admin-auth-hook.js';
import { adminConflictResponses, ProjectParams } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import {
  CreateIndexBody,
  DeletedIndexSchema,
  ExplainQuery,
  ExplainSchema,
  IndexesSchema,
  IndexParams,
  IndexSchema,
} from '../schemas/indexes.js';
import type { HttpApp } from '../server.js';
import { adminRoute, idOf, inProject, SCOPE } from './admin-project-shared.js';

/** What the index routes use. */
export interface AdminIndexDeps {
  guard: AdminGuard;
  indexes: IndexService;
  documents: DocumentService;
}

const PREFIX = '/admin/projects/:project_id/indexes';

/** Declared indexes of a project's collections (§15), and the plan of a query. */
export function adminIndexRoutes(app: HttpApp, deps: AdminIndexDeps): void {
  const { indexes, documents } = deps;
  decorateAdminRequests(app);
  const anyRole = inProject(deps.guard);
  const manage = inProject(deps.guard, ADMIN_PERMISSIONS.documentManage);

  app.post(
    PREFIX,
    adminRoute(manage, {
      description:
        'Declares an index of `collection` (every document whose second-to-last path segment it is, at any depth) ' +
        'on 1–4 fields, each `asc` (default) or `desc`, and starts building it: 202 `building`; `GET` shows it ' +
        '`ready` once built. Queries, lists filtered by rules and `order_by` on its fields use it when ready, ' +
        'with identical results; until then they answer as without it. The same collection, fields and orders ' +
        'again → 409 `Index already exists`; at most 64 indexes per project (409). A `desc` field serves ' +
        '`order_by=-field`. On PostgreSQL the build does not block reads or writes; on SQLite it holds the ' +
        `database for its duration (about 0.2 s per 100,000 documents). Owners and editors. ${SCOPE}`,
      params: ProjectParams,
      body: CreateIndexBody,
      response: { 202: IndexSchema, ...adminConflictResponses },
    }),
    async (request, reply) => reply.status(202).send(await indexes.create(request.projectId, request.body)),
  );

  app.get(
    PREFIX,
    adminRoute(anyRole, {
      description: `The project’s indexes, by id, with their state (any admin role). ${SCOPE}`,
      params: ProjectParams,
      response: { 200: IndexesSchema, ...errorResponses },
    }),
    (request) => indexes.list(request.projectId),
  );

  app.get(
    `${PREFIX}/explain`,
    adminRoute(anyRole, {
      description:
        'How `GET /documents/query/{collection}` with these parameters would run, without running it: the ' +
        'ready index it uses (null: none serves it, and the query reads the whole collection or parent), ' +
        `the clauses the index seeks on, and the database’s plan (any admin role). ${SCOPE}`,
      params: ProjectParams,
      querystring: ExplainQuery,
      response: { 200: ExplainSchema, ...errorResponses },
    }),
    async (request) => {
      const { collection, where, parent_path, order_by, limit, offset } = request.query;
      const { options, plan } = await documents.explain(request.projectId, collection, {
        where: where ?? [],
        ...(parent_path !== undefined ? { parentPath: parent_path } : {}),
        ...(order_by !== undefined ? { orderBy: order_by } : {}),
        ...(limit !== undefined ? { limit } : {}),
        ...(offset !== undefined ? { offset } : {}),
      });
      return explanation(options, plan);
    },
  );

  app.delete(
    `${PREFIX}/:index_id`,
    adminRoute(manage, {
      description: `Drops an index (owners and editors); unknown → 404 \`Index not found\`. ${SCOPE}`,
      params: IndexParams,
      response: { 200: DeletedIndexSchema, ...errorResponses },
    }),
    (request) => indexes.drop(request.projectId, idOf(request.params.index_id, 'Index not found')),
  );
}
