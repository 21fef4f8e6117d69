/**
 * The total order of a league's listing. Every stat is turned into a `score` where lower is
 * better (`desc` boards negate it), so one ascending order — score, then the earlier
 * `updatedAt`, then the lower user id — serves both sort directions, the database index and
 * the in-memory rank structure alike. Users assigned to a league without a stat sort after
 * every ranked user, by user id.
 */
import type { LeaderboardEntry, SortOrder } from './leaderboard-model.js';

/** A position in the order: unique per user, so ranks are unique and deterministic. */
export interface RankKey {
  score: number;
  updatedAt: number;
  userId: number;
}

/** Orders keys ascending: negative when `a` ranks before `b`. */
export function compareRankKeys(a: RankKey, b: RankKey): number {
  if (a.score !== b.score) return a.score < b.score ? -1 : 1;
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? -1 : 1;
  return a.userId - b.userId;
}

/** The score of a stat: lower is better whatever the board's sort. */
export function scoreOf(sort: SortOrder, stat: number): number {
  // `+ 0` turns -0 into 0 so that 0 and -0 are one score on every engine.
  return (sort === 'desc' ? -stat : stat) + 0;
}

/** The stat a score came from. */
export function statOf(sort: SortOrder, score: number): number {
  return (sort === 'desc' ? -score : score) + 0;
}

/** The key of an entry. */
export function keyOfEntry(sort: SortOrder, entry: LeaderboardEntry): RankKey {
  return { score: scoreOf(sort, entry.statValue), updatedAt: entry.updatedAt, userId: entry.userId };
}

/** The key of a user assigned to a league without a stat (JSON numbers are finite, so no stat reaches it). */
export function unrankedKey(userId: number): RankKey {
  return { score: Number.POSITIVE_INFINITY, updatedAt: 0, userId };
}

/** True for the key of a user without a stat. */
export function isUnranked(key: RankKey): boolean {
  return key.score === Number.POSITIVE_INFINITY;
}

/** A key below every unranked key and above every ranked one: the count below it is the ranked count. */
export const FIRST_UNRANKED: RankKey = {
  score: Number.POSITIVE_INFINITY,
  updatedAt: Number.NEGATIVE_INFINITY,
  userId: Number.NEGATIVE_INFINITY,
};
