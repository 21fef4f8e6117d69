import { Auth } from './auth.js';
import { WriteBatch } from './batch.js';
import { type CollectionOptions, CollectionRef, DocumentRef, Query } from './documents.js';
import { CdsError } from './errors.js';
import { Functions } from './functions.js';
import { type Fetch, Http } from './http.js';
import { LeaderboardRef, Leaderboards } from './leaderboards.js';
import { type PresenceHandle, type PresenceListener, type PresenceState, presenceListener } from './presence.js';
import { RealtimeRef } from './realtime.js';
import { Session } from './session.js';
import { RealtimeSocket } from './socket.js';
import { defaultStorage, type SessionStorage } from './storage.js';
import { normalizePath } from './tree.js';
import { loadWebSocket, type WebSocketConstructor } from './websocket.js';

export interface ClientOptions {
  /** The server root, `https://api.example.com`. */
  url: string;
  clientId: string;
  clientSecret: string;
  /** Where the session is kept; default localStorage in browsers, memory elsewhere. */
  storage?: SessionStorage;
  /** A WebSocket implementation; default `globalThis.WebSocket`, else `ws` (Node 20). */
  WebSocket?: WebSocketConstructor;
  /** A fetch implementation; default `globalThis.fetch`. */
  fetch?: Fetch;
  /** Called with WebSocket `error` events that answer no write of this client (as CdsError). */
  onSocketError?: (error: CdsError) => void;
  /** How long a realtime write made while disconnected waits before failing with `network` (default 60,000 ms). */
  offlineWriteTimeoutMs?: number;
}

/** The client: `auth`, documents, the realtime tree and leaderboards of one project. */
export interface Client {
  readonly auth: Auth;
  doc(path: string): DocumentRef;
  collection(name: string, options?: CollectionOptions): CollectionRef;
  query(collection: string, options?: CollectionOptions): Query;
  /** Document writes committed together, all or none (§11). */
  batch(): WriteBatch;
  ref(path?: string): RealtimeRef;
  leaderboard(slug: string): LeaderboardRef;
  /** The project's boards (§18 board list). */
  readonly leaderboards: Leaderboards;
  /** The project's server functions, called by name (§16). */
  readonly functions: Functions;
  /** Whether the shared WebSocket is open now. */
  readonly connected: boolean;
  /** Calls `cb(connected)` each time the socket opens or closes (not now); returns the unsubscribe function. */
  onConnectionChange(cb: (connected: boolean) => void): () => void;
  /**
   * §17: while this client is connected, `<path>/<user_id>/<connection_id>` holds `{...state, since}`
   * (deleted by the server when the connection ends; written again, under the new connection's id,
   * after each reconnect). Needs a signed-in user.
   */
  presence(path: string, state?: PresenceState): PresenceHandle;
  /** Calls `cb` with one entry per user present under `path` now and on every change; returns the unsubscribe function. */
  onPresence(path: string, cb: PresenceListener): () => void;
  /** The shared WebSocket (created on the first `onValue`, `onSnapshot`, realtime write, on-disconnect op or presence). */
  readonly socket: RealtimeSocket;
  /** Closes the socket and stops reconnecting, so a Node process can exit. */
  close(): void;
}

export function createClient(options: ClientOptions): Client {
  const baseUrl = options.url.replace(/\/+$/, '');
  const fetchFn = options.fetch ?? (globalThis.fetch.bind(globalThis) as Fetch);
  const http = new Http(baseUrl, { 'x-client-id': options.clientId, 'x-client-secret': options.clientSecret }, fetchFn);
  const storage = options.storage ?? defaultStorage();
  const prefix = `cds:${options.clientId}:`;
  const session = new Session(storage, `${prefix}session`, (refresh_token) =>
    http.request('POST', '/auth/refresh', { body: { refresh_token }, auth: false }),
  );
  http.session = session;
  const WebSocketImpl = options.WebSocket;
  let socket: RealtimeSocket | undefined;
  const auth = new Auth(http, session, storage, `${prefix}device`, () => socket?.reset());
  const getSocket = (): RealtimeSocket => {
    socket ??= new RealtimeSocket({
      url: baseUrl.replace(/^http/, 'ws'),
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      session,
      WebSocket: WebSocketImpl ? () => Promise.resolve(WebSocketImpl) : loadWebSocket,
      onError: options.onSocketError,
      offlineWriteTimeoutMs: options.offlineWriteTimeoutMs,
    });
    return socket;
  };
  return {
    auth,
    doc: (path) => new DocumentRef(http, path, getSocket),
    collection: (name, opts) => new CollectionRef(http, name, opts),
    query: (collection, opts = {}) => new Query(http, collection, opts, getSocket),
    batch: () => new WriteBatch(http),
    ref: (path = '') => new RealtimeRef(http, getSocket, path),
    leaderboard: (slug) => new LeaderboardRef(http, slug),
    leaderboards: new Leaderboards(http),
    functions: new Functions(http, () => socket),
    get connected() {
      return socket?.life.connected ?? false;
    },
    onConnectionChange: (cb) => getSocket().life.onChange(cb),
    presence: (path, state = {}) => {
      const userId = session.user().then((user) => {
        if (!user) throw new CdsError(401, 'Not signed in', 'unauthenticated');
        return user.id;
      });
      return getSocket().life.presence(path, state, userId);
    },
    onPresence: (path, cb) => getSocket().subscribe(normalizePath(path), presenceListener(cb)),
    get socket() {
      return getSocket();
    },
    close: () => socket?.close(),
  };
}
