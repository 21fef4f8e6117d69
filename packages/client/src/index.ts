/** @cds/client: the TypeScript client of the Client Data Service (SPEC §12). */
export type { Auth } from './auth.js';
export type { BatchWriteOptions, WriteBatch } from './batch.js';
export { type Client, type ClientOptions, createClient } from './client.js';
export type { ConnectionLife } from './connection-life.js';
export type { DisconnectOp } from './disconnect-ops.js';
export type {
  DocumentChange,
  DocumentSnapshot,
  SnapshotErrorListener,
  SnapshotListener,
} from './document-listeners.js';
export type {
  CollectionOptions,
  CollectionRef,
  DocumentRef,
  Lookup,
  Query,
  Versioned,
  WhereValue,
  WriteOptions,
} from './documents.js';
export { CdsError, type CdsErrorCode } from './errors.js';
export type { Functions } from './functions.js';
export type { BundleSection, LeaderboardRef, Leaderboards } from './leaderboards.js';
export type { PresenceEntry, PresenceHandle, PresenceListener, PresenceState } from './presence.js';
export {
  type OnDisconnect,
  type RealtimeRef,
  serverIncrement,
  serverTimestamp,
  type TransactionResult,
} from './realtime.js';
export type { RealtimeSocket } from './socket.js';
export { memoryStorage, type SessionStorage } from './storage.js';
export {
  arrayRemove,
  arrayUnion,
  deleteField,
  FieldTransform,
  increment,
  maximum,
  minimum,
  serverTime,
} from './transforms.js';
export type * from './types.js';
export type { ValueListener, ValueMeta } from './value-copies.js';
export type { WebSocketConstructor, WebSocketLike } from './websocket.js';
