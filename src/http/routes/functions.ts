import type { FastifyReply } from 'fastify';
import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import { CLIENT_PERMISSIONS } from '../../core/auth/player-role.js';
import type { FunctionCalls } from '../../core/functions/function-calls.js';
import { type FunctionCaller, functionLog } from '../../core/functions/functions-module.js';
import type { JsonValue } from '../../core/json.js';
import { type AdminGuard, decorateAdminRequests, playerOrServerKey } from '../admin-auth-hook.js';
import type { ClientAuthenticator } from '../auth-hook.js';
import { errorResponses } from '../schemas/common.js';
import { FunctionBody, FunctionParams, FunctionResultSchema, functionRouteDescription } from '../schemas/functions.js';
import type { HttpApp } from '../server.js';

/** What the RPC route uses. */
export interface FunctionRouteDeps {
  auth: ClientAuthenticator;
  guard: AdminGuard;
  functions: FunctionCalls;
  /** A player's roles, for `ctx.caller`. */
  rolesOf(projectId: number, userId: number): Promise<string[]>;
}

/** `POST /functions/{name}` (§16): a player with `client.functions`, or a game server's key. */
export function functionRoutes(app: HttpApp, deps: FunctionRouteDeps): void {
  decorateAdminRequests(app);
  app.register(async (scope: HttpApp) => {
    scope.addHook(
      'onRequest',
      playerOrServerKey(deps.auth, deps.guard, CLIENT_PERMISSIONS.functions, ADMIN_PERMISSIONS.documentView),
    );
    scope.post(
      '/functions/:name',
      {
        schema: {
          description: functionRouteDescription,
          params: FunctionParams,
          body: FunctionBody,
          response: { 200: FunctionResultSchema, ...errorResponses },
        },
      },
      async (request, reply) => {
        const { projectId } = request;
        const key = request.admin?.kind === 'server_key' ? request.admin : null;
        const caller: FunctionCaller = key
          ? { server_key: key.keyId }
          : { user_id: request.userId, roles: await deps.rolesOf(projectId, request.userId) };
        const log = functionLog(() => request.log.child({ function: request.params.name }));
        const result = await deps.functions.call({
          projectId,
          caller,
          name: request.params.name,
          input: (request.body ?? null) as JsonValue,
          requestId: String(request.id),
          log,
        });
        // The result is JSON text already (serialized once, where a failure is still `Function failed`).
        return (reply as FastifyReply).type('application/json; charset=utf-8').send(`{"result":${result}}`);
      },
    );
  });
}
