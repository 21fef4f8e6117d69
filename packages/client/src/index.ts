/** @cds/client: the TypeScript client of the Client Data Service (SPEC §12). */
export type { Auth } from './auth.js';
export { type Client, type ClientOptions, createClient } from './client.js';
export type { CollectionOptions, CollectionRef, DocumentRef, Lookup, Query, WhereValue } from './documents.js';
export { CdsError, type CdsErrorCode } from './errors.js';
export type { BundleSection, LeaderboardRef } from './leaderboards.js';
export type { RealtimeRef } from './realtime.js';
export type { RealtimeSocket, ValueListener, ValueMeta } from './socket.js';
export { memoryStorage, type SessionStorage } from './storage.js';
export type * from './types.js';
export type { WebSocketConstructor, WebSocketLike } from './websocket.js';
