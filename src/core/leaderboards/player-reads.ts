/**
 * §18's reads centred on players: around me and my history (`PlayerReads`), and their rules apart
 * from any store: the window of ranks around a player, the ids of a chosen set and the order of
 * its users (the users listing's `user_ids`), the best of a player's archived periods.
 */
import { MAX_ID } from '../admin/admin-service.js';
import { notFound, validationFailed } from '../errors.js';
import type { LeaderboardReads, LeaderboardReadsDeps } from './leaderboard-reads.js';
import type { PeriodStanding } from './leaderboard-store.js';
import { type AroundView, archivedPeriodView, type MyHistoryView, userItems } from './leaderboard-views.js';

/** Default `radius` of the around-me window. */
export const DEFAULT_AROUND_RADIUS = 5;
/** Default `limit` of a player's history. */
export const DEFAULT_HISTORY_LIMIT = 20;

/** Positions (0-based) of a league's ranked listing to show. */
export interface ListingWindow {
  offset: number;
  limit: number;
}

/**
 * The window around `rank` (1-based; null: the caller has no stat) in a league of `total` ranked
 * users: `2 × radius + 1` consecutive ranks centred on it and shifted to stay inside the league,
 * or all of them when there are fewer; without a rank, the bottom `radius + 1`.
 */
export function aroundWindow(rank: number | null, total: number, radius: number): ListingWindow {
  if (rank === null) {
    const limit = Math.min(total, radius + 1);
    return { offset: total - limit, limit };
  }
  const size = 2 * radius + 1;
  if (total <= size) return { offset: 0, limit: total };
  // The caller's rank comes from the cache and the total too; clamping keeps the window whole either way.
  return { offset: Math.min(Math.max(rank - 1 - radius, 0), total - size), limit: size };
}

/**
 * The users of `user_ids=3,9,12` (the route's schema has checked the form and the count): each
 * once, in the order given; an id no user can have (0, past the stored range) names nobody.
 */
export function chosenUserIds(text: string): number[] {
  const ids = new Set<number>();
  // One pass over the characters (no substring per id): decimal digits, as an integer query
  // parameter reads them (`007` is 7); a part with anything else names nobody.
  let id = 0;
  let digits = 0;
  let valid = true;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : COMMA;
    if (code === COMMA) {
      if (valid && digits > 0 && id > 0 && id <= MAX_ID) ids.add(id);
      id = 0;
      digits = 0;
      valid = true;
    } else if (code >= ZERO && code <= ZERO + 9) {
      id = id * 10 + (code - ZERO);
      digits++;
    } else {
      valid = false;
    }
  }
  return [...ids];
}

const COMMA = 44;
const ZERO = 48;

/** A chosen user of the league: their rank there, or null without a stat. */
export interface ChosenUser {
  userId: number;
  rank: number | null;
}

/** The order of a chosen set: ranked users by rank, then those without a stat by id. */
export function compareChosen(a: ChosenUser, b: ChosenUser): number {
  if (a.rank !== null && b.rank !== null) return a.rank - b.rank;
  if (a.rank !== null) return -1;
  if (b.rank !== null) return 1;
  return a.userId - b.userId;
}

/** The best of a player's periods: the lowest final rank, the newest period on a tie. */
export function bestPeriod(periods: readonly PeriodStanding[]): PeriodStanding | null {
  let best: PeriodStanding | null = null;
  for (const period of periods) {
    if (!best || period.rank < best.rank || (period.rank === best.rank && period.periodStart > best.periodStart)) {
      best = period;
    }
  }
  return best;
}

/** Parameters of the around-me read. */
export interface AroundQuery {
  radius?: number;
  expand?: 'profile';
}

/** Parameters of a player's own history. */
export interface MyHistoryQuery {
  limit?: number;
}

/**
 * Whose standing a read centres on: the signed-in player, or the user a server key names with
 * `user_id` (undefined when the request named none).
 */
export type StandingReader = { kind: 'player'; userId: number } | { kind: 'server_key'; userId: number | undefined };

/** The reads centred on one player, from the rank cache and the archives. */
export class PlayerReads {
  constructor(
    private readonly deps: Pick<LeaderboardReadsDeps, 'store' | 'ranks' | 'profiles'>,
    private readonly reads: Pick<LeaderboardReads, 'board' | 'me'>,
  ) {}

  /**
   * The reader's `me` and the ranked users around it in its league: its rank from the rank cache
   * (O(log n)), then one page of the cache at the window's start (O(log n + radius)).
   */
  async around(projectId: number, reader: StandingReader, slug: string, query: AroundQuery): Promise<AroundView> {
    const userId = readerUserId(reader);
    const board = await this.reads.board(projectId, slug);
    if (reader.kind === 'server_key' && !(await this.deps.profiles.profilesOf(projectId, [userId])).has(userId)) {
      throw notFound('User not found');
    }
    const me = await this.reads.me(board, userId, await this.deps.store.standing(board.id, userId));
    const total = await this.deps.ranks.total(board, me.league, 'ranked');
    const { offset, limit } = aroundWindow(me.rank, total, query.radius ?? DEFAULT_AROUND_RADIUS);
    const keys = await this.deps.ranks.page(board, me.league, offset, limit, total);
    const ids = keys.map((k) => k.userId);
    const profiles = query.expand === 'profile' ? await this.deps.profiles.profilesOf(projectId, ids) : null;
    return { league: me.league, me, users: userItems(board.sort, me.league, keys, offset, profiles) };
  }

  /** The player's final standings in the archived periods where they had a stat, newest first, and their best. */
  async myHistory(projectId: number, userId: number, slug: string, query: MyHistoryQuery): Promise<MyHistoryView> {
    const board = await this.reads.board(projectId, slug);
    const periods = await this.deps.store.periodsOf(board.id, userId);
    const best = bestPeriod(periods);
    return {
      periods: periods.slice(0, query.limit ?? DEFAULT_HISTORY_LIMIT).map((p) => ({
        period: archivedPeriodView({ start: p.periodStart, end: p.periodEnd }),
        rank: p.rank,
        stat_value: p.statValue,
        league: p.league,
        reward: p.reward,
      })),
      best: best
        ? { rank: best.rank, period: archivedPeriodView({ start: best.periodStart, end: best.periodEnd }) }
        : null,
    };
  }
}

/** The user a standing read is about; a server key must name one (422). */
function readerUserId(reader: StandingReader): number {
  if (reader.userId !== undefined) return reader.userId;
  throw validationFailed([{ loc: ['query', 'user_id'], msg: 'required with a server key', type: 'missing' }]);
}
