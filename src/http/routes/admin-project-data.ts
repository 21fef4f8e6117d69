import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import type { DocumentService } from '../../core/documents/document-service.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { parseTreeTags } from '../../core/realtime/tree-atomic.js';
import type { TreeService, TreeWriteOptions } from '../../core/realtime/tree-service.js';
import { type AdminGuard, adminAccess, decorateAdminRequests } from '../admin-auth-hook.js';
import { adminSecurity, ProjectCollectionParams, ProjectTreeParams } from '../schemas/admin.js';
import { ErrorSchema, errorResponses } from '../schemas/common.js';
import { DocumentListSchema, FilterQuery } from '../schemas/documents.js';
import {
  PatchTreeBody,
  PutTreeBody,
  TreeDeletedSchema,
  TreePreconditionHeaders,
  TreeQuery,
  TreeValueSchema,
  treeRouteDescriptions,
} from '../schemas/realtime.js';
import type { HttpApp } from '../server.js';
import { sendTreeJson } from '../tree-json-reply.js';
import { sendDocumentList } from './documents.js';

/** What the admin query and realtime routes use. */
export interface AdminProjectDataDeps {
  guard: AdminGuard;
  documents: DocumentService;
  tree: TreeService;
}

const tags = ['admin'];
const SCOPE =
  'Admin reads and writes are not subject to the access rules. A project of another organisation answers 404 `Project not found`.';
const VIEW = `Needs \`document.view\` (every admin role, and server keys that hold it). ${SCOPE}`;
const MANAGE = `Needs \`document.manage\` (owner, editor, and server keys that hold it). ${SCOPE}`;
const treeWriteErrors = { ...errorResponses, 412: ErrorSchema };

const writeOptions = (headers: { 'if-match'?: string | undefined }): TreeWriteOptions => {
  const ifMatch = headers['if-match'];
  return ifMatch === undefined ? {} : { ifMatch: parseTreeTags(ifMatch) };
};

/**
 * The §2 query and the §3 realtime tree of one project for admins and server keys (§13): the
 * client routes' semantics and answers, without a user and so without rules.
 */
export function adminProjectDataRoutes(app: HttpApp, deps: AdminProjectDataDeps): void {
  const { documents, tree } = deps;
  decorateAdminRequests(app);
  const view = adminAccess(deps.guard, { scope: 'project', permission: ADMIN_PERMISSIONS.documentView });
  const manage = adminAccess(deps.guard, { scope: 'project', permission: ADMIN_PERMISSIONS.documentManage });

  app.get(
    '/admin/projects/:project_id/query/:collection',
    {
      onRequest: view,
      schema: {
        tags,
        description: `Runs a query (\`where\`, \`parent_path\`, \`order_by\`, \`limit\`, \`offset\`) as GET /documents/query/{collection}. ${VIEW}`,
        security: adminSecurity,
        params: ProjectCollectionParams,
        querystring: FilterQuery,
        response: { 200: DocumentListSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { where, parent_path, order_by, limit, offset } = request.query;
      const list = await documents.query(request.projectId, request.params.collection, {
        where: where ?? [],
        ...(parent_path !== undefined ? { parentPath: parent_path } : {}),
        ...(order_by !== undefined ? { orderBy: order_by } : {}),
        ...(limit !== undefined ? { limit } : {}),
        ...(offset !== undefined ? { offset } : {}),
      });
      return sendDocumentList(reply, list);
    },
  );

  // `/realtime/db` (no slash) is the root too; `/realtime/db/` reaches the wildcard with ''.
  for (const url of ['/admin/projects/:project_id/realtime/db', '/admin/projects/:project_id/realtime/db/*']) {
    const path = (params: { '*'?: string | undefined }) => params['*'] ?? '';
    // Writing the whole tree at once is possible but not advertised: only the root's GET is documented.
    const hide = !url.endsWith('*');
    app.get(
      url,
      {
        onRequest: view,
        schema: {
          tags,
          description: `${treeRouteDescriptions.get} ${VIEW}`,
          security: adminSecurity,
          params: ProjectTreeParams,
          querystring: TreeQuery,
          response: { 200: TreeValueSchema, ...errorResponses },
        },
      },
      async (request, reply) => {
        if (request.query.shallow) return tree.get(request.projectId, path(request.params), true);
        return sendTreeJson(reply, await tree.getJson(request.projectId, path(request.params)));
      },
    );

    app.put(
      url,
      {
        onRequest: manage,
        schema: {
          tags,
          description: `${treeRouteDescriptions.put} ${MANAGE}`,
          hide,
          security: adminSecurity,
          params: ProjectTreeParams,
          headers: TreePreconditionHeaders,
          body: PutTreeBody,
          response: { 200: TreeValueSchema, ...treeWriteErrors },
        },
      },
      async (request, reply) => {
        const value = request.body.value as JsonValue;
        const options = writeOptions(request.headers);
        const written = await tree.set(request.projectId, path(request.params), value, undefined, options);
        return reply.header('etag', `"${written.etag}"`).send({ path: written.path, value: written.value });
      },
    );

    app.patch(
      url,
      {
        onRequest: manage,
        schema: {
          tags,
          description: `${treeRouteDescriptions.patch} ${MANAGE}`,
          hide,
          security: adminSecurity,
          params: ProjectTreeParams,
          headers: TreePreconditionHeaders,
          body: PatchTreeBody,
          response: { 200: TreeValueSchema, ...treeWriteErrors },
        },
      },
      async (request, reply) => {
        const patch = request.body.value as JsonObject;
        const written = await tree.patch(
          request.projectId,
          path(request.params),
          patch,
          undefined,
          writeOptions(request.headers),
        );
        if (written.etag !== null) reply.header('etag', `"${written.etag}"`);
        return reply.send({ path: written.path, value: written.value });
      },
    );

    app.delete(
      url,
      {
        onRequest: manage,
        schema: {
          tags,
          description: `${treeRouteDescriptions.delete} ${MANAGE}`,
          hide,
          security: adminSecurity,
          params: ProjectTreeParams,
          headers: TreePreconditionHeaders,
          response: { 200: TreeDeletedSchema, ...treeWriteErrors },
        },
      },
      async (request) => {
        const options = writeOptions(request.headers);
        return { deleted: (await tree.delete(request.projectId, path(request.params), undefined, options)).deleted };
      },
    );
  }
}
