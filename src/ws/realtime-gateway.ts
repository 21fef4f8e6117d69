import { randomUUID } from 'node:crypto';
import websocket from '@fastify/websocket';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { AccessGrant } from '../core/auth/auth-service.js';
import { CLIENT_PERMISSIONS } from '../core/auth/player-role.js';
import type { Bus } from '../core/bus.js';
import { AppError } from '../core/errors.js';
import type { FunctionCalls } from '../core/functions/function-calls.js';
import { type FunctionCaller, functionLog } from '../core/functions/functions-module.js';
import type { JsonValue } from '../core/json.js';
import type { DocumentListenerService } from '../core/listeners/document-listener-service.js';
import type { PathLimits } from '../core/paths.js';
import type { DisconnectOps } from '../core/realtime/disconnect-ops.js';
import type { TreeService } from '../core/realtime/tree-service.js';
import { authenticate, type ClientAuthenticator, type Credentials, credentialsFromHeaders } from '../http/auth-hook.js';
import type { HttpApp } from '../http/server.js';
import { DocumentFeed } from './document-feed.js';
import { DocumentListeners } from './document-listeners.js';
import { ProjectFeed } from './project-feed.js';
import { RealtimeSession, type SessionCaller } from './realtime-session.js';

const PERMISSION = 'client.realtime';

/** Settings of the WebSocket gateway (§4). */
export interface GatewayOptions {
  pathLimits: PathLimits;
  /** The server functions a `call` runs (§16); without them every call is 404 `Function not found`. */
  functions?: FunctionCalls;
  /** Subscriptions per connection (default 256). */
  maxSubscriptions: number;
  /** Send buffer past which a connection is closed with 1008 (default 8 MiB). */
  maxBufferedBytes: number;
  /** Largest client message in bytes. */
  maxPayload: number;
  /**
   * Interval of pings (`CDS_WS_HEARTBEAT_S`, default 10 s); a ping unanswered after the pong wait
   * (half the interval, at most 5 s) is missed, and a socket that missed two in a row is dropped.
   */
  heartbeatMs?: number;
  /** On-disconnect writes (§17); without them `on_disconnect` is refused. */
  disconnectOps?: DisconnectOps;
  /** How long a gap in a project's versions may wait before it is filled from the change log. */
  gapWaitMs?: number;
  /** How often each project's feed checks the database for commits whose broadcast was lost (default 5 s). */
  reconcileMs?: number;
  /** How often open connections are checked against their user's current permissions (default 5 s). */
  permissionCheckMs?: number;
  /**
   * How often open subscriptions are checked for a role change (§9: within 5 s of it; roles are
   * remembered 2.5 s, so the default 2.5 s makes 5 s at most).
   */
  grantReviewMs?: number;
  /** How long a socket closed by the server may take to close before it is destroyed (default 5 s). */
  closeGraceMs?: number;
  /** The same for a slow consumer, which must read its backlog before its 1008 (default 30 s). */
  slowConsumerGraceMs?: number;
}

/** The three §1 values from the handshake headers, else from the query string (browsers cannot set headers). */
export function handshakeCredentials(request: FastifyRequest): Credentials {
  const fromHeaders = credentialsFromHeaders(request);
  const query = (request.query ?? {}) as Record<string, unknown>;
  const param = (name: string) => (typeof query[name] === 'string' ? query[name] : undefined);
  return {
    clientId: fromHeaders.clientId ?? param('client_id'),
    clientSecret: fromHeaders.clientSecret ?? param('client_secret'),
    accessToken: fromHeaders.accessToken ?? param('access_token'),
  };
}

/**
 * `GET /realtime/ws`: authenticates the handshake before any socket exists (a refusal is the
 * §1 status and `{detail}` body), then runs one session per connection over one feed per
 * project. It pings every socket periodically and closes them all with 1001 on shutdown.
 */
export class RealtimeGateway {
  private readonly feeds = new Map<number, ProjectFeed>();
  private readonly sessions = new Set<RealtimeSession>();
  /** The caller each handshake was admitted as, from the auth hook to `accept`. */
  private readonly callers = new WeakMap<FastifyRequest, SessionCaller>();
  private heartbeat: NodeJS.Timeout | null = null;
  private pongCheck: NodeJS.Timeout | null = null;
  private permissionTimer: NodeJS.Timeout | null = null;
  private grantTimer: NodeJS.Timeout | null = null;
  private checkingPermissions = false;
  private reviewingGrants = false;
  private stopRulesListener: (() => void) | null = null;
  private stopCommitListener: (() => void) | null = null;
  private stopDocumentCommitListener: (() => void) | null = null;

