import type { FastifyReply } from 'fastify';
import type { DocumentJson, DocumentWithCollections } from '../../core/documents/document-store.js';
import type { BatchWrite } from '../../core/documents/document-write-service.js';
import { type Precondition, parseVersionTags } from '../../core/documents/document-writes.js';
import type { ClientWriteRequest, RuledDocumentService } from '../../core/documents/ruled-document-service.js';
import type { JsonObject } from '../../core/json.js';
import { parseDocumentPath } from '../../core/paths.js';
import { type ClientAuthenticator, requirePermission } from '../auth-hook.js';
import { ErrorSchema, errorResponses, WildcardParams } from '../schemas/common.js';
import {
  BatchBody,
  BatchResultSchema,
  CollectionParams,
  CreateDocumentBody,
  DeletedSchema,
  DocumentListSchema,
  DocumentSchema,
  DocumentWithCollectionsSchema,
  DocumentWithCreatedSchema,
  FilterQuery,
  ListQuery,
  PatchClientDocumentBody,
  PreconditionHeaders,
  PutClientDocumentBody,
} from '../schemas/documents.js';
import type { HttpApp } from '../server.js';

/**
 * Answers `{documents: [...]}` from the documents' JSON text as the store built it. Fastify sends
 * a string with a JSON content type as it is; the OpenAPI contract test checks these answers
 * against `DocumentListSchema` like every other.
 */
export function sendDocumentList(reply: FastifyReply, documents: readonly DocumentJson[]): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(`{"documents":[${documents.join(',')}]}`);
}

/** Answers a document GET from the stored text, the child collection names spliced in before its closing brace. */
export function sendDocumentWithCollections(reply: FastifyReply, found: DocumentWithCollections): FastifyReply {
  const { document, collections } = found;
  return reply
    .type('application/json; charset=utf-8')
    .send(`${document.slice(0, -1)},"collections":${JSON.stringify(collections)}}`);
}

const ETAG_NOTE =
  'The answer carries `ETag: "<version>"`, the version of the commit. `If-Match` (ETags, or `*` for any existing document): 412 `Precondition failed` when none matches or the document is missing. Checks run in the order path (400), body (422), rules (403), precondition (412), existence (404).';

/** Error answers of the document writes: those of every client route and 412 (§11). */
const documentWriteErrors = { ...errorResponses, 412: ErrorSchema };

/** The ETag of a document version: the version in quotes. */
const etagOf = (version: number) => `"${version}"`;

/** The transforms and precondition headers of a write request. */
function writeRequest(
  transforms: Record<string, unknown> | undefined,
  headers: { 'if-match'?: string | undefined; 'if-none-match'?: string | undefined },
): ClientWriteRequest {
  const ifMatch = headers['if-match'];
  const ifNoneMatch = headers['if-none-match'];
  const precondition: Precondition = {
    ...(ifMatch !== undefined ? { ifMatch: parseVersionTags(ifMatch) } : {}),
    ...(ifNoneMatch !== undefined ? { ifNoneMatch: parseVersionTags(ifNoneMatch) } : {}),
  };
  return {
    ...(transforms !== undefined ? { transforms } : {}),
    ...(ifMatch !== undefined || ifNoneMatch !== undefined ? { precondition } : {}),
  };
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

    scope.put(
      '/documents/docs/*',
      {
        schema: {
          description: `Inserts or replaces the document; \`transforms\` apply to the data as \`data\` leaves it. ${ETAG_NOTE} \`If-None-Match: *\`: only when no document exists (412 otherwise).`,
          params: WildcardParams,
          headers: PreconditionHeaders,
          body: PutClientDocumentBody,
          response: { 200: DocumentWithCreatedSchema, ...documentWriteErrors },
        },
      },
      async (request, reply) => {
        const { version, ...document } = await documents.put(
          request,
          request.params['*'],
          (request.body?.data ?? {}) as JsonObject,
          writeRequest(request.body?.transforms, request.headers),
        );
        return reply.header('etag', etagOf(version)).send(document);
      },
    );

    scope.get(
      '/documents/docs/*',
      {
        schema: {
          description: 'The document with its child collections. The `ETag` header is `"<version>"`.',
          params: WildcardParams,
          response: { 200: DocumentWithCollectionsSchema, ...errorResponses },
        },
      },
      async (request, reply) => {
        const found = await documents.get(request, request.params['*']);
        return sendDocumentWithCollections(reply.header('etag', etagOf(found.version)), found);
      },
    );

    scope.patch(
      '/documents/docs/*',
      {
        schema: {
          description: `Shallow-merges \`data\` into the document, then applies \`transforms\` (either may be omitted, not both). ${ETAG_NOTE}`,
          params: WildcardParams,
          headers: PreconditionHeaders,
          body: PatchClientDocumentBody,
          response: { 200: DocumentSchema, ...documentWriteErrors },
        },
      },
      async (request, reply) => {
        const { version, ...document } = await documents.patch(
          request,
          request.params['*'],
          request.body.data as JsonObject | undefined,
          writeRequest(request.body.transforms, request.headers),
        );
        return reply.header('etag', etagOf(version)).send(document);
      },
    );

    scope.delete(
      '/documents/docs/*',
      {
        schema: {
          description:
            'Deletes only that document. `If-Match` as for PUT (412 when none matches or the document is missing).',
          params: WildcardParams,
          headers: PreconditionHeaders,
          response: { 200: DeletedSchema, ...documentWriteErrors },
        },
      },
      async (request) => {
        const { deleted } = await documents.delete(
          request,
          request.params['*'],
          writeRequest(undefined, request.headers),
        );
        return { deleted };
      },
    );

    // `/documents/docs/` (the empty path) arrives without its slash: the §2 400 of an empty
    // document path, through a route left out of the OpenAPI document.
    scope.route({
      method: ['GET', 'PUT', 'PATCH', 'DELETE'],
      url: '/documents/docs',
      schema: { hide: true },
      handler: () => {
        parseDocumentPath('');
      },
    });

    scope.post(
      '/documents/batch',
      {
        schema: {
          description:
            'Applies 1 to 500 writes in order as one transaction and one commit: all or none. Each write is checked against the access rules. A failure answers the status of the first failing write with `writes[<i>]: <message>` (a 422: `loc` starting `["body", "writes", <i>]`); path and body problems of any write are found before any write is tried. The same path twice: the second write sees the first.',
          body: BatchBody,
          response: { 200: BatchResultSchema, ...documentWriteErrors },
        },
      },
      (request) => documents.batch(request, request.body.writes as BatchWrite[]),
    );

    scope.post(
      '/documents/collections/:collection',
      {
        schema: {
          params: CollectionParams,
          body: CreateDocumentBody,
          response: { 201: DocumentWithCreatedSchema, ...errorResponses },
        },
      },
      async (request, reply) => {
        const { data, parent_path } = request.body;
        const { version, ...created } = await documents.create(
          request,
          request.params.collection,
          parent_path,
          (data ?? {}) as JsonObject,
        );
        return reply.status(201).header('etag', etagOf(version)).send(created);
      },
    );

    scope.get(
      '/documents/collections/:collection',
      {
        schema: {
          params: CollectionParams,
          querystring: ListQuery,
          response: { 200: DocumentListSchema, ...errorResponses },
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
          querystring: FilterQuery,
          response: { 200: DocumentListSchema, ...errorResponses },
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
