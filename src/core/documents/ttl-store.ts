/**
 * The TTL port (§17): each collection's expiry field, the lease of the sweep, and the one count a
 * TTL collection's admin page needs. Core decides what expired (`ttl.ts`); engines store settings
 * and compile `LiveFilter`.
 */
import type { LiveFilter, TtlSetting } from './ttl.js';

/** A stored TTL setting with the §15 index made with it (null: an index of that field existed already). */
export interface StoredTtl extends TtlSetting {
  projectId: number;
  indexId: number | null;
}

export interface TtlStore {
  /** The project's settings, by collection. */
  list(projectId: number): Promise<StoredTtl[]>;
  /** Every project's settings (the sweep's round), by project and collection. */
  all(): Promise<StoredTtl[]>;
  /** Sets (or replaces) a collection's setting; resolves to the setting it replaced, if any. */
  set(setting: StoredTtl): Promise<StoredTtl | null>;
  /** Removes a collection's setting; resolves to it, or null when there was none. */
  clear(projectId: number, collection: string): Promise<StoredTtl | null>;
  /**
   * Takes or renews the sweep's lease for `owner` until `until` (epoch ms) when it is free, lapsed
   * (`expires_at` before `now`) or `owner`'s already; false when another owner holds it.
   */
  claimSweep(owner: string, now: number, until: number): Promise<boolean>;
  /** Gives the lease up when `owner` holds it. */
  releaseSweep(owner: string): Promise<void>;
  /** How many direct children of the collection are live at `live.now` (a TTL collection's admin page total). */
  countLiveChildren(projectId: number, parent: string, collection: string, live: LiveFilter): Promise<number>;
}
