import type { WebSocket } from 'ws';
import { AppError } from '../core/errors.js';
import type { JsonValue } from '../core/json.js';
import type { PathLimits } from '../core/paths.js';
import { updateFor } from '../core/realtime/commit-event.js';
import {
  ackMessage,
  authAckMessage,
  type ClientMessage,
  cancelMessage,
  errorMessage,
  initMessage,
  type MessageId,
  parseClientMessage,
  resumeMessage,
  updateMessageOfJson,
  writeOptionsOf,
} from '../core/realtime/messages.js';
import { TreePreconditionFailed } from '../core/realtime/tree-atomic.js';
import { ancestorsOf } from '../core/realtime/tree-path.js';
import { DENIED_BY_RULES, deniedByRules, type GrantBasis, type ReadCheck } from '../core/realtime/tree-rules.js';
import type { TreeService } from '../core/realtime/tree-service.js';
import type { TreeCommit } from '../core/realtime/tree-store.js';
import { changeJson } from '../core/realtime/tree-value.js';
import type { CommitBroadcast, UpdateFrame } from './commit-broadcast.js';
import type { DocumentListeners } from './document-listeners.js';
import { OrderedReplies } from './ordered-replies.js';
import type { FeedListener, FeedMatch, FeedSubscription, ProjectFeed } from './project-feed.js';
import { type ExpiringGrant, SessionToken, TOKEN_EXPIRED_CODE, TOKEN_EXPIRED_REASON } from './session-token.js';

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
}

/** What a session needs besides its socket and feed. */
export interface SessionOptions {
  tree: TreeService;
  pathLimits: PathLimits;
  maxSubscriptions: number;
  /** Past this many bytes waiting in the socket's send buffer, the client is too slow: close 1008. */
  maxBufferedBytes: number;
  /**
   * How long a socket closed by the server may take to finish the closing handshake before it is
   * destroyed. A slow consumer must first read its backlog to see its 1008, so it gets longer.
   */
  closeGraceMs: number;
  slowConsumerGraceMs: number;
  onClosed: (session: RealtimeSession) => void;
  onError: (error: unknown) => void;
  /** The connection's document listeners (§10), given the session's `send`. */
  listeners: (send: (text: string) => void, freeSlots: () => number) => DocumentListeners;
}

/** A subscription of this connection: the feed's index holds it, the session finds it by path. */
interface LiveSubscription extends FeedSubscription {
  /** What the rules granted it under (§9); null under the open ruleset. */
  grant: GrantBasis | null;
}

/** A commit waiting for a pending subscription's first answer, with the matches the feed found. */
interface HeldCommit {
  broadcast: CommitBroadcast;
  matches: readonly FeedMatch[];
}

type FirstAnswer =
  | { kind: 'init'; version: number; value: JsonValue }
  | { kind: 'resume'; version: number; since: number; commits: TreeCommit[] };

type WriteMessage = Extract<ClientMessage, { action: 'set' | 'patch' | 'delete' }>;

interface PendingSubscription {
  /** Registered with the feed from the start, receiving nothing until activated. */
  subscription: LiveSubscription;
  id: MessageId | undefined;
  answer: FirstAnswer | null;
  done: () => void;
}

const OPEN = 1;
// Inbound backpressure: stop reading a client that queues more messages than this.
const MAX_QUEUED = 256;
const RESUME_BELOW = 32;
// A burst of one client's messages yields to the event loop this often, so others are heard too.
const YIELD_EVERY = 8;
// Commits held while a subscription's snapshot is read; a client lagging this far is closed.
const MAX_HELD = 20_000;

/**
 * One WebSocket connection (§4). Messages are handled one at a time, in order. Updates reach the
 * client in commit order: while a subscription reads its snapshot (version V), commits are held;
 * those up to V go out first, then the `init`, then the rest, so nothing older than an `init`
 * follows it and nothing is lost or sent twice.
 */