  private readonly documentFeeds = new Map<number, DocumentFeed>();

  constructor(
    private readonly tree: TreeService,
    private readonly bus: Bus,
    private readonly options: GatewayOptions,
    private readonly log: FastifyBaseLogger,
    /** Document listeners (§10); without it `listen` is refused. */
    private readonly listeners: DocumentListenerService | null = null,
  ) {}

  /** Number of open connections. */
  get connections(): number {
    return this.sessions.size;
  }

  /** Registers the WebSocket plugin and the route on `app`. */
  async register(app: HttpApp, auth: ClientAuthenticator): Promise<void> {
    // Fired on every instance: the open subscriptions of the project are checked against the new ruleset.
    this.stopRulesListener = this.tree.onRulesChange((projectId) => void this.reviewGrants(projectId));
    // This instance's commits reach its feeds at once; the bus brings the other instances'.
    this.stopCommitListener = this.tree.onLocalCommits((projectId, commits) =>
      this.feeds.get(projectId)?.ownCommits(commits),
    );
    this.stopDocumentCommitListener =
      this.listeners?.onLocalCommits((projectId, commits) => this.documentFeeds.get(projectId)?.ownCommits(commits)) ??
      null;
    await app.register(websocket, {
      options: { maxPayload: this.options.maxPayload },
      preClose: (done) => {
        this.close().then(
          () => done(),
          (error: unknown) => done(error as Error),
        );
      },
    });
    await this.route(app, '/realtime/ws', async (request) => {
      const principal = await authenticate(auth, handshakeCredentials(request), PERMISSION);
      request.projectId = principal.projectId;
      request.userId = principal.userId;
      return clientCaller(auth, principal.projectId, principal);
    });
  }

  /**
   * Adds a WebSocket route (after `register`) whose handshake `admit` authenticates, throwing the
   * refusal (its §0 status and body, no socket) or returning the caller the session runs for.
   */
  async route(app: HttpApp, url: string, admit: (request: FastifyRequest) => Promise<SessionCaller>): Promise<void> {
    await app.register(async (scope: HttpApp) => {
      // onRequest runs before the upgrade: a refused handshake never becomes a socket.
      scope.addHook('onRequest', async (request) => {
        this.callers.set(request, await admit(request));
      });
      scope.get(url, { websocket: true }, (socket, request) => {
        const caller = this.callers.get(request);
        if (caller) this.accept(socket, caller);
        else socket.close(1011, 'Not authenticated');
      });
    });
  }

