/**
 * One storage engine holding every store. Each port lives next to its domain
 * (`documents/document-store.ts`, `realtime/tree-store.ts`, …); engines (`src/storage/*`)
 * implement them and `src/app.ts` picks the implementations. Nothing here knows SQL or HTTP.
 */

import type { AdminStore, ServerKeyStore } from './admin/admin-store.js';
import type { AccountStore } from './auth/account-store.js';
import type { DocumentStore } from './documents/document-store.js';
import type { IndexStore } from './documents/index-store.js';
import type { TtlStore } from './documents/ttl-store.js';
import type { EventStore } from './events/event-store.js';
import type { ScheduleStore } from './functions/schedule-store.js';
import type { LeaderboardAdminStore, LeaderboardStore } from './leaderboards/leaderboard-store.js';
import type { DisconnectOpStore } from './realtime/disconnect-op-store.js';
import type { TreeStore } from './realtime/tree-store.js';
import type { RulesStore } from './rules/rules-store.js';
import type { TransferStore } from './transfer/transfer-store.js';
import type { WebhookDeliveryStore } from './webhooks/delivery-store.js';
import type { WebhookStore } from './webhooks/webhook-store.js';

/** The stores of one storage engine, each implementing its port. */
export interface Stores {
  readonly documents: DocumentStore;
  readonly accounts: AccountStore;
  readonly tree: TreeStore;
  readonly leaderboards: LeaderboardStore;
  readonly transfer: TransferStore;
  readonly admins: AdminStore;
  readonly leaderboardAdmin: LeaderboardAdminStore;
  readonly serverKeys: ServerKeyStore;
  /** Revisions of each project's access rules (§9). */
  readonly rules: RulesStore;
  /** Declared document indexes (§15). */
  readonly indexes: IndexStore;
  /** Collections' TTL fields and the sweep's lease (§17). */
  readonly ttl: TtlStore;
  /** Webhook registrations (§16). */
  readonly webhooks: WebhookStore;
  /** Each webhook's last deliveries (§16). */
  readonly webhookDeliveries: WebhookDeliveryStore;
  /** The events the commits recorded, and their consumers (§16). */
  readonly events: EventStore;
  /** The last tick each schedule ran for each project (§16). */
  readonly schedules: ScheduleStore;
  /** On-disconnect writes and the instance leases they are kept under (§17). */
  readonly disconnectOps: DisconnectOpStore;
}

/** One storage engine holding every store. */
export interface Storage extends Stores {
  /** Resolves when the database answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The base class of an engine: the stores it is built with become its fields (`storage.tree`, …),
 * so an engine names each store once, where it makes it.
 */
export const StoresBase = class {
  constructor(stores: Stores) {
    Object.assign(this, stores);
  }
} as new (
  stores: Stores,
) => Stores;
