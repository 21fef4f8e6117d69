import type { JsonObject, JsonValue } from '../../core/json.js';
import { parseTreeTags } from '../../core/realtime/tree-atomic.js';
import type { TreeService, TreeWriteOptions } from '../../core/realtime/tree-service.js';
import { type ClientAuthenticator, requirePermission } from '../auth-hook.js';
import { ErrorSchema, errorResponses } from '../schemas/common.js';
import {
  PatchTreeBody,
  PutTreeBody,
  TreeDeletedSchema,
  TreeParams,
  TreePreconditionHeaders,
  TreeQuery,
  TreeValueSchema,
  treeRouteDescriptions,
} from '../schemas/realtime.js';
import type { HttpApp } from '../server.js';
import { sendTreeJson } from '../tree-json-reply.js';

const treeWriteErrors = { ...errorResponses, 412: ErrorSchema };

const writeOptions = (headers: { 'if-match'?: string | undefined }): TreeWriteOptions => {
  const ifMatch = headers['if-match'];
  return ifMatch === undefined ? {} : { ifMatch: parseTreeTags(ifMatch) };
};

/** The realtime tree over REST (§3) under `/realtime/db`, as the signed-in user, whose rules apply (§9). */
export function realtimeRoutes(app: HttpApp, deps: { auth: ClientAuthenticator; tree: TreeService }): void {
  const { tree } = deps;
  app.register(async (scope: HttpApp) => {
    scope.addHook('onRequest', requirePermission(deps.auth, 'client.realtime'));
    const params = TreeParams;
    // `/realtime/db` (no slash) is the root too; `/realtime/db/` reaches the wildcard with ''.
    for (const url of ['/realtime/db', '/realtime/db/*']) {
      scope.get(
        url,
        {
          schema: {
            description: treeRouteDescriptions.get,
            params,
            querystring: TreeQuery,
            response: { 200: TreeValueSchema, ...errorResponses },
          },
        },
        async (request, reply) => {
          const rawPath = request.params['*'] ?? '';
          // A shallow answer is not the value, so it carries no ETag of it.
          if (request.query.shallow) return tree.get(request.projectId, rawPath, true, request.userId);
          return sendTreeJson(reply, await tree.getJson(request.projectId, rawPath, request.userId));
        },
      );

      scope.put(
        url,
        {
          schema: {
            description: treeRouteDescriptions.put,
            params,
            headers: TreePreconditionHeaders,
            body: PutTreeBody,
            response: { 200: TreeValueSchema, ...treeWriteErrors },
          },
        },
        async (request, reply) => {
          const { path, value, etag } = await tree.set(
            request.projectId,
            request.params['*'] ?? '',
            request.body.value as JsonValue,
            request.userId,
            writeOptions(request.headers),
          );
          return reply.header('etag', `"${etag}"`).send({ path, value });
        },
      );

      scope.patch(
        url,
        {
          schema: {
            description: treeRouteDescriptions.patch,
            params,
            headers: TreePreconditionHeaders,
            body: PatchTreeBody,
            response: { 200: TreeValueSchema, ...treeWriteErrors },
          },
        },
        async (request, reply) => {
          const patch = request.body.value as JsonObject;
          const rawPath = request.params['*'] ?? '';
          const { path, value, etag } = await tree.patch(
            request.projectId,
            rawPath,
            patch,
            request.userId,
            writeOptions(request.headers),
          );
          if (etag !== null) reply.header('etag', `"${etag}"`);
          return reply.send({ path, value });
        },
      );

      scope.delete(
        url,
        {
          schema: {
            description: treeRouteDescriptions.delete,
            params,
            headers: TreePreconditionHeaders,
            response: { 200: TreeDeletedSchema, ...treeWriteErrors },
          },
        },
        async (request) => {
          const rawPath = request.params['*'] ?? '';
          const options = writeOptions(request.headers);
          const { deleted } = await tree.delete(request.projectId, rawPath, request.userId, options);
          return { deleted };
        },
      );
    }
  });
}
