import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { AppError, statusOf } from '../core/errors.js';
import type { ChildLogger, HookOrigin } from '../core/functions/before-hooks.js';
import { type FunctionCaller, FunctionRejection } from '../core/functions/functions-module.js';
import type { JsonValue } from '../core/json.js';
import type { PathLimits } from '../core/paths.js';
import type { ConnectionOps } from '../core/realtime/connection-ops.js';
import {
  ackMessage,
  authAckMessage,
  type ClientMessage,
  callErrorMessage,
  errorMessage,
  type MessageId,
  parseClientMessage,
  resultMessage,
  writeOptionsOf,
} from '../core/realtime/messages.js';
import { TreePreconditionFailed } from '../core/realtime/tree-atomic.js';
import type { TreeService, TreeWriteOptions } from '../core/realtime/tree-service.js';
import type { DocumentListeners } from './document-listeners.js';
import { OrderedReplies } from './ordered-replies.js';
import type { ProjectFeed } from './project-feed.js';
import { SessionInbox } from './session-inbox.js';
import { SessionSocket, type SocketLimits } from './session-socket.js';
import { type ExpiringGrant, SessionToken, TOKEN_EXPIRED_CODE, TOKEN_EXPIRED_REASON } from './session-token.js';
import { TreeSubscriptions } from './tree-subscriptions.js';

/**
 * Who a connection acts for and what it may do: a client user held to the rules (§4, §9), or a
 * trusted admin caller (§13, no rules). The gateway builds one per connection; the session asks it.
 */
export interface SessionCaller {
  readonly projectId: number;
  /** The client user whose rules decide reads and writes; undefined for a trusted caller (an admin or server key). */
  readonly userId: number | undefined;
  /** The handshake's token: its expiry closes the socket with 4001 (§14). */
  readonly grant: ExpiringGrant;
  /** Throws the refusal (an AppError, sent as an `error` event) unless the caller may write the tree now. */
  requireWrite(): Promise<void>;
  /** Throws unless the caller may open a document listener (§10) now. */
  requireListen(): Promise<void>;
  /**
   * Verifies a replacement token (`auth`, §14) and runs on it from now on; `invalid_token` (also for
   * a token of another caller) ends the connection with 1008, any other error only refuses the message.
   */
  reauthenticate(accessToken: string): Promise<ExpiringGrant>;
  /** Throws unless the caller may still hold the connection (checked periodically; an AppError closes it with 1008). */
  recheck(): Promise<void>;
  /** Who calls a server function (§16), or the refusal: a player needs `client.functions`; an admin may not. */
  functionCaller(): Promise<FunctionCaller>;
}

/** What a session needs besides its socket and feed. */
export interface SessionOptions extends SocketLimits {
  tree: TreeService;
  pathLimits: PathLimits;
  maxSubscriptions: number;
  onClosed: (session: RealtimeSession) => void;
  onError: (error: unknown) => void;
  /** The connection's document listeners (§10), given the session's `send`. */
  listeners: (send: (text: string) => void, freeSlots: () => number) => DocumentListeners;
  /** Runs a server function of the project (§16) and answers its result as JSON text; the §16 errors otherwise. */
  callFunction: (caller: FunctionCaller, name: string, input: JsonValue) => Promise<string>;
  /** The log a player's write's before hook (§16) writes to. */
  log: ChildLogger;
  /** The connection's on-disconnect writes (§17); null when the service runs none. */
  disconnect: ConnectionOps | null;
}

type WriteMessage = Extract<ClientMessage, { action: 'set' | 'patch' | 'delete' }>;

/**
 * One WebSocket connection (§4): its messages handled one at a time, in order (`SessionInbox`);
 * writes placed in commit order without waiting for each other, their replies in message order
 * (`OrderedReplies`); its tree subscriptions (`TreeSubscriptions`) and document listeners; what
 * it sends, through `SessionSocket`.
 */
export class RealtimeSession {
  private readonly replies: OrderedReplies;
  private readonly out: SessionSocket;
  private readonly subscriptions: TreeSubscriptions;
  private readonly listeners: DocumentListeners;

  /** The project of the connection. */
  readonly projectId: number;
  /** The client user of its access token; undefined for an admin connection (no rules). */
  readonly userId: number | undefined;
  /** The access token it runs on now (§14). */
  readonly token: SessionToken<ExpiringGrant>;

