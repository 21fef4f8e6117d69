import { ConnectionLife } from './connection-life.js';
import {
  DocumentListeners,
  isListenerId,
  type ListenerMessage,
  type SnapshotErrorListener,
  type SnapshotListener,
} from './document-listeners.js';
import { CdsError, socketError } from './errors.js';
import type { Session } from './session.js';
import { SocketCalls } from './socket-calls.js';
import { ValueCopies, type ValueListener } from './value-copies.js';
import type { SocketEvent, WebSocketConstructor, WebSocketLike } from './websocket.js';
import { type WriteMessage, WriteQueue, type WriteState } from './write-queue.js';

interface ServerMessage extends ListenerMessage {
  event?: string;
  id?: unknown;
  path?: string;
  value?: unknown;
  version?: number;
  message?: string;
  etag?: string;
  result?: unknown;
  status?: number;
}

export interface SocketOptions {
  /** `ws://host` or `wss://host`. */
  url: string;
  clientId: string;
  clientSecret: string;
  session: Session;
  WebSocket: () => Promise<WebSocketConstructor>;
  onError?: (error: CdsError) => void;
  /** How long a write made while disconnected waits for a connection (default 60,000 ms). */
  offlineWriteTimeoutMs?: number;
}

/** §14: the server closes a socket whose token expired with this code. */
const TOKEN_EXPIRED = 4001;

const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 10_000;

/**
 * The one WebSocket of a client (§4, §12): every subscription shares it; when it drops it
 * reconnects with exponential backoff and jitter and resubscribes each path with `since` the last
 * version seen, so callbacks continue without a gap or a repeat.
 */
export class RealtimeSocket {
  private readonly copies = new ValueCopies();
  private readonly listeners = new DocumentListeners();
  private socket: WebSocketLike | null = null;
  private connecting = false;
  private closed = false;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly writes: WriteQueue;
  private readonly calls = new SocketCalls();
  /** §17: on-disconnect ops, presences and the connection state, redone on every connection. */
  readonly life: ConnectionLife;
  /** The access token the server holds for this socket (handshake or last `auth`). */
  private token: string | null = null;
  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  /** Number of (re)connections opened, for tests and diagnostics. */
  connections = 0;

  constructor(private readonly options: SocketOptions) {
    this.writes = new WriteQueue(options.offlineWriteTimeoutMs ?? 60_000);
    this.life = new ConnectionLife({
      send: (message) => this.sendText(JSON.stringify(message)),
      connect: () => this.connect(),
      offlineTimeoutMs: options.offlineWriteTimeoutMs ?? 60_000,
      onError: (error) => options.onError?.(error),
    });
    options.session.onChange((token, sameUser) => this.tokenChanged(token, sameUser));
  }

  /**
   * Sends a write (§4 `set`/`patch`/`delete`) and resolves on its `ack`; while disconnected it
   * waits, in order with the others (see WriteQueue). A refusal rejects with the mapped CdsError.
   */
  write(message: WriteMessage, state?: WriteState): Promise<void> {
    const sent = this.writes.add(message, (text) => this.sendText(text), state);
    this.connect();
    return sent.then(() => this.life.wrote(message));
  }

  /**
   * Calls a server function over the socket (§16 `call`) when it is open, resolving with its
   * result or rejecting with the CdsError the REST route's answer would give; null when the
   * socket is not open (the caller goes over REST then). Never opens the socket.
   */
  call(name: string, input: unknown): Promise<unknown> | null {
    if (this.socket?.readyState !== 1) return null;
    return this.calls.start(name, input, (text) => this.sendText(text));
  }

  /** Calls `listener` with the value at `path` now and after every version that touches it. */
  subscribe(path: string, listener: ValueListener): () => void {
    const stop = this.copies.add(path, listener, (message) => this.send(message));
    this.connect();
    return stop;
  }

  /** A §10 document listener: `target` is the `listen` message's document or query part. */
  listen(
    target: Record<string, unknown>,
    orderBy: string | undefined,
    callback: SnapshotListener,
    onError?: SnapshotErrorListener,
  ): () => void {
    const stop = this.listeners.add(target, orderBy, callback, onError, (message) => this.send(message));
    this.connect();
    return stop;
  }

  close(): void {
    this.closed = true;
    this.reset(new CdsError(0, 'Client closed', 'network'));
  }

