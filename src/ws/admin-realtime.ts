/**
 * `GET /admin/projects/{project_id}/realtime/ws` (§13): the §4 protocol for admins and server keys,
 * on the same gateway, feeds and sessions as the clients' socket. The caller needs
 * `document.view` to connect (and so to subscribe and listen) and `document.manage` for each
 * write; there is no user, so the rules (§9) do not apply.
 */
import type { FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import type { AdminCaller } from '../core/admin/admin-caller.js';
import { ADMIN_PERMISSIONS } from '../core/admin/admin-permissions.js';
import { AppError } from '../core/errors.js';
import type { AdminGuard } from '../http/admin-auth-hook.js';
import type { HttpApp } from '../http/server.js';
import type { RealtimeGateway } from './realtime-gateway.js';
import { handshakeCredentials } from './realtime-gateway.js';
import type { SessionCaller } from './realtime-session.js';
import type { ExpiringGrant } from './session-token.js';

export const ADMIN_REALTIME_WS_URL = '/admin/projects/:project_id/realtime/ws';

/** Adds the admin socket to `gateway` (registered on `app` already). */
export async function registerAdminRealtime(app: HttpApp, gateway: RealtimeGateway, guard: AdminGuard): Promise<void> {
  await gateway.route(app, ADMIN_REALTIME_WS_URL, async (request: FastifyRequest) => {
    const token = handshakeCredentials(request).accessToken;
    const rawProjectId = (request.params as { project_id?: string }).project_id;
    const admitted = await admit(guard, token, rawProjectId);
    request.projectId = admitted.projectId;
    return adminCaller(guard, admitted);
  });
}

interface Admitted {
  projectId: number;
  token: string;
  caller: AdminCaller;
  grant: ExpiringGrant;
}

/** The §6 checks of the admin REST routes, in their order: token (401), project (404), `document.view` (403). */
async function admit(
  guard: AdminGuard,
  token: string | undefined,
  rawProjectId: string | number | undefined,
): Promise<Admitted> {
  const caller = await guard.authenticateCaller(token, { serverKeys: true });
  const project = await guard.requireProject(caller, rawProjectId);
  guard.requirePermission(caller, ADMIN_PERMISSIONS.documentView);
  return { projectId: project.id, token: token ?? '', caller, grant: { expiresAtMs: expiryOf(caller, token ?? '') } };
}

/** An admin token's `exp` (verified by `authenticateCaller` already); a server key does not expire. */
function expiryOf(caller: AdminCaller, token: string): number {
  if (caller.kind === 'server_key') return Number.POSITIVE_INFINITY;
  const exp = decodeJwt(token).exp;
  return typeof exp === 'number' ? exp * 1000 : Number.POSITIVE_INFINITY;
}

const sameCaller = (a: AdminCaller, b: AdminCaller): boolean =>
  a.kind === 'admin' && b.kind === 'admin'
    ? a.id === b.id
    : a.kind === 'server_key' && b.kind === 'server_key' && a.keyId === b.keyId;

/**
 * A trusted caller: no user, so no rules. Each check authenticates the current token again, so a
 * role lowered, an admin removed or a key revoked takes effect on the open socket too.
 */
function adminCaller(guard: AdminGuard, handshake: Admitted): SessionCaller {
  const { projectId } = handshake;
  let current = handshake;
  const now = async (): Promise<AdminCaller> => {
    const caller = await guard.authenticateCaller(current.token, { serverKeys: true });
    await guard.requireProject(caller, projectId);
    return caller;
  };
  const requireView = async () => guard.requirePermission(await now(), ADMIN_PERMISSIONS.documentView);
  return {
    projectId,
    userId: undefined,
    grant: handshake.grant,
    requireWrite: async () => guard.requirePermission(await now(), ADMIN_PERMISSIONS.documentManage),
    requireListen: requireView,
    reauthenticate: async (accessToken) => {
      const next = await admit(guard, accessToken, projectId).catch((error: unknown) => {
        // Another tenant's project is a token for something else: as another user's token (§14).
        if (error instanceof AppError && error.code === 'not_found') throw new AppError('invalid_token', error.message);
        throw error;
      });
      if (!sameCaller(next.caller, current.caller))
        throw new AppError('invalid_token', 'The token is of another admin');
      current = next;
      return next.grant;
    },
    functionCaller: async () => {
      const caller = await now();
      if (caller.kind !== 'server_key')
        throw new AppError('forbidden', 'Server functions are called by players and server keys');
      guard.requirePermission(caller, ADMIN_PERMISSIONS.documentView);
      return { server_key: caller.keyId };
    },
    recheck: async () => {
      // Past its expiry the token closes the socket with 4001 (§14), not with this check's 1008.
      if (current.grant.expiresAtMs <= Date.now()) return;
      await requireView();
    },
  };
}
