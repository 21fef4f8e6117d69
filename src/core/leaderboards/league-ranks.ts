import type { LeaderboardStore } from '../ports.js';
import type { Leaderboard, LeaderboardEntry } from './leaderboard-model.js';
import type { RankBucket, RankCache } from './rank-cache.js';
import { FIRST_UNRANKED, keyOfEntry, type RankKey, unrankedKey } from './rank-order.js';

/** Which users a listing shows: those with a stat, or (AT_RESET) every assigned user. */
export type ListingSource = 'ranked' | 'assigned';

/**
 * Ranks of a board's leagues, through the rank cache: each bucket is loaded from the store on
 * first use (keyset batches), and every committed write is applied to it afterwards.
 */
export class LeagueRanks {
  constructor(
    private readonly store: LeaderboardStore,
    private readonly cache: RankCache,
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

  /** Moves a user in the cache after a committed write: out of their old place (if any), into the new one. */
  async moved(
    board: Leaderboard,
    before: { entry: LeaderboardEntry | null; assigned: string | null },
    after: LeaderboardEntry,
  ) {
    const old = before.entry
      ? { league: before.entry.league, key: keyOfEntry(board.sort, before.entry) }
      : before.assigned
        ? { league: before.assigned, key: unrankedKey(after.userId) }
        : null;
    const key = keyOfEntry(board.sort, after);
    if (old && old.league === after.league) {
      await this.cache.apply(this.bucket(board, after.league), { remove: old.key, insert: key });
      return;
    }
    if (old) await this.cache.apply(this.bucket(board, old.league), { remove: old.key });
    await this.cache.apply(this.bucket(board, after.league), { insert: key });
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
