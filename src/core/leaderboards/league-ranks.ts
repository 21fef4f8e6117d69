import type { Leaderboard, LeaderboardEntry, SortOrder } from './leaderboard-model.js';
import type { LeaderboardStore } from './leaderboard-store.js';
import type { RankBucket, RankCache, RankPeers, RankPlacement } from './rank-cache.js';
import { FIRST_UNRANKED, isUnranked, keyOfEntry, type RankKey, unrankedKey } from './rank-order.js';

/** A user found in a league's ranks: their key there and their rank (null: assigned without a stat). */
export interface HeldUser {
  key: RankKey;
  rank: number | null;
}

/** Which users a listing shows: those with a stat, or (AT_RESET) every assigned user. */
export type ListingSource = 'ranked' | 'assigned';

/** Where a user stands: by their entry, else (AT_RESET) unranked in their assigned league, else nowhere. */
export function placementOf(
  sort: SortOrder,
  userId: number,
  entry: LeaderboardEntry | null,
  assigned: string | null,
): RankPlacement | null {
  if (entry) return { league: entry.league, key: keyOfEntry(sort, entry) };
  return assigned ? { league: assigned, key: unrankedKey(userId) } : null;
}

/**
 * Ranks of a board's leagues, through the rank cache: each bucket is loaded from the store on
 * first use (keyset batches), and every committed write is applied to it afterwards.
 */
export class LeagueRanks {
  constructor(
    private readonly store: LeaderboardStore,
    private readonly cache: RankCache,
    /** Other instances to tell of every move (several instances); none with one. */
    private readonly peers?: RankPeers,
  ) {}

  /** The bucket of a league of the board in its current period. */
  bucket(board: Leaderboard, league: string): RankBucket {
    return { boardId: board.id, revision: board.revision, periodStart: board.period.start, league };
  }

  /** Loads the league's bucket when it is not held yet. */
  async ready(board: Leaderboard, league: string): Promise<RankBucket> {
    const bucket = this.bucket(board, league);
    await this.cache.ensure(bucket, (after, limit) => this.store.scanLeague(board.id, league, after, limit));
    return bucket;
  }

  /** The 1-based rank of an entry within its league. */
  async rankOf(board: Leaderboard, entry: LeaderboardEntry): Promise<number> {
    const bucket = await this.ready(board, entry.league);
    return (await this.cache.countBelow(bucket, keyOfEntry(board.sort, entry))) + 1;
  }

  /** The 1-based ranks of entries of one league, in their order: the bucket found once for them all. */
  async ranksOf(board: Leaderboard, league: string, entries: readonly LeaderboardEntry[]): Promise<number[]> {
    const bucket = await this.ready(board, league);
    const ranks: number[] = [];
    for (const entry of entries) ranks.push((await this.cache.countBelow(bucket, keyOfEntry(board.sort, entry))) + 1);
    return ranks;
  }

  /**
   * Each of `userIds` as the league's bucket holds them, in the order asked (undefined for a user
   * it does not hold): O(k log n), no database read.
   */
  async held(board: Leaderboard, league: string, userIds: readonly number[]): Promise<(HeldUser | undefined)[]> {
    const bucket = await this.ready(board, league);
    const places = await this.cache.placesOf(bucket, userIds);
    return places.map((place) => place && { key: place.key, rank: isUnranked(place.key) ? null : place.below + 1 });
  }

  /** How many users a listing of the league has. */
  async total(board: Leaderboard, league: string, source: ListingSource): Promise<number> {
    const bucket = await this.ready(board, league);
    return source === 'assigned' ? this.cache.size(bucket) : this.cache.countBelow(bucket, FIRST_UNRANKED);
  }

  /** The keys at positions `offset ..` of a listing, at most `limit`, never past its `total`. */
  async page(board: Leaderboard, league: string, offset: number, limit: number, total: number): Promise<RankKey[]> {
    const bucket = await this.ready(board, league);
    return this.cache.slice(bucket, offset, Math.max(0, Math.min(limit, total - offset)));
  }

  /**
   * Moves a user in the cache after a committed write: out of their old place (if any), into the
   * new one; then tells the peers. Called under the submissions' lock of that board and user.
   */
  async moved(
    board: Leaderboard,
    before: { entry: LeaderboardEntry | null; assigned: string | null },
    after: LeaderboardEntry,
  ) {
    const old = placementOf(board.sort, after.userId, before.entry, before.assigned);
    const key = keyOfEntry(board.sort, after);
    if (old && old.league === after.league) {
      await this.cache.apply(this.bucket(board, after.league), { remove: old.key, insert: key });
    } else {
      if (old) await this.cache.apply(this.bucket(board, old.league), { remove: old.key });
      await this.cache.apply(this.bucket(board, after.league), { insert: key });
    }
    await this.peers?.announce(board, after.userId, old);
  }

  /** Loads every league of every board (warm-up at start). */
  async warm(boards: readonly Leaderboard[], stopped: () => boolean): Promise<void> {
    for (const board of boards) {
      for (const league of board.leagues) {
        if (stopped()) return;
        await this.ready(board, league.slug);
      }
    }
  }
}