  constructor(
    socket: WebSocket,
    private readonly caller: SessionCaller,
    feed: ProjectFeed,
    private readonly options: SessionOptions,
  ) {
    this.projectId = caller.projectId;
    this.userId = caller.userId;
    this.token = new SessionToken(caller.grant, () => this.close(TOKEN_EXPIRED_CODE, TOKEN_EXPIRED_REASON));
    this.replies = new OrderedReplies(options.onError);
    this.out = new SessionSocket(socket, options, {
      closing: () => {
        this.subscriptions.end();
        this.listeners.close();
        // The connection has ended, however it did: its on-disconnect writes run now (§17).
        options.disconnect?.end().catch(options.onError);
      },
      closed: () => {
        this.token.stop();
        options.onClosed(this);
      },
    });
    const slotsTaken = () => this.subscriptions.size + this.listeners.size;
    this.listeners = options.listeners(
      (text) => this.out.send(text),
      () => options.maxSubscriptions - slotsTaken(),
    );
    this.subscriptions = new TreeSubscriptions(
      feed,
      {
        tree: options.tree,
        projectId: this.projectId,
        userId: this.userId,
        maxSubscriptions: options.maxSubscriptions,
        otherSlotsTaken: () => this.listeners.size,
      },
      this.out,
    );
    const inbox = new SessionInbox(this.out, (text, isBinary) => this.handle(text, isBinary), options.onError);
    socket.on('message', (data, isBinary) => {
      this.out.markAlive();
      inbox.receive(data.toString(), isBinary);
    });
  }

  /** Pings the client (a heartbeat). */
  ping(): void {
    this.out.ping();
  }

  /** After the pong wait: drops a client that missed two pings in a row. */
  checkPong(): void {
    this.out.checkPong();
  }

  /** Throws unless the caller may still hold the connection (the gateway closes it with 1008 then). */
  recheck(): Promise<void> {
    return this.caller.recheck();
  }

  /** Calls `callback` once the socket has closed (at once if it has). */
  onceClosed(callback: () => void): void {
    this.out.onceClosed(callback);
  }

  /** Starts the closing handshake with `code`; the socket is destroyed if it does not finish in time. */
  close(code: number, reason: string): void {
    this.out.close(code, reason);
  }

  /** Destroys the socket at once. */
  terminate(): void {
    this.out.terminate();
  }

  /** Checks the subscriptions and listeners again under the rules now (§9); `all` when the ruleset changed. */
  async reviewGrants(all: boolean): Promise<void> {
    if (this.out.closing) return;
    await this.listeners.reviewGrants(all);
    await this.subscriptions.reviewGrants(all);
  }

  /**
   * Handles one message; a write returns once it has its place in the commit order, with its reply
   * still pending.
   */
  private async handle(text: string, isBinary: boolean): Promise<{ reply: Promise<void> | null }> {
    if (isBinary) return { reply: this.replyInOrder(errorMessage('Messages must be JSON text')) };
    const parsed = parseClientMessage(text, this.options.pathLimits);
    if (!parsed.ok) return { reply: this.replyInOrder(errorMessage(parsed.error, parsed.id)) };
    const message = parsed.message;
    if (message.action === 'set' || message.action === 'patch' || message.action === 'delete') {
      return this.startWrite(message);
    }
    // Anything else sees this connection's earlier writes committed and answered.
    await this.replies.drained();
    try {
      await this.apply(message);
    } catch (error) {
      this.sendError(error, message.id);
    }
    return { reply: null };
  }

  /** Sends `text` after the replies to the connection's earlier writes. */
  private replyInOrder(text: string): Promise<void> {
    return this.replies.after(Promise.resolve(), () => this.out.send(text));
  }

  /** A write's origin for its before hook; the request id is drawn only when a hook asks for it. */
  private originOf(userId: number): HookOrigin {
    let requestId: string | undefined;
    return {
      userId,
      get requestId() {
        requestId ??= randomUUID();
        return requestId;
      },
      log: this.options.log,
    };
  }

  private sendError(error: unknown, id: MessageId | undefined): void {
    // A before hook's refusal or failure (§16) carries the status a REST write would have answered.
    if (error instanceof FunctionRejection) {
      this.out.send(callErrorMessage(error.status, error.detail, id));
      return;
    }
    if (error instanceof AppError && (error.code === 'failed' || error.code === 'unavailable')) {
      this.out.send(callErrorMessage(statusOf[error.code], error.message, id));
      return;
    }
    if (!(error instanceof AppError)) this.options.onError(error);
    const current = error instanceof TreePreconditionFailed ? { etag: error.etag, value: error.value } : undefined;
    this.out.send(errorMessage(error instanceof AppError ? error.message : 'Internal error', id, current));
  }