  /** Closes every connection with 1001 (going away), waiting briefly for the handshakes. */
  async close(): Promise<void> {
    this.stopTimers();
    this.stopRulesListener?.();
    this.stopRulesListener = null;
    this.stopCommitListener?.();
    this.stopCommitListener = null;
    this.stopDocumentCommitListener?.();
    this.stopDocumentCommitListener = null;
    const sessions = [...this.sessions];
    const closing = Promise.all(
      sessions.map(
        (session) =>
          new Promise<void>((resolve) => {
            session.onceClosed(resolve);
            session.close(1001, 'Server shutting down');
          }),
      ),
    );
    // Sockets that do not finish the handshake in time (or were already closing slowly) are destroyed.
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.closeGraceMs ?? 5_000);
    });
    await Promise.race([closing, deadline]);
    clearTimeout(timer);
    for (const session of sessions) session.terminate();
    await closing;
    // The closed connections' on-disconnect writes run before the service goes on closing (§17).
    await this.options.disconnectOps?.settled();
    await Promise.all([...this.feeds.values(), ...this.documentFeeds.values()].map((feed) => feed.close()));
    this.feeds.clear();
    this.documentFeeds.clear();
  }

  private accept(socket: WebSocket, caller: SessionCaller): void {
    const projectId = caller.projectId;
    const feed = this.feedOf(projectId);
    // Another instance took this one's ops (its lease lapsed): the client reconnects and stores them again.
    const disconnect =
      this.options.disconnectOps?.connection(projectId, caller.userId, () =>
        session.close(1012, 'On-disconnect writes taken over: reconnect'),
      ) ?? null;
    const session: RealtimeSession = new RealtimeSession(socket, caller, feed, {
      tree: this.tree,
      pathLimits: this.options.pathLimits,
      maxSubscriptions: this.options.maxSubscriptions,
      maxBufferedBytes: this.options.maxBufferedBytes,
      closeGraceMs: this.options.closeGraceMs ?? 5_000,
      slowConsumerGraceMs: this.options.slowConsumerGraceMs ?? 30_000,
      onClosed: (closed) => this.forget(closed, feed),
      onError: (error) => this.log.error({ err: error }, 'realtime session error'),
      listeners: (send, freeSlots) => this.listenersOf(caller, send, freeSlots),
      callFunction: (functionCaller, name, input) => this.callFunction(projectId, functionCaller, name, input),
      log: this.log,
      disconnect,
    });
    this.sessions.add(session);
    // Start the feed now, so the first subscribe finds it ready.
    feed.ready().catch((error: unknown) => this.log.warn({ err: error }, 'realtime feed not ready'));
    this.heartbeat ??= this.startHeartbeat();
    this.permissionTimer ??= setInterval(() => {
      void this.checkPermissions();
    }, this.options.permissionCheckMs ?? 5_000).unref();
    this.grantTimer ??= setInterval(() => {
      void this.reviewGrants();
    }, this.options.grantReviewMs ?? 2_500).unref();
  }

  /**
   * A connection outlives its handshake: a user whose role lost `client.realtime` (or who was
   * deleted or disabled, even if enabled again since), or an admin or key that lost access to the
   * project, is disconnected with 1008 within the permission cache time plus this interval.
   */
  private async checkPermissions(): Promise<void> {
    if (this.checkingPermissions) return;
    this.checkingPermissions = true;
    try {
      for (const session of [...this.sessions]) {
        try {
          await session.recheck();
        } catch (error) {
          // An outage says nothing about the user: keep every socket, and try again next time.
          if (error instanceof AppError && error.code === 'unavailable') {
            this.log.warn({ err: error.cause ?? error }, 'realtime permission check postponed: database unavailable');
            return;
          }
          if (error instanceof AppError) session.close(1008, error.message);
          else this.log.warn({ err: error }, 'realtime permission check failed');
        }
      }
    } finally {
      this.checkingPermissions = false;
    }
  }

  /**
   * Checks open subscriptions against the rules (§9): every one of `projectId` after its ruleset
   * changed; periodically, those granted under another ruleset or another `request.auth` (roles
   * are remembered 2.5 s, so a role change is seen within that plus the review interval).
   */
  private async reviewGrants(projectId?: number): Promise<void> {
    const periodic = projectId === undefined;
    if (periodic && this.reviewingGrants) return;
    if (periodic) this.reviewingGrants = true;
    try {
      for (const session of [...this.sessions]) {
        if (!periodic && session.projectId !== projectId) continue;
        try {
          await session.reviewGrants(!periodic);
        } catch (error) {
          if (error instanceof AppError && error.code === 'unavailable') {
            this.log.warn({ err: error.cause ?? error }, 'realtime rules check postponed: database unavailable');
            return;
          }
          // A user who vanished is closed by the permission check; anything else is logged.
          if (!(error instanceof AppError)) this.log.warn({ err: error }, 'realtime rules check failed');
        }
      }
    } finally {
      if (periodic) this.reviewingGrants = false;
    }
  }

  /** Pings every socket each interval, and checks for their pongs once the pong wait is over. */
  private startHeartbeat(): NodeJS.Timeout {
    const intervalMs = this.options.heartbeatMs ?? 10_000;
    // Half the interval at most, so a check never meets the next ping.
    const pongWaitMs = Math.min(Math.floor(intervalMs / 2), 5_000);
    return setInterval(() => {
      for (const each of this.sessions) each.ping();
      if (this.pongCheck) clearTimeout(this.pongCheck);
      this.pongCheck = setTimeout(() => {
        this.pongCheck = null;
        for (const each of this.sessions) each.checkPong();
      }, pongWaitMs).unref();
    }, intervalMs).unref();
  }

  private stopTimers(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.pongCheck) clearTimeout(this.pongCheck);
    this.pongCheck = null;
    if (this.permissionTimer) clearInterval(this.permissionTimer);
    if (this.grantTimer) clearInterval(this.grantTimer);
    this.heartbeat = null;
    this.permissionTimer = null;
    this.grantTimer = null;
  }

  private feedOf(projectId: number): ProjectFeed {
    let feed = this.feeds.get(projectId);
    if (!feed) {
      feed = new ProjectFeed(projectId, this.tree, this.bus, {
        gapWaitMs: this.options.gapWaitMs ?? 50,
        reconcileMs: this.options.reconcileMs ?? 5_000,
        onError: (error) => this.log.error({ err: error }, 'realtime feed error'),
      });
      this.feeds.set(projectId, feed);
    }
    return feed;
  }

  /** Runs a server function called over a socket (§16): its own request id, its lines tagged with its name. */
  private callFunction(projectId: number, caller: FunctionCaller, name: string, input: JsonValue): Promise<string> {
    const functions = this.options.functions;
    if (!functions) return Promise.reject(new AppError('not_found', 'Function not found'));
    const requestId = randomUUID();
    const log = functionLog(() => this.log.child({ function: name, request_id: requestId }));
    return functions.call({ projectId, caller, name, input, requestId, log });
  }

  /** The document listeners of a new connection (§10). */
  private listenersOf(caller: SessionCaller, send: (text: string) => void, freeSlots: () => number): DocumentListeners {
    const service = this.listeners;
    const projectId = caller.projectId;
    return new DocumentListeners({
      projectId,
      userId: caller.userId,
      service: service as DocumentListenerService,
      pathLimits: this.options.pathLimits,
      feed: () => this.documentFeedOf(projectId, service as DocumentListenerService),
      requireDocuments: async () => {
        if (!service) throw new AppError('unavailable', 'Document listeners are not available');
        await caller.requireListen();
      },
      freeSlots,
      maxSubscriptions: this.options.maxSubscriptions,
      send,
      onError: (error) => this.log.error({ err: error }, 'document listener error'),
    });
  }

  private documentFeedOf(projectId: number, service: DocumentListenerService): DocumentFeed {
    let feed = this.documentFeeds.get(projectId);
    if (!feed) {
      feed = new DocumentFeed(projectId, service, this.bus, {
        gapWaitMs: this.options.gapWaitMs ?? 50,
        reconcileMs: this.options.reconcileMs ?? 5_000,
        onError: (error) => this.log.error({ err: error }, 'document feed error'),
      });
      this.documentFeeds.set(projectId, feed);
    }
    return feed;
  }

  private forget(session: RealtimeSession, feed: ProjectFeed): void {
    this.sessions.delete(session);
    if (feed.size === 0 && this.feeds.get(feed.projectId) === feed) {
      this.feeds.delete(feed.projectId);
      feed.close().catch((error: unknown) => this.log.warn({ err: error }, 'realtime feed close failed'));
      const documents = this.documentFeeds.get(feed.projectId);
      this.documentFeeds.delete(feed.projectId);
      documents?.close().catch((error: unknown) => this.log.warn({ err: error }, 'document feed close failed'));
    }
    if (this.sessions.size === 0) this.stopTimers();
  }
}

/** A client user's connection (§4): held to the rules, may write with `client.realtime`, re-authenticates as §14. */
function clientCaller(auth: ClientAuthenticator, projectId: number, handshake: AccessGrant): SessionCaller {
  const userId = handshake.userId;
  let current = handshake;
  return {
    projectId,
    userId,
    grant: handshake,
    requireWrite: async () => {},
    requireListen: () => auth.requirePermission(projectId, userId, 'client.documents', current.tokenEpoch),
    reauthenticate: async (accessToken) => {
      const verified = await auth.verifyAccessGrant(accessToken, projectId);
      await auth.requirePermission(projectId, verified.userId, PERMISSION, verified.tokenEpoch);
      if (verified.userId !== userId) throw new AppError('invalid_token', 'The token is of another user');
      current = verified;
      return verified;
    },
    recheck: () => auth.requirePermission(projectId, userId, PERMISSION, current.tokenEpoch),
    functionCaller: async () => {
      await auth.requirePermission(projectId, userId, CLIENT_PERMISSIONS.functions, current.tokenEpoch);
      return { user_id: userId, roles: await auth.rolesOf(projectId, userId) };
    },
  };
}
