import { CdsError, socketError } from './errors.js';
import type { Session } from './session.js';
import { below, jsonEqual, replaceAt, valueAt } from './tree.js';
import type { SocketEvent, WebSocketConstructor, WebSocketLike } from './websocket.js';
import { type WriteMessage, WriteQueue, type WriteState } from './write-queue.js';

/** What `onValue` callbacks receive besides the value. */
export interface ValueMeta {
  version: number;
}

export type ValueListener = (value: unknown, meta: ValueMeta) => void;

interface Subscription {
  path: string;
  listeners: Set<ValueListener>;
  value: unknown;
  /** The version the copy reflects. */
  version: number;
  /** Updates at or below this version are already in the copy (the init or resume point). */
  base: number;
  /** An init has arrived at least once: later subscribes send `since`. */
  synced: boolean;
  /** The version of a call not yet made (updates of one write are delivered as one call). */
  pending: number | null;
}

interface ServerMessage {
  event?: string;
  id?: unknown;
  path?: string;
  value?: unknown;
  version?: number;
  message?: string;
  etag?: string;
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
/** How long the last updates wait for more messages of their version (quiet time, and at most). */
const COALESCE_MS = 20;
const COALESCE_MAX_MS = 100;

const afterIo: (fn: () => void) => void =
  (globalThis as { setImmediate?: (fn: () => void) => void }).setImmediate ?? ((fn) => setTimeout(fn, 0));

/**
 * The one WebSocket of a client (§4, §12): every subscription shares it; when it drops it
 * reconnects with exponential backoff and jitter and resubscribes each path with `since` the last
 * version seen, so callbacks continue without a gap or a repeat.
 */
export class RealtimeSocket {
  private readonly subs = new Map<string, Subscription>();
  private socket: WebSocketLike | null = null;
  private connecting = false;
  private closed = false;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private flushStarted: number | null = null;
  private readonly writes: WriteQueue;
  /** The access token the server holds for this socket (handshake or last `auth`). */
  private token: string | null = null;
  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  /** Number of (re)connections opened, for tests and diagnostics. */
  connections = 0;

  constructor(private readonly options: SocketOptions) {
    this.writes = new WriteQueue(options.offlineWriteTimeoutMs ?? 60_000);
    options.session.onChange((token, sameUser) => this.tokenChanged(token, sameUser));
  }

  /**
   * Sends a write (§4 `set`/`patch`/`delete`) and resolves on its `ack`; while disconnected it
   * waits, in order with the others (see WriteQueue). A refusal rejects with the mapped CdsError.
   */
  write(message: WriteMessage, state?: WriteState): Promise<void> {
    const sent = this.writes.add(message, (text) => this.sendText(text), state);
    this.connect();
    return sent;
  }

  /** Calls `listener` with the value at `path` now and after every version that touches it. */
  subscribe(path: string, listener: ValueListener): () => void {
    let sub = this.subs.get(path);
    if (!sub) {
      sub = { path, listeners: new Set(), value: null, version: 0, base: 0, synced: false, pending: null };
      this.subs.set(path, sub);
      this.send({ action: 'subscribe', path });
      this.connect();
    } else if (sub.synced) {
      const current = sub;
      queueMicrotask(() => {
        if (current.listeners.has(listener)) listener(current.value, { version: current.version });
      });
    }
    sub.listeners.add(listener);
    const owner = sub;
    return () => {
      owner.listeners.delete(listener);
      if (owner.listeners.size > 0 || this.subs.get(path) !== owner) return;
      this.subs.delete(path);
      this.send({ action: 'unsubscribe', path });
    };
  }

  close(): void {
    this.closed = true;
    this.reset(new CdsError(0, 'Client closed', 'network'));
  }

  /** Ends every subscription and write and closes the connection; later use connects again (sign-out). */
  reset(error: CdsError = new CdsError(401, 'Signed out', 'unauthenticated')): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.timer = this.flushTimer = this.refreshTimer = null;
    this.subs.clear();
    this.writes.failAll(error);
    const socket = this.socket;
    this.socket = null;
    this.token = null;
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
      if (error instanceof CdsError && error.code === 'unauthenticated') this.writes.failAll(error);
      this.retry();
      return;
    }
    this.socket = socket;
    socket.addEventListener('open', () => {
      this.attempt = 0;
      this.connections += 1;
      for (const sub of this.subs.values()) {
        const since = sub.synced ? { since: sub.version } : {};
        socket.send(JSON.stringify({ action: 'subscribe', path: sub.path, ...since }));
      }
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
      this.flush();
      this.writes.dropped();
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
    if (this.closed || this.timer || (this.subs.size === 0 && this.writes.size === 0)) return;
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
    if (message.event === 'update' && typeof message.path === 'string')
      this.update(message.path, message.value, version);
    else if (message.event === 'init' && typeof message.path === 'string')
      this.init(message.path, message.value, version);
    else if (message.event === 'resume' && typeof message.path === 'string') {
      const sub = this.subs.get(message.path);
      if (sub) sub.base = Math.max(sub.base, version);
    } else if ((message.event === 'ack' || message.event === 'error') && this.writes.settle(message)) {
      // A write's answer.
    } else if (message.event === 'error') this.options.onError?.(socketError(message.message ?? 'error'));
  }

  private init(path: string, value: unknown, version: number): void {
    const sub = this.subs.get(path);
    if (!sub) return;
    this.flush();
    const changed = !sub.synced || !jsonEqual(sub.value, value);
    sub.value = value ?? null;
    sub.version = version;
    sub.base = version;
    sub.synced = true;
    if (changed) this.emit(sub, version);
  }

  private update(path: string, value: unknown, version: number): void {
    for (const sub of this.subs.values()) {
      if (!sub.synced || version <= sub.base || version < sub.version) continue;
      const rel = below(sub.path, path);
      const down = rel === null ? below(path, sub.path) : null;
      if (rel === null && down === null) continue;
      // A new version: the previous one gets its own call first (versions are never merged).
      if (sub.pending !== null && sub.pending !== version) this.emit(sub, sub.pending);
      sub.value = rel !== null ? replaceAt(sub.value, rel, value) : valueAt(value, down ?? '');
      sub.version = version;
      sub.pending = version;
    }
    // The updates of one write (a patch sends one per key) may arrive in separate reads: the call
    // waits until a message of the next version arrives or the socket is quiet for COALESCE_MS.
    // The server sends them as separate frames, so a part delayed beyond that (a loaded server
    // preempted between two sends) gets a second call with the same version and the completed copy.
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushStarted ??= Date.now();
    const wait = Math.max(0, Math.min(COALESCE_MS, this.flushStarted + COALESCE_MAX_MS - Date.now()));
    // Then one more I/O poll (setImmediate runs after it on Node): a timer may fire before the
    // poll reads data that arrived while the event loop was busy.
    this.flushTimer = setTimeout(() => afterIo(() => this.flush()), wait);
  }

  /** Makes the calls of updates received so far. */
  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.flushStarted = null;
    for (const sub of this.subs.values()) if (sub.pending !== null) this.emit(sub, sub.pending);
  }

  private emit(sub: Subscription, version: number): void {
    sub.pending = null;
    for (const listener of [...sub.listeners]) listener(sub.value, { version });
  }
}
