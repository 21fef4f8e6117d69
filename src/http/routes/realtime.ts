import type { JsonObject, JsonValue } from '../../core/json.js';
import type { TreeService } from '../../core/realtime/tree-service.js';
import { type ClientAuthenticator, requirePermission } from '../auth-hook.js';
import { clientErrorResponses } from '../schemas/common.js';
import {
  PatchTreeBody,
  PutTreeBody,
  TreeDeletedSchema,
  TreeParams,
  TreeQuery,
  TreeValueSchema,
  treeRouteDescriptions,
} from '../schemas/realtime.js';
import type { HttpApp } from '../server.js';

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
            response: { 200: TreeValueSchema, ...clientErrorResponses },
          },
        },
        (request) =>
          tree.get(request.projectId, request.params['*'] ?? '', request.query.shallow ?? false, request.userId),
      );

      scope.put(
        url,
        {
          schema: {
            description: treeRouteDescriptions.put,
            params,
            body: PutTreeBody,
            response: { 200: TreeValueSchema, ...clientErrorResponses },
          },
        },
        async (request) => {
          const { path, value } = await tree.set(
            request.projectId,
            request.params['*'] ?? '',
            request.body.value as JsonValue,
            request.userId,
          );
          return { path, value };
        },
      );

      scope.patch(
        url,
        {
          schema: {
            description: treeRouteDescriptions.patch,
            params,
            body: PatchTreeBody,
            response: { 200: TreeValueSchema, ...clientErrorResponses },
          },
        },
        async (request) => {
          const patch = request.body.value as JsonObject;
          const { path, value } = await tree.patch(request.projectId, request.params['*'] ?? '', patch, request.userId);
          return { path, value };
        },
      );

      scope.delete(
        url,
        {
          schema: {
            description: treeRouteDescriptions.delete,
            params,
            response: { 200: TreeDeletedSchema, ...clientErrorResponses },
          },
        },
        async (request) => {
          const { deleted } = await tree.delete(request.projectId, request.params['*'] ?? '', request.userId);
          return { deleted };
        },
      );
    }
  });
}
