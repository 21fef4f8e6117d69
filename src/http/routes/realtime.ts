import type { TreeService } from '../../core/realtime/tree-service.js';
import { type ClientAuthenticator, requirePermission } from '../auth-hook.js';
import { TreeParams } from '../schemas/realtime.js';
import type { HttpApp } from '../server.js';
import { treeRoutes } from './tree-routes.js';

/** The realtime tree over REST (§3) under `/realtime/db`, as the signed-in user, whose rules apply (§9). */
export function realtimeRoutes(app: HttpApp, deps: { auth: ClientAuthenticator; tree: TreeService }): void {
  app.register(async (scope: HttpApp) => {
    scope.addHook('onRequest', requirePermission(deps.auth, 'client.realtime'));
    treeRoutes(scope, deps.tree, {
      root: '/realtime/db',
      params: TreeParams,
      userOf: (request) => request.userId,
      read: {},
      write: {},
    });
  });
}
