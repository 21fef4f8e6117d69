import { type Bus, ChannelListening } from '../bus.js';
import { isJsonObject, parseJsonObject } from '../json.js';
import type { KeyedMutex } from './keyed-mutex.js';
import { SORT_ORDERS, type SortOrder } from './leaderboard-model.js';
import type { LeaderboardStore } from './leaderboard-store.js';
import { placementOf } from './league-ranks.js';
import type { RankBucket, RankCache, RankedBoard, RankPeers, RankPlacement } from './rank-cache.js';
import type { RankKey } from './rank-order.js';

/** The bus channel of rank moves. */
export const RANK_CHANNEL = 'ranks';

/** One user's committed move on a board, as announced to the other instances. */
interface RankNotice {
  origin: string;
  boardId: number;
  revision: number;
  periodStart: number;
  sort: SortOrder;
  userId: number;
  /** Where the writer found the user (null: nowhere); an unranked key's score travels as null. */
  before: { league: string; score: number | null; updatedAt: number } | null;
}

/** What rank sync needs. */
export interface RankSyncDeps {
  bus: Bus;
  store: Pick<LeaderboardStore, 'standing'>;
  cache: RankCache;
  /** The submissions' per-(board, user) lock: a refresh never interleaves with a write of that user here. */
  writes: KeyedMutex;
  /** This instance's name; its own notices come back over the bus and are skipped. */
  origin: string;
  onError: (error: unknown) => void;
}

/**
 * Keeps the rank caches of several instances coherent over the bus. After a write, the writer
 * moves the user in its own cache (as with one instance) and announces where the user was. An
 * instance holding that board's buckets then, under the same per-user lock as its own writes,
 * removes that old key and inserts the user's key as the database has it now.
 *
 * Why that converges although notices from different writers may arrive in any order: every key
 * inserted is the user's current key when read (or written), and the write that later replaces
 * it commits after that, so its notice is handled after it and removes it. So each instance
 * holds exactly the database's key once the notices have arrived, typically a few milliseconds
 * after the commit. A bus outage may lose notices: then (`onLoss`) every bucket is dropped and
 * loads again from the database on next use.
 */
export class RankSync implements RankPeers {
  private readonly notices = new ChannelListening(
    RANK_CHANNEL,
    (message) => this.onNotice(message),
    () => void this.deps.cache.clear().catch(this.deps.onError),
  );

  constructor(private readonly deps: RankSyncDeps) {}

  /** Starts following the other instances' moves. */
  listen(): Promise<void> {
    return this.notices.listen(this.deps.bus);
  }

  /** Stops following. */
  close(): Promise<void> {
    return this.notices.close();
  }

  async announce(board: RankedBoard, userId: number, before: RankPlacement | null): Promise<void> {
    const notice: RankNotice = {
      origin: this.deps.origin,
      boardId: board.id,
      revision: board.revision,
      periodStart: board.period.start,
      sort: board.sort,
      userId,
      before: before && {
        league: before.league,
        score: finiteOrNull(before.key.score),
        updatedAt: before.key.updatedAt,
      },
    };
    try {
      await this.deps.bus.publish(RANK_CHANNEL, JSON.stringify(notice));
    } catch (error) {
      // The write stands; the other instances see it when they next load the bucket.
      this.deps.onError(error);
    }
  }

  private onNotice(message: string): void {
    const notice = decodeNotice(message);
    if (!notice || notice.origin === this.deps.origin) return;
    this.follow(notice).catch(this.deps.onError);
  }

  /** Moves the user, in the buckets held here, from the announced key to the database's. */
  private async follow(notice: RankNotice): Promise<void> {
    const { cache, store, writes } = this.deps;
    // An instance that never loaded the board loads the write with the bucket, later.
    if (!(await cache.holds(notice.boardId, notice.revision, notice.periodStart))) return;
    const bucket = (league: string): RankBucket => ({
      boardId: notice.boardId,
      revision: notice.revision,
      periodStart: notice.periodStart,
      league,
    });
    await writes.run(`${notice.boardId}/${notice.userId}`, async () => {
      const standing = await store.standing(notice.boardId, notice.userId);
      const { before } = notice;
      if (before) await cache.apply(bucket(before.league), { remove: keyOf(before, notice.userId) });
      const now = placementOf(notice.sort, notice.userId, standing.entry, standing.assignedLeague);
      if (now) await cache.apply(bucket(now.league), { insert: now.key });
    });
  }
}

function finiteOrNull(score: number): number | null {
  return Number.isFinite(score) ? score : null;
}

function keyOf(before: NonNullable<RankNotice['before']>, userId: number): RankKey {
  return { score: before.score ?? Number.POSITIVE_INFINITY, updatedAt: before.updatedAt, userId };
}

const isInteger = (value: unknown): value is number => Number.isSafeInteger(value);

/** The notice carried by a bus message; null when it is not one (another version of the service). */
function decodeNotice(message: string): RankNotice | null {
  const parsed = parseJsonObject(message);
  if (!parsed) return null;
  const { origin, boardId, revision, periodStart, sort, userId, before } = parsed;
  if (typeof origin !== 'string' || !isInteger(boardId) || !isInteger(revision) || !isInteger(userId)) return null;
  if (typeof periodStart !== 'number' || !(SORT_ORDERS as readonly unknown[]).includes(sort)) return null;
  let previous: RankNotice['before'] = null;
  if (before !== null) {
    if (!isJsonObject(before)) return null;
    const { league, score, updatedAt } = before;
    if (typeof league !== 'string' || typeof updatedAt !== 'number') return null;
    if (score !== null && typeof score !== 'number') return null;
    previous = { league, score, updatedAt };
  }
  return { origin, boardId, revision, periodStart, sort: sort as SortOrder, userId, before: previous };
}