  private async apply(message: Exclude<ClientMessage, WriteMessage>): Promise<void> {
    switch (message.action) {
      case 'auth':
        return this.reauthenticate(message.accessToken, message.id);
      case 'listen':
      case 'unlisten':
        return this.listeners.handle(message.action, message.body);
      case 'subscribe':
        return this.subscriptions.subscribe(message.path, message.id, message.since);
      case 'unsubscribe':
        this.subscriptions.unsubscribe(message.path, message.id);
        return;
      case 'call':
        // Not awaited: a function may take seconds, and the connection's next messages need not wait for it.
        this.startCall(message);
        return;
      case 'on_disconnect':
        return this.storeOnDisconnect(message);
    }
  }

  /** Stores or cancels an on-disconnect write (§17), answering `ack` once it is stored. */
  private async storeOnDisconnect(message: Extract<ClientMessage, { action: 'on_disconnect' }>): Promise<void> {
    const ops = this.options.disconnect;
    if (!ops) throw new AppError('unavailable', 'On-disconnect writes are not available');
    // An admin socket needs `document.manage` as for its writes; a cancel only removes its own ops.
    if (message.request.op !== 'cancel') await this.caller.requireWrite();
    await ops.request(message.request);
    this.out.send(ackMessage('on_disconnect', message.path, message.id));
  }

  /** Runs a `call` (§16) and answers `result`, or `error` with the status the HTTP route would answer. */
  private startCall(message: Extract<ClientMessage, { action: 'call' }>): void {
    const run = async () => this.options.callFunction(await this.caller.functionCaller(), message.name, message.input);
    run().then(
      (result) => this.out.send(resultMessage(result, message.id)),
      (error: unknown) => {
        if (error instanceof FunctionRejection) this.out.send(callErrorMessage(error.status, error.detail, message.id));
        else if (error instanceof AppError)
          this.out.send(callErrorMessage(statusOf[error.code], error.message, message.id));
        else {
          this.options.onError(error);
          this.out.send(callErrorMessage(500, 'Internal error', message.id));
        }
      },
    );
  }

  /**
   * Starts a write and resolves once it has its place in the commit order (or failed before),
   * with the promise of its reply: the connection's next message need not wait for the commit.
   */
  private async startWrite(message: WriteMessage): Promise<{ reply: Promise<void> }> {
    // A rule may read stored values: under rules a write waits for the connection's earlier ones.
    if (!this.replies.idle && (await this.options.tree.rulesFor(this.projectId, this.userId))) {
      await this.replies.drained();
    }
    let placed = () => {};
    const isPlaced = new Promise<void>((resolve) => {
      placed = resolve;
    });
    const committed = this.write(message, placed);
    const reply = this.replies.after(committed, (result) => {
      if (result.status === 'fulfilled') this.out.send(ackMessage(message.action, message.path, message.id));
      else this.sendError(result.reason, message.id);
    });
    await Promise.race([isPlaced, committed.catch(() => undefined)]);
    return { reply };
  }

  private async write(message: WriteMessage, placed: () => void): Promise<void> {
    const { tree } = this.options;
    const options: TreeWriteOptions = { ...writeOptionsOf(message), placed };
    if (this.userId !== undefined) options.origin = this.originOf(this.userId);
    await this.caller.requireWrite();
    if (message.action === 'set') await tree.set(this.projectId, message.path, message.value, this.userId, options);
    else if (message.action === 'patch') {
      await tree.patch(this.projectId, message.path, message.value, this.userId, options);
    } else await tree.delete(this.projectId, message.path, this.userId, options);
  }

  /**
   * Replaces the socket's token (§14). A token that is invalid, or names another user or project,
   * ends the connection (`error`, then 1008); an outage only refuses the message.
   */
  private async reauthenticate(accessToken: string, id: MessageId | undefined): Promise<void> {
    let grant: ExpiringGrant;
    try {
      grant = await this.caller.reauthenticate(accessToken);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'invalid_token') throw error;
      this.out.send(errorMessage(error.message, id));
      this.close(1008, error.message);
      return;
    }
    this.token.replace(grant);
    this.out.send(authAckMessage(id));
  }
}
