import type { FastifyRequest } from 'fastify';
import type { AccessGrant } from '../core/auth/auth-service.js';

/** Who a client request acts for, set by the auth hook. */
export interface Principal {
  projectId: number;
  userId: number;
  /** The token epoch the request was admitted under (long-lived sockets re-check it). */
  tokenEpoch: number;
  /** When the access token expires, in ms since the epoch (a socket is closed then, §14). */
  expiresAtMs: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The project of the client credentials; set by every client hook. */
    projectId: number;
    /** The signed-in user; set by `requirePermission` (0 before). */
    userId: number;
  }
}

/** The checks of §1, in their order; each throws the §1 error when it fails. */
export interface ClientAuthenticator {
  /** The project of valid client credentials; throws `invalid_client`. */
  authenticateClient(clientId: string | undefined, clientSecret: string | undefined): Promise<number>;
  /** The user (and token epoch) of a valid access token of that project, user enabled; throws `invalid_token`. */
  verifyAccessGrant(token: string | undefined, projectId: number): Promise<AccessGrant>;
  /** Throws `forbidden` unless the user holds the permission; `invalid_token` once disabled or past `tokenEpoch`. */
  requirePermission(projectId: number, userId: number, permission: string, tokenEpoch?: number): Promise<void>;
  /** The user's roles (§16 `ctx.caller`), from what the permission check read. */
  rolesOf(projectId: number, userId: number): Promise<string[]>;
}

/** The three values of §1, from headers (or, for WebSocket handshakes, from the query string). */
export interface Credentials {
  clientId: string | undefined;
  clientSecret: string | undefined;
  accessToken: string | undefined;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** Reads the credentials from the request headers. */
export function credentialsFromHeaders(request: FastifyRequest): Credentials {
  const authorization = header(request, 'authorization');
  const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  return {
    clientId: header(request, 'x-client-id'),
    clientSecret: header(request, 'x-client-secret'),
    accessToken: match?.[1],
  };
}

/** Runs the §1 checks in order and returns the principal. */
export async function authenticate(
  auth: ClientAuthenticator,
  credentials: Credentials,
  permission: string,
): Promise<Principal> {
  const projectId = await auth.authenticateClient(credentials.clientId, credentials.clientSecret);
  const { userId, tokenEpoch, expiresAtMs } = await auth.verifyAccessGrant(credentials.accessToken, projectId);
  await auth.requirePermission(projectId, userId, permission);
  return { projectId, userId, tokenEpoch, expiresAtMs };
}

/** An `onRequest` hook that admits only users holding `permission` (§1). */
export function requirePermission(auth: ClientAuthenticator, permission: string) {
  return async (request: FastifyRequest): Promise<void> => {
    const principal = await authenticate(auth, credentialsFromHeaders(request), permission);
    request.projectId = principal.projectId;
    request.userId = principal.userId;
  };
}

/** An `onRequest` hook that admits any valid client (sign-up and login routes). */
export function requireClient(auth: ClientAuthenticator) {
  return async (request: FastifyRequest): Promise<void> => {
    const { clientId, clientSecret } = credentialsFromHeaders(request);
    request.projectId = await auth.authenticateClient(clientId, clientSecret);
  };
}
