import type { KeyPlace, RankBucket, RankCache, RankChange, RankSource } from './rank-cache.js';
import { compareRankKeys, type RankKey } from './rank-order.js';
import { RankedBlocks } from './ranked-blocks.js';

interface HeldBucket {
  boardId: number;
  revision: number;
  periodStart: number;
  keys: RankedBlocks;
  /** Resolves when loaded; changes that arrive before are queued in `pending`. */
  ready: Promise<void>;
  loaded: boolean;
  pending: RankChange[];
}

/** Settings of the in-memory rank cache. */
export interface MemoryRankCacheOptions {
  /** Keys read per database round trip while loading. */
  batchSize?: number;
  /** Keys per block of a bucket's ranks (tests make it small, to split and merge often). */
  blockCapacity?: number;
}

function bucketKey(bucket: RankBucket): string {
  return `${bucket.boardId}/${bucket.revision}/${bucket.periodStart}/${bucket.league}`;
}

/**
 * Ranks held in this process: one `RankedBlocks` per bucket, loaded from the database by
 * keyset pagination. Changes committed while a bucket loads are queued and replayed after the
 * load; replaying is idempotent (insert if absent, remove if present), so a change the load has
 * already seen, or one it saw half of, ends in the same set as the database.
 */
export class MemoryRankCache implements RankCache {
  private readonly buckets = new Map<string, HeldBucket>();
  private readonly batchSize: number;
  private readonly blockCapacity: number | undefined;

  constructor(options: MemoryRankCacheOptions = {}) {
    this.batchSize = options.batchSize ?? 10_000;
    this.blockCapacity = options.blockCapacity;
  }

  async ensure(bucket: RankBucket, source: RankSource): Promise<void> {
    const key = bucketKey(bucket);
    const held = this.buckets.get(key);
    if (held) return held.ready;
    // No await before the bucket is registered: concurrent callers must find it and share its load.
    this.drop(bucket.boardId, bucket.revision, bucket.periodStart);
    const fresh: HeldBucket = {
      boardId: bucket.boardId,
      revision: bucket.revision,
      periodStart: bucket.periodStart,
      keys: new RankedBlocks(this.blockCapacity),
      ready: Promise.resolve(),
      loaded: false,
      pending: [],
    };
    fresh.ready = this.load(fresh, source).catch((error: unknown) => {
      // A failed load must not leave a half-filled bucket behind: the next caller tries again.
      if (this.buckets.get(key) === fresh) this.buckets.delete(key);
      throw error;
    });
    this.buckets.set(key, fresh);
    return fresh.ready;
  }

  async countBelow(bucket: RankBucket, key: RankKey): Promise<number> {
    return this.keysIn(bucket).countBelow(key);
  }

  async placesOf(bucket: RankBucket, userIds: readonly number[]): Promise<(KeyPlace | undefined)[]> {
    const keys = this.keysIn(bucket);
    return userIds.map((userId) => keys.placeOfUser(userId));
  }

  async slice(bucket: RankBucket, offset: number, limit: number): Promise<RankKey[]> {
    return this.keysIn(bucket).slice(offset, limit);
  }

  async size(bucket: RankBucket): Promise<number> {
    return this.keysIn(bucket).size;
  }

  async apply(bucket: RankBucket, change: RankChange): Promise<void> {
    const held = this.buckets.get(bucketKey(bucket));
    if (!held) return;
    if (held.loaded) applyTo(held.keys, change);
    else held.pending.push(change);
  }

  async holds(boardId: number, revision: number, periodStart: number): Promise<boolean> {
    for (const held of this.buckets.values()) {
      if (held.boardId === boardId && held.revision === revision && held.periodStart === periodStart) return true;
    }
    return false;
  }

  async retain(boardId: number, revision: number, periodStart: number): Promise<void> {
    this.drop(boardId, revision, periodStart);
  }

  async clear(): Promise<void> {
    this.buckets.clear();
  }

  private drop(boardId: number, revision: number, periodStart: number): void {
    for (const [key, held] of this.buckets) {
      if (held.boardId === boardId && (held.revision !== revision || held.periodStart !== periodStart)) {
        this.buckets.delete(key);
      }
    }
  }

  private async load(held: HeldBucket, source: RankSource): Promise<void> {
    const keys: RankKey[] = [];
    let after: RankKey | null = null;
    for (;;) {
      const batch = await source(after, this.batchSize);
      for (const key of batch) keys.push(key);
      if (batch.length < this.batchSize) break;
      after = batch[batch.length - 1] as RankKey;
    }
    held.keys.build(strictlyAscending(keys));
    for (const change of held.pending) applyTo(held.keys, change);
    held.pending = [];
    held.loaded = true;
  }

  private keysIn(bucket: RankBucket): RankedBlocks {
    const held = this.buckets.get(bucketKey(bucket));
    if (!held?.loaded) throw new Error(`rank bucket ${bucketKey(bucket)} is not loaded`);
    return held.keys;
  }
}

function applyTo(keys: RankedBlocks, change: RankChange): void {
  if (change.remove) keys.remove(change.remove);
  if (change.insert) keys.insert(change.insert);
}

/** Keyset batches arrive strictly ascending; anything else is sorted and deduplicated rather than trusted. */
function strictlyAscending(keys: RankKey[]): RankKey[] {
  let ordered = true;
  for (let i = 1; i < keys.length && ordered; i++) {
    if (compareRankKeys(keys[i - 1] as RankKey, keys[i] as RankKey) >= 0) ordered = false;
  }
  if (ordered) return keys;
  const sorted = [...keys].sort(compareRankKeys);
  return sorted.filter((key, i) => i === 0 || compareRankKeys(sorted[i - 1] as RankKey, key) !== 0);
}
