import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import type { DocumentService } from '../../core/documents/document-service.js';
import type { TreeService } from '../../core/realtime/tree-service.js';
import { type AdminGuard, decorateAdminRequests } from '../admin-auth-hook.js';
import { adminSecurity, ProjectCollectionParams, ProjectTreeParams } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import { DocumentListSchema, FilterQuery } from '../schemas/documents.js';
import type { HttpApp } from '../server.js';
import { adminRoute, inProject, SCOPE, tags } from './admin-project-shared.js';
import { sendDocumentList } from './documents.js';
import { treeRoutes } from './tree-routes.js';

/** What the admin query and realtime routes use. */
export interface AdminProjectDataDeps {
  guard: AdminGuard;
  documents: DocumentService;
  tree: TreeService;
}

const NO_RULES = `Admin reads and writes are not subject to the access rules. ${SCOPE}`;
const VIEW = `Needs \`document.view\` (every admin role, and server keys that hold it). ${NO_RULES}`;
const MANAGE = `Needs \`document.manage\` (owner, editor, and server keys that hold it). ${NO_RULES}`;
/**
 * The §2 query and the §3 realtime tree of one project for admins and server keys (§13): the
 * client routes' semantics and answers, without a user and so without rules.
 */
export function adminProjectDataRoutes(app: HttpApp, deps: AdminProjectDataDeps): void {
  const { documents, tree } = deps;
  decorateAdminRequests(app);
  const view = inProject(deps.guard, ADMIN_PERMISSIONS.documentView);
  const manage = inProject(deps.guard, ADMIN_PERMISSIONS.documentManage);

  app.get(
    '/admin/projects/:project_id/query/:collection',
    adminRoute(view, {
      description: `Runs a query (\`where\`, \`parent_path\`, \`order_by\`, \`limit\`, \`offset\`) as GET /documents/query/{collection}. ${VIEW}`,
      params: ProjectCollectionParams,
      querystring: FilterQuery,
      response: { 200: DocumentListSchema, ...errorResponses },
    }),
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

  treeRoutes(app, tree, {
    root: '/admin/projects/:project_id/realtime/db',
    params: ProjectTreeParams,
    // Admin reads and writes are not subject to the access rules.
    userOf: () => undefined,
    read: { onRequest: view, schema: { tags, security: adminSecurity }, note: VIEW },
    write: { onRequest: manage, schema: { tags, security: adminSecurity }, note: MANAGE },
    // Writing the whole tree at once is possible but not advertised: only the root's GET is documented.
    hideRootWrites: true,
  });
}
