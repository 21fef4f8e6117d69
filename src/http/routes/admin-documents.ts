import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import { pageOf } from '../../core/admin/project-admin-service.js';
import type { DocumentService } from '../../core/documents/document-service.js';
import type { JsonObject } from '../../core/json.js';
import { type AdminGuard, adminAccess, decorateAdminRequests } from '../admin-auth-hook.js';
import {
  CollectionsPageSchema,
  DocumentsPageSchema,
  StoreCollectionParams,
  StoreDocParams,
  StorePageQuery,
  StoreParams,
} from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import {
  DeletedSchema,
  DocumentSchema,
  DocumentWithCollectionsSchema,
  DocumentWithCreatedSchema,
  PatchDocumentBody,
  PutDocumentBody,
} from '../schemas/documents.js';
import type { HttpApp } from '../server.js';
import { adminRoute } from './admin-project-shared.js';
import { sendDocumentWithCollections } from './documents.js';

const PREFIX = '/document-store/:org_id/:project_id';
const STORE_TAGS = ['admin document store'];
const SCOPE =
  'The project comes from the URL; a project outside that organisation, or an organisation the admin is not a ' +
  'member of, answers 404 `Project not found`.';

/**
 * The admin document store (§6): the documents a project's clients see under `/documents`,
 * through the same `DocumentService`, with pages for browsing.
 */
export function adminDocumentRoutes(app: HttpApp, deps: { guard: AdminGuard; documents: DocumentService }): void {
  const { documents, guard } = deps;
  decorateAdminRequests(app);
  const view = adminAccess(guard, { scope: 'org-project', permission: ADMIN_PERMISSIONS.documentView });
  const manage = adminAccess(guard, { scope: 'org-project', permission: ADMIN_PERMISSIONS.documentManage });

  app.get(
    `${PREFIX}/collections`,
    adminRoute(view, {
      tags: STORE_TAGS,
      description: `Collection names under \`parent_path\` (default the root), sorted, one page. Needs \`document.view\`. ${SCOPE}`,
      params: StoreParams,
      querystring: StorePageQuery,
      response: { 200: CollectionsPageSchema, ...errorResponses },
    }),
    async (request) => {
      const { page, page_size, offset } = pageOf(request.query);
      const result = await documents.collectionPage(request.projectId, request.query.parent_path, {
        offset,
        limit: page_size,
      });
      return { ...result, page, page_size };
    },
  );

  app.get(
    `${PREFIX}/collections/:collection`,
    adminRoute(view, {
      tags: STORE_TAGS,
      description: `Direct children of a collection under \`parent_path\`, by path, one page. Needs \`document.view\`. ${SCOPE}`,
      params: StoreCollectionParams,
      querystring: StorePageQuery,
      response: { 200: DocumentsPageSchema, ...errorResponses },
    }),
    async (request) => {
      const { page, page_size, offset } = pageOf(request.query);
      const result = await documents.documentPage(
        request.projectId,
        request.params.collection,
        request.query.parent_path,
        { offset, limit: page_size },
      );
      return { ...result, page, page_size };
    },
  );

  // `/docs/` (the empty path) arrives without the slash: the §2 400, through routes left out of OpenAPI.
  for (const url of [`${PREFIX}/docs/*`, `${PREFIX}/docs`]) {
    const hide = !url.endsWith('*');
    app.get(
      url,
      adminRoute(view, {
        tags: STORE_TAGS,
        description: `A document with its child collections, as GET /documents/docs/{path}. Needs \`document.view\`. ${SCOPE}`,
        hide,
        params: StoreDocParams,
        response: { 200: DocumentWithCollectionsSchema, ...errorResponses },
      }),
      async (request, reply) =>
        sendDocumentWithCollections(reply, await documents.get(request.projectId, request.params['*'] ?? '')),
    );

    app.put(
      url,
      adminRoute(manage, {
        tags: STORE_TAGS,
        description: `Inserts or replaces a document, as PUT /documents/docs/{path}. Needs \`document.manage\`. ${SCOPE}`,
        hide,
        params: StoreDocParams,
        body: PutDocumentBody,
        response: { 200: DocumentWithCreatedSchema, ...errorResponses },
      }),
      (request) => documents.put(request.projectId, request.params['*'] ?? '', (request.body.data ?? {}) as JsonObject),
    );

    app.patch(
      url,
      adminRoute(manage, {
        tags: STORE_TAGS,
        description: `Shallow-merges into a document, as PATCH /documents/docs/{path}. Needs \`document.manage\`. ${SCOPE}`,
        hide,
        params: StoreDocParams,
        body: PatchDocumentBody,
        response: { 200: DocumentSchema, ...errorResponses },
      }),
      (request) => documents.patch(request.projectId, request.params['*'] ?? '', request.body.data as JsonObject),
    );

    app.delete(
      url,
      adminRoute(manage, {
        tags: STORE_TAGS,
        description: `Deletes only that document, as DELETE /documents/docs/{path}. Needs \`document.manage\`. ${SCOPE}`,
        hide,
        params: StoreDocParams,
        response: { 200: DeletedSchema, ...errorResponses },
      }),
      (request) => documents.delete(request.projectId, request.params['*'] ?? ''),
    );
  }
}
