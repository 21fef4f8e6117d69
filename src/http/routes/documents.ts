import type { FastifyReply } from 'fastify';
import type { RuledDocumentService } from '../../core/documents/ruled-document-service.js';
import type { JsonObject } from '../../core/json.js';
import type { DocumentJson } from '../../core/ports.js';
import { type ClientAuthenticator, requirePermission } from '../auth-hook.js';
import { clientErrorResponses, DocumentPathParams } from '../schemas/common.js';
import {
  CollectionParams,
  CreateDocumentBody,
  DeletedSchema,
  DocumentListSchema,
  DocumentSchema,
  DocumentWithCollectionsSchema,
  DocumentWithCreatedSchema,
  ListQuery,
  PatchDocumentBody,
  PutDocumentBody,
  QueryQuery,
} from '../schemas/documents.js';
import type { HttpApp } from '../server.js';

/**
 * Answers `{documents: [...]}` from the documents' JSON text as the store built it. Fastify sends
 * a string with a JSON content type as it is; the OpenAPI contract test checks these answers
 * against `DocumentListSchema` like every other.
 */
function sendDocumentList(reply: FastifyReply, documents: readonly DocumentJson[]): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(`{"documents":[${documents.join(',')}]}`);
}

/** The client document store (§2) under `/documents`. */
export function documentRoutes(
  app: HttpApp,
  deps: { auth: ClientAuthenticator; documents: RuledDocumentService },
): void {
  const { documents } = deps;
  app.register(async (scope: HttpApp) => {
    scope.addHook('onRequest', requirePermission(deps.auth, 'client.documents'));
    // `data` is free JSON, which fast-json-stringify walks key by key (2.6× slower than
    // JSON.stringify on a 100-document page); these answers hold only their declared fields.
    scope.setSerializerCompiler(() => (payload: unknown) => JSON.stringify(payload));

    // `/documents/docs/` (the empty path) arrives without the slash: it gets the §2 400 rather than
    // a 404 through routes left out of the OpenAPI document, as nothing but that 400 lives there.
    for (const url of ['/documents/docs/*', '/documents/docs']) {
      const hide = !url.endsWith('*');
      const params = DocumentPathParams;
      scope.put(
        url,
        {
          schema: {
            hide,
            params,
            body: PutDocumentBody,
            response: { 200: DocumentWithCreatedSchema, ...clientErrorResponses },
          },
        },
        (request) => documents.put(request, request.params['*'] ?? '', (request.body.data ?? {}) as JsonObject),
      );

      scope.get(
        url,
        { schema: { hide, params, response: { 200: DocumentWithCollectionsSchema, ...clientErrorResponses } } },
        (request) => documents.get(request, request.params['*'] ?? ''),
      );

      scope.patch(
        url,
        {
          schema: {
            hide,
            params,
            body: PatchDocumentBody,
            response: { 200: DocumentSchema, ...clientErrorResponses },
          },
        },
        (request) => documents.patch(request, request.params['*'] ?? '', request.body.data as JsonObject),
      );

      scope.delete(
        url,
        { schema: { hide, params, response: { 200: DeletedSchema, ...clientErrorResponses } } },
        (request) => documents.delete(request, request.params['*'] ?? ''),
      );
    }

    scope.post(
      '/documents/collections/:collection',
      {
        schema: {
          params: CollectionParams,
          body: CreateDocumentBody,
          response: { 201: DocumentWithCreatedSchema, ...clientErrorResponses },
        },
      },
      async (request, reply) => {
        const { data, parent_path } = request.body;
        const created = await documents.create(
          request,
          request.params.collection,
          parent_path,
          (data ?? {}) as JsonObject,
        );
        return reply.status(201).send(created);
      },
    );

    scope.get(
      '/documents/collections/:collection',
      {
        schema: {
          params: CollectionParams,
          querystring: ListQuery,
          response: { 200: DocumentListSchema, ...clientErrorResponses },
        },
      },
      async (request, reply) => {
        const { parent_path, limit, start_after } = request.query;
        const list = await documents.list(request, request.params.collection, {
          parentPath: parent_path,
          limit,
          startAfter: start_after,
        });
        return sendDocumentList(reply, list);
      },
    );

    scope.get(
      '/documents/query/:collection',
      {
        schema: {
          params: CollectionParams,
          querystring: QueryQuery,
          response: { 200: DocumentListSchema, ...clientErrorResponses },
        },
      },
      async (request, reply) => {
        const { where, parent_path, order_by, limit, offset } = request.query;
        const list = await documents.query(request, request.params.collection, {
          where: where ?? [],
          parentPath: parent_path,
          orderBy: order_by,
          limit,
          offset,
        });
        return sendDocumentList(reply, list);
      },
    );
  });
}