export class RealtimeSession implements FeedListener {
  /** The active subscriptions by path (the feed's index holds the same objects). */
  private readonly live = new Map<string, LiveSubscription>();
  private pending: PendingSubscription | null = null;
  private readonly held: HeldCommit[] = [];
  private inbox: Promise<void> = Promise.resolve();
  private readonly replies: OrderedReplies;
  private queued = 0;
  private handledInARow = 0;
  private corked = false;
  private paused = false;
  private alive = true;
  private closing = false;
  private detached = false;
  private graceTimer: NodeJS.Timeout | null = null;
  private socketClosed = false;
  private readonly closedCallbacks: (() => void)[] = [];

  /** The project of the connection. */
  readonly projectId: number;
  /** The client user of its access token; undefined for an admin connection (no rules). */
  readonly userId: number | undefined;
  /** The access token it runs on now (§14). */
  readonly token: SessionToken<ExpiringGrant>;
  private readonly listeners: DocumentListeners;

  constructor(
    private readonly socket: WebSocket,
    private readonly caller: SessionCaller,
    private readonly feed: ProjectFeed,
    private readonly options: SessionOptions,
  ) {
    this.projectId = caller.projectId;
    this.userId = caller.userId;
    this.token = new SessionToken(caller.grant, () => this.close(TOKEN_EXPIRED_CODE, TOKEN_EXPIRED_REASON));
    this.replies = new OrderedReplies(options.onError);
    this.listeners = options.listeners(
      (text) => this.send(text),
      () => options.maxSubscriptions - this.live.size - this.listeners.size,
    );
    feed.join(this);
    socket.on('message', (data, isBinary) => this.onFrame(data.toString(), isBinary));
    socket.on('pong', () => {
      this.alive = true;
    });
    socket.on('close', () => this.onSocketClosed());
  }

