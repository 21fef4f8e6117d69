/**
 * Where ranks come from. The database holds every entry; a rank cache holds, per bucket (one
 * league of one board in one period), the keys of its listing in rank order so that a rank
 * and a page at any offset cost O(log n). `MemoryRankCache` keeps them in this process;
 * `RankSync` keeps the caches of several instances coherent over the bus.
 */
import type { SortOrder } from './leaderboard-model.js';
import type { RankKey } from './rank-order.js';

/** One league of one board in one period (and one revision of the board's definition). */
export interface RankBucket {
  boardId: number;
  revision: number;
  periodStart: number;
  league: string;
}

/** Reads a bucket's keys from the database in rank order, `limit` at a time after `after` (keyset pagination). */
export type RankSource = (after: RankKey | null, limit: number) => Promise<RankKey[]>;

/** A user's key in a bucket and its position there (how many keys sort before it). */
export interface KeyPlace {
  key: RankKey;
  below: number;
}

/** A committed change to one user's position in a bucket. */
export interface RankChange {
  remove?: RankKey;
  insert?: RankKey;
}

/** The ranks of every bucket; every method answers for a bucket made ready by `ensure`. */
export interface RankCache {
  /** Makes the bucket ready, loading it from `source` when it is not held; concurrent callers share one load. */
  ensure(bucket: RankBucket, source: RankSource): Promise<void>;
  /** How many keys of the bucket sort strictly before `key`. */
  countBelow(bucket: RankBucket, key: RankKey): Promise<number>;
  /** Each user's key in the bucket and how many keys sort before it, in the order asked; undefined for a user it does not hold. */
  placesOf(bucket: RankBucket, userIds: readonly number[]): Promise<(KeyPlace | undefined)[]>;
  /** The keys at positions `offset .. offset + limit - 1` (0-based). */
  slice(bucket: RankBucket, offset: number, limit: number): Promise<RankKey[]>;
  /** How many keys the bucket holds. */
  size(bucket: RankBucket): Promise<number>;
  /** Applies a change that the database has committed; a bucket not held ignores it (it loads the change later). */
  apply(bucket: RankBucket, change: RankChange): Promise<void>;
  /** Whether any bucket of the board in this revision and period is held (loaded or loading). */
  holds(boardId: number, revision: number, periodStart: number): Promise<boolean>;
  /** Forgets every bucket of the board that is not of this revision and period. */
  retain(boardId: number, revision: number, periodStart: number): Promise<void>;
  /** Forgets everything. */
  clear(): Promise<void>;
}

/** Where a user stands in a board's ranks: a league and the user's key in it. */
export interface RankPlacement {
  league: string;
  key: RankKey;
}

/** The other instances serving the same database, told of each move this one commits. */
export interface RankPeers {
  /** Announces that the user moved (from `before`) on the board; never throws. */
  announce(board: RankedBoard, userId: number, before: RankPlacement | null): Promise<void>;
}

/** What identifies a board's current buckets, and the order its keys follow. */
export interface RankedBoard {
  id: number;
  revision: number;
  period: { start: number };
  sort: SortOrder;
}