  /** Ends every subscription and write and closes the connection; later use connects again (sign-out). */
  reset(error: CdsError = new CdsError(401, 'Signed out', 'unauthenticated')): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.timer = this.refreshTimer = null;
    this.copies.clear();
    this.listeners.clear();
    this.writes.failAll(error);
    this.calls.failAll(error);
    this.life.clear(error);
    const socket = this.socket;
    this.socket = null;
    this.token = null;
    this.life.closed();
    socket?.close(1000);
  }

  /** Drops the connection as a network failure would (tests, or after a network change). */
  reconnect(): void {
    this.socket?.close(4000, 'reconnect');
  }

  private send(message: Record<string, unknown>): void {
    this.sendText(JSON.stringify(message));
  }

  private sendText(text: string): boolean {
    if (this.socket?.readyState !== 1) return false;
    this.socket.send(text);
    return true;
  }

  /** A new access token (refresh or sign-in): the open socket gets it with §14 `auth`; another user's means a new socket. */
  private tokenChanged(token: string | null, sameUser: boolean): void {
    // A connecting socket gets the new token when it opens (see open()).
    if (this.socket?.readyState !== 1 || token === this.token) return;
    if (token === null || !sameUser) {
      this.listeners.forgetSince();
      // The ops and presences were the other user's: they run as this connection closes.
      this.life.clear(new CdsError(401, 'Signed in as another user', 'unauthenticated'));
      this.socket?.close(4000, 'session changed');
      return;
    }
    this.token = token;
    this.send({ action: 'auth', access_token: token });
    this.scheduleRefresh();
  }

  /** Refreshes the token before it expires while the socket is open (the server closes it with 4001 after). */
  private scheduleRefresh(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    const at = this.options.session.refreshAt();
    if (at === null || !this.socket) return;
    this.refreshTimer = setTimeout(
      () => {
        this.refreshTimer = null;
        // A timer may fire a millisecond before the clock says the refresh is due, and then
        // accessToken() would not refresh and nothing would wake this again: wait once more.
        if (Date.now() < at) return this.scheduleRefresh();
        // accessToken() refreshes when due; the session's change event sends `auth`.
        this.options.session.accessToken().catch(() => this.scheduleRefresh());
      },
      Math.min(Math.max(0, at - Date.now()), 2 ** 31 - 1),
    );
  }

  private connect(): void {
    if (this.closed || this.socket || this.connecting || this.timer) return;
    this.connecting = true;
    void this.open().finally(() => {
      this.connecting = false;
    });
  }

  private async open(): Promise<void> {
    let socket: WebSocketLike;
    try {
      const [Ctor, token] = await Promise.all([this.options.WebSocket(), this.options.session.accessToken()]);
      if (this.closed) return;
      this.token = token;
      const query = new URLSearchParams({
        client_id: this.options.clientId,
        client_secret: this.options.clientSecret,
        access_token: token,
      });
      socket = new Ctor(`${this.options.url}/realtime/ws?${query}`);
    } catch (error) {
      // Signed out: writes cannot wait for a session that may never come.
      if (error instanceof CdsError && error.code === 'unauthenticated') {
        this.writes.failAll(error);
        this.life.clear(error);
      }
      this.retry();
      return;
    }
    this.socket = socket;
    socket.addEventListener('open', () => {
      this.attempt = 0;
      this.connections += 1;
      for (const message of this.copies.subscribeMessages()) socket.send(JSON.stringify(message));
      for (const message of this.listeners.listenMessages()) socket.send(JSON.stringify(message));
      this.life.opened();
      const current = this.options.session.currentToken();
      if (current && current !== this.token) this.tokenChanged(current, true);
      this.writes.sendAll((text) => this.sendText(text));
      this.scheduleRefresh();
    });
    socket.addEventListener('message', (event) => this.receive(event));
    socket.addEventListener('close', (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.refreshTimer) clearTimeout(this.refreshTimer);
      this.refreshTimer = null;
      this.copies.flush();
      this.writes.dropped();
      this.life.closed();
      this.calls.failAll(
        new CdsError(0, 'Connection lost before the function answered: it may or may not have run', 'network'),
      );
      const stale = this.token;
      if (event.code === TOKEN_EXPIRED && stale) {
        // The token expired before a refresh reached the socket: refresh, then reconnect with `since`.
        this.options.session.refresh(stale).then(
          () => this.retry(),
          () => this.retry(),
        );
      } else this.retry();
    });
    socket.addEventListener('error', () => {
      // A close event follows; reconnecting happens there.
    });
  }

  private retry(): void {
    const idle = this.copies.size + this.listeners.size + this.writes.size + this.life.size === 0;
    if (this.closed || this.timer || idle) return;
    const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** this.attempt);
    this.attempt += 1;
    const delay = ceiling / 2 + (Math.random() * ceiling) / 2;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  private receive(event: SocketEvent): void {
    let message: ServerMessage;
    try {
      message = JSON.parse(String(event.data)) as ServerMessage;
    } catch {
      return;
    }
    const version = message.version ?? 0;
    if (isListenerId(message.id) && message.event !== 'ack') this.listeners.receive(message, this.options.onError);
    else if (message.event === 'update' && typeof message.path === 'string')
      this.copies.update(message.path, message.value, version);
    else if (message.event === 'init' && typeof message.path === 'string')
      this.copies.init(message.path, message.value, version);
    else if (message.event === 'resume' && typeof message.path === 'string') this.copies.resume(message.path, version);
    else if ((message.event === 'result' || message.event === 'error') && this.calls.settle(message)) {
      // A call's answer.
    } else if ((message.event === 'ack' || message.event === 'error') && this.writes.settle(message)) {
      // A write's answer.
    } else if ((message.event === 'ack' || message.event === 'error') && this.life.settle(message)) {
      // An on-disconnect op's answer, or a presence write's.
    } else if (message.event === 'error') this.options.onError?.(socketError(message.message ?? 'error'));
  }
}