  /** Pings the client; a client that did not answer the previous ping is dropped. */
  heartbeat(): void {
    if (!this.alive) {
      this.socket.terminate();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  /** Throws unless the caller may still hold the connection (the gateway closes it with 1008 then). */
  recheck(): Promise<void> {
    return this.caller.recheck();
  }

  /** Calls `callback` once the socket has closed (at once if it has). */
  onceClosed(callback: () => void): void {
    if (this.socketClosed) callback();
    else this.closedCallbacks.push(callback);
  }

  /** Starts the closing handshake with `code`; the socket is destroyed if it does not finish in time. */
  close(code: number, reason: string, graceMs = this.options.closeGraceMs): void {
    if (this.closing) return;
    this.closing = true;
    this.held.length = 0;
    this.detach();
    this.socket.close(code, reason);
    this.graceTimer = setTimeout(() => this.socket.terminate(), graceMs);
    this.graceTimer.unref();
  }

  /** Destroys the socket at once. */
  terminate(): void {
    this.socket.terminate();
  }

  deliver(broadcast: CommitBroadcast, matches: readonly FeedMatch[]): void {
    if (this.closing) return;
    if (!this.pending && this.held.length === 0) {
      this.dispatch(broadcast, matches);
      return;
    }
    this.held.push({ broadcast, matches });
    if (this.held.length > MAX_HELD) this.close(1008, 'Too far behind');
    else this.pump();
  }

  feedAdvanced(): void {
    this.pump();
  }

  resync(): void {
    this.close(1012, 'Updates were lost; reconnect and subscribe again');
  }

  private onFrame(text: string, isBinary: boolean): void {
    this.alive = true;
    if (this.closing) return;
    this.queued += 1;
    if (this.queued > MAX_QUEUED && !this.paused) {
      this.paused = true;
      this.socket.pause();
    }
    this.inbox = this.inbox.then(async () => {
      // A write's reply may still wait for its commit: the message counts as queued until then.
      let reply: Promise<void> | null = null;
      try {
        if (isBinary)
          reply = this.replies.after(Promise.resolve(), () => this.send(errorMessage('Messages must be JSON text')));
        else if (!this.closing) reply = (await this.handle(text)).reply;
        this.handledInARow = this.queued > 1 ? this.handledInARow + 1 : 0;
        if (this.handledInARow >= YIELD_EVERY) {
          this.handledInARow = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
      } catch (error) {
        this.options.onError(error);
      } finally {
        if (reply) void reply.then(() => this.messageDone());
        else this.messageDone();
      }
    });
  }

  private messageDone(): void {
    this.queued -= 1;
    if (this.paused && this.queued < RESUME_BELOW && !this.closing) {
      this.paused = false;
      this.socket.resume();
    }
  }

  /**
   * Handles one message; a write returns once it has its place in the commit order, with its reply
   * still pending (in an object: a promise returned from an async function would be waited for).
   */
  private async handle(text: string): Promise<{ reply: Promise<void> | null }> {
    const parsed = parseClientMessage(text, this.options.pathLimits);
    if (!parsed.ok) {
      return { reply: this.replies.after(Promise.resolve(), () => this.send(errorMessage(parsed.error, parsed.id))) };
    }
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

  private sendError(error: unknown, id: MessageId | undefined): void {
    if (!(error instanceof AppError)) this.options.onError(error);
    const current = error instanceof TreePreconditionFailed ? { etag: error.etag, value: error.value } : undefined;
    this.send(errorMessage(error instanceof AppError ? error.message : 'Internal error', id, current));
  }

  private async apply(message: Exclude<ClientMessage, WriteMessage>): Promise<void> {
    switch (message.action) {
      case 'auth':
        return this.reauthenticate(message.accessToken, message.id);
      case 'listen':
      case 'unlisten':
        return this.listeners.handle(message.action, message.body);
      case 'subscribe':
        return this.subscribe(message.path, message.id, message.since);
      case 'unsubscribe':
        this.unsubscribe(message.path);
        this.send(ackMessage(message.action, message.path, message.id));
    }
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
      if (result.status === 'fulfilled') this.send(ackMessage(message.action, message.path, message.id));
      else this.sendError(result.reason, message.id);
    });
    await Promise.race([isPlaced, committed.catch(() => undefined)]);
    return { reply };
  }

  private async write(message: WriteMessage, placed: () => void): Promise<void> {
    const { tree } = this.options;
    const options = { ...writeOptionsOf(message), placed };
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
      this.send(errorMessage(error.message, id));
      this.close(1008, error.message);
      return;
    }
    this.token.replace(grant);
    this.send(authAckMessage(id));
  }

  private async subscribe(path: string, id: MessageId | undefined, since: number | undefined): Promise<void> {
    // A rule that needs no stored value decides before anything is registered; one that reads
    // `resource.value` decides on the snapshot (an error then unregisters, as any failure does).
    const rules = await this.options.tree.rulesFor(this.projectId, this.userId);
    const read = rules?.readCheck(path) ?? null;
    if (read && !read.needsValue && !read.allows(null)) throw deniedByRules();
    const previous = this.live.get(path);
    if (!previous && this.live.size + this.listeners.size >= this.options.maxSubscriptions) {
      throw new AppError('bad_request', `Too many subscriptions (max ${this.options.maxSubscriptions})`);
    }
    // Subscribing again replaces the subscription: a fresh init, and no duplicated updates.
    if (previous) {
      this.live.delete(path);
      this.feed.unsubscribe(previous);
    }
    let done = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const subscription: LiveSubscription = {
      listener: this,
      path,
      since: Number.POSITIVE_INFINITY,
      grant: rules?.basis ?? null,
    };
    const pending: PendingSubscription = { subscription, id, answer: null, done };
    this.pending = pending;
    // Registered before the snapshot is read: commits made meanwhile are held, none is missed.
    this.feed.subscribe(subscription);
    try {
      await this.feed.ready();
      pending.answer = await this.firstAnswer(path, since, read?.needsValue ? read : null);
    } catch (error) {
      if (this.pending === pending) this.pending = null;
      this.feed.unsubscribe(subscription);
      this.pump();
      throw error;
    }
    this.pump();
    await finished;
  }

  /** The `init` or `resume` of a subscription; `read` when the rules must see the value at `path`. */
  private async firstAnswer(path: string, since: number | undefined, read: ReadCheck | null): Promise<FirstAnswer> {
    const { tree } = this.options;
    if (since !== undefined) {
      const history = await tree.changesSince(this.projectId, since);
      if (history) {
        if (read && !read.allows((await tree.snapshot(this.projectId, path)).value)) throw deniedByRules();
        return { kind: 'resume', version: history.version, since, commits: history.commits };
      }
    }
    const snapshot = await tree.snapshot(this.projectId, path);
    if (read && !read.allows(snapshot.value)) throw deniedByRules();
    return { kind: 'init', version: snapshot.version, value: snapshot.value };
  }

  /**
   * Checks the live subscriptions again under the rules now (§9): those granted under another
   * ruleset or another `request.auth`, or all when `all` (the ruleset just changed). One no longer
   * granted is cancelled and sends nothing more. Data changes alone re-check nothing.
   */
  async reviewGrants(all: boolean): Promise<void> {
    if (this.closing) return;
    await this.listeners.reviewGrants(all);
    if (this.live.size === 0) return;
    const { tree } = this.options;
    const rules = await tree.rulesFor(this.projectId, this.userId);
    if (!rules) return;
    for (const subscription of [...this.live.values()]) {
      if (!all && rules.covers(subscription.grant)) continue;
      const allowed = await rules.mayRead(subscription.path, tree.valueAt(this.projectId));
      // Unsubscribed or replaced meanwhile: the new one was decided on its own.
      if (this.live.get(subscription.path) !== subscription) continue;
      if (allowed) subscription.grant = rules.basis;
      else {
        this.unsubscribe(subscription.path);
        this.send(cancelMessage(subscription.path, DENIED_BY_RULES));
      }
    }
  }

  private unsubscribe(path: string): void {
    const subscription = this.live.get(path);
    if (!subscription) return;
    this.live.delete(path);
    this.feed.unsubscribe(subscription);
  }

  /** Sends held commits and a pending subscription's first answer in version order. */
  private pump(): void {
    while (!this.closing) {
      const pending = this.pending;
      if (pending) {
        const answer = pending.answer;
        if (!answer) return;
        const head = this.held[0];
        if (head && head.broadcast.version <= answer.version) {
          this.held.shift();
          this.dispatch(head.broadcast, head.matches);
          continue;
        }
        if (this.feed.cursor < answer.version) {
          // Commits up to the snapshot's version are still on their way: wait for the feed.
          this.feed.waitForAdvance(this, answer.version);
          return;
        }
        this.feed.stopWaiting(this);
        this.activate(pending, answer);
        continue;
      }
      const head = this.held.shift();
      if (!head) return;
      this.dispatch(head.broadcast, head.matches);
    }
  }

  private activate(pending: PendingSubscription, answer: FirstAnswer): void {
    this.pending = null;
    const { subscription } = pending;
    if (answer.kind === 'init') {
      this.send(initMessage(subscription.path, answer.value, answer.version, pending.id));
    } else {
      this.send(resumeMessage(subscription.path, answer.since, pending.id));
      for (const commit of answer.commits) this.replay(subscription.path, commit);
    }
    subscription.since = answer.version;
    this.live.set(subscription.path, subscription);
    pending.done();
  }

  /**
   * Sends the updates of a live commit to the subscriptions the feed matched that follow an older
   * version: each distinct message once, whatever the overlaps.
   */
  private dispatch(broadcast: CommitBroadcast, matches: readonly FeedMatch[]): void {
    const version = broadcast.version;
    if (matches.length === 1) {
      // The common case: one subscription concerned, one message.
      const [{ subscription, change, relation }] = matches as [FeedMatch];
      if (subscription.since < version) this.sendFrame(broadcast.update(subscription.path, change, relation));
      return;
    }
    const sent = new Set<UpdateFrame>();
    for (const { subscription, change, relation } of matches) {
      if (subscription.since >= version) continue;
      const frame = broadcast.update(subscription.path, change, relation);
      if (sent.has(frame)) continue;
      sent.add(frame);
      this.sendFrame(frame);
    }
  }

  /**
   * Sends a missed commit to a resumed subscription, except what another live subscription
   * already sent (the same message) or superseded (its `init` is newer).
   */
  private replay(path: string, commit: TreeCommit): void {
    const sent = new Set<string>();
    for (const change of commit.changes) {
      const update = updateFor(path, change);
      if (!update || sent.has(update.path)) continue;
      sent.add(update.path);
      // Live subscriptions at the update's path or above it would have sent it, or a newer init.
      let covered = false;
      for (const livePath of [update.path, ...ancestorsOf(update.path)]) {
        const subscription = this.live.get(livePath);
        if (!subscription) continue;
        if (subscription.since >= commit.version || updateFor(livePath, change)?.path === update.path) covered = true;
      }
      const json = update === change ? changeJson(change) : JSON.stringify(update.value);
      if (!covered) this.send(updateMessageOfJson(update.path, json, commit.version));
    }
  }

  private send(text: string): void {
    if (!this.writable()) return;
    this.corkUntilTurnEnds();
    this.socket.send(text, { binary: false });
  }

  /**
   * Sends an update framed once for all its receivers: its bytes go to the socket as they are,
   * where `ws` would frame them again for each. (`ws` writes each frame whole and queues nothing
   * here: it queues only while compressing or reading a Blob, and this gateway does neither.)
   */
  private sendFrame(frame: UpdateFrame): void {
    if (!this.writable()) return;
    this.corkUntilTurnEnds();
    const raw = this.rawSocket();
    if (raw) raw.write(frame.wire);
    else this.socket.send(frame.payload, { binary: false });
  }

  /** Whether a message may be sent now; a client whose backlog passed the limit is closed (1008). */
  private writable(): boolean {
    if (this.closing || this.socket.readyState !== OPEN) return false;
    // Checked before sending: one large message (a big init) may pass, a backlog may not.
    if (this.socket.bufferedAmount > this.options.maxBufferedBytes) {
      this.close(
        1008,
        'Send buffer over limit: the client does not read its messages',
        this.options.slowConsumerGraceMs,
      );
      return false;
    }
    return true;
  }

  /** The net.Socket `ws` writes its frames to. */
  private rawSocket(): { cork(): void; uncork(): void; write(bytes: Buffer): boolean } | undefined {
    return (this.socket as unknown as { _socket?: { cork(): void; uncork(): void; write(bytes: Buffer): boolean } })
      ._socket;
  }

  /**
   * Holds the socket's writes until the current run of JavaScript ends, then writes them at once:
   * the updates of one commit (a patch sends one per key) reach the client in one read, so a client
   * that groups the messages of a version (the SDK calls `onValue` once per version) does not see
   * them split by a preempted server; and the commits of a batch cost one system call per socket,
   * not one per commit.
   */
  private corkUntilTurnEnds(): void {
    if (this.corked) return;
    // Corking the net.Socket is what `ws`'s own Sender does for a frame in two parts.
    const raw = this.rawSocket();
    if (!raw) return;
    this.corked = true;
    raw.cork();
    queueMicrotask(() => {
      this.corked = false;
      raw.uncork();
    });
  }

  /** Leaves the feed: no more commits reach this session. */
  private detach(): void {
    if (this.detached) return;
    this.detached = true;
    const subscriptions = [...this.live.values()];
    if (this.pending) subscriptions.push(this.pending.subscription);
    this.feed.leave(this, subscriptions);
    this.listeners.close();
    this.pending?.done();
  }

  private onSocketClosed(): void {
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.token.stop();
    this.socketClosed = true;
    this.closing = true;
    this.held.length = 0;
    this.detach();
    this.options.onClosed(this);
    for (const callback of this.closedCallbacks.splice(0)) callback();
  }
}
