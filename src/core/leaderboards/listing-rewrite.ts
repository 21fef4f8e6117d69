/**
 * Rewrites of a board's league listings that an engine runs inside one transaction: a period's
 * reset (archive with rewards, promotion and demotion) and an admin edit's re-homing. The engine
 * reads each league's listing in rank order — keyset batches of `RankKey`s, the ranked users,
 * then (AT_RESET) the users assigned without a stat — hands each batch to the plan, and writes
 * the rows the plan returns. Every rule is here; the engines store and fetch.
 */
import type { JsonValue } from '../json.js';
import { findLeague, type LeaderboardDefinition, lowestLeague, type Reward } from './leaderboard-model.js';
import { destinationOf, type LeagueCount, type LeagueMove, planLeagueMoves } from './promotion.js';
import { isUnranked, type RankKey, statOf } from './rank-order.js';
import { leagueForStat } from './submission.js';

/** One user's final standing in an archived period, with the reward of that rank. */
export interface ArchivedStanding {
  rank: number;
  userId: number;
  statValue: number;
  league: string;
  updatedAt: number;
  reward: JsonValue | null;
}

/** A user's new league; null (assignments only) removes the assignment. */
export interface LeagueChange {
  userId: number;
  league: string | null;
}

/** The rows one batch of a listing asks to write. */
export interface ListingRows {
  /** Rows of the period's archive (reset only), written at once. */
  history: ArchivedStanding[];
  /** Entries whose league changes (never null), applied after every league was read. */
  entries: LeagueChange[];
  /** Assignments that change or go, applied after every league was read. */
  assignments: LeagueChange[];
}

/** A plan that reads a board's listings and decides what to write. */
export interface ListingRewrite {
  /** The leagues to read, from the sizes of every league's current listing. */
  leaguesToRead(counts: readonly LeagueCount[]): string[];
  /** The rows for the next batch of a league's listing (positions follow on from its previous batch). */
  place(league: string, batch: readonly RankKey[]): ListingRows;
}

/** What a reset needs of the board, as the engine read it inside the reset's transaction. */
export type ResetBoard = Pick<LeaderboardDefinition, 'type' | 'sort' | 'leagues' | 'rewards'>;

/** The reward of a final rank in a league, or null (ranges of one league never overlap). */
export function rewardFor(rewards: readonly Reward[], league: string, rank: number): JsonValue | null {
  const match = rewards.find((r) => r.league === league && rank >= r.rankFrom && rank <= r.rankTo);
  return match ? match.reward : null;
}

/**
 * The end of a period: every ranked user's final standing archived with its reward; on AT_RESET
 * boards, assignments moved by promotion and demotion (see `promotion.ts`).
 */
export function resetRewrite(board: ResetBoard): ListingRewrite {
  const moves = new Map<string, LeagueMove>();
  const positions = new Map<string, number>();
  return {
    leaguesToRead(counts) {
      if (board.type === 'AT_RESET')
        for (const move of planLeagueMoves(board.leagues, counts)) moves.set(move.league, move);
      return counts.map((count) => count.league);
    },
    place(league, batch) {
      const rows: ListingRows = { history: [], entries: [], assignments: [] };
      let position = positions.get(league) ?? 0;
      const move = moves.get(league);
      for (const key of batch) {
        position++;
        const ranked = !isUnranked(key);
        if (ranked) {
          rows.history.push({
            rank: position,
            userId: key.userId,
            statValue: statOf(board.sort, key.score),
            league,
            updatedAt: key.updatedAt,
            reward: rewardFor(board.rewards, league, position),
          });
        }
        // A league the board no longer has keeps its users where they are.
        const destination = move ? destinationOf(move, position, ranked) : league;
        if (destination !== league) rows.assignments.push({ userId: key.userId, league: destination });
      }
      positions.set(league, position);
      return rows;
    },
  };
}

/**
 * An admin edit's re-homing under the new leagues: on CONTINUOUS boards every entry goes to the
 * league its stat reaches; on AT_RESET boards the users of a league that is gone go to the lowest.
 */
export function redefineRewrite(definition: Pick<LeaderboardDefinition, 'type' | 'sort' | 'leagues'>): ListingRewrite {
  const lowest = lowestLeague(definition).slug;
  const continuous = definition.type === 'CONTINUOUS';
  return {
    leaguesToRead(counts) {
      const leagues = counts.map((count) => count.league);
      return continuous ? leagues : leagues.filter((league) => !findLeague(definition, league));
    },
    place(league, batch) {
      const rows: ListingRows = { history: [], entries: [], assignments: [] };
      for (const key of batch) {
        const ranked = !isUnranked(key);
        if (continuous) {
          if (!ranked) continue;
          const target = leagueForStat(definition, statOf(definition.sort, key.score));
          if (target !== league) rows.entries.push({ userId: key.userId, league: target });
        } else {
          if (ranked) rows.entries.push({ userId: key.userId, league: lowest });
          rows.assignments.push({ userId: key.userId, league: lowest });
        }
      }
      return rows;
    },
  };
}
