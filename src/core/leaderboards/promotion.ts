/**
 * Promotion and demotion at the reset of an AT_RESET board. Each league's final listing is its
 * assigned users, ranked ones first by rank, then those without a stat by user id. The top
 * `promote_top` ranked users move up one league and the bottom `demote_bottom` of the listing
 * move down one; promotion wins where the two overlap (a small league). Users without a stat in
 * the lowest league drop out (they rejoin it when they next submit), so idle players do not pile up.
 */
import type { League } from './leaderboard-model.js';

/** The size of one league's final listing. */
export interface LeagueCount {
  league: string;
  /** Users with a stat. */
  ranked: number;
  /** Every assigned user (ranked ones included). */
  assigned: number;
}

/** What happens to each position (1-based) of one league's listing. */
export interface LeagueMove {
  league: string;
  /** Positions `1..promoteThrough` move to `up` (0: nobody). */
  promoteThrough: number;
  up: string | null;
  /** Positions `demoteFrom..assigned` move to `down` (above `assigned`: nobody). */
  demoteFrom: number;
  down: string | null;
  /** Users without a stat who stay in this league are unassigned. */
  dropUnranked: boolean;
}

/** The moves of every league of a board, from the leagues (by order ascending) and their final counts. */
export function planLeagueMoves(leagues: readonly League[], counts: readonly LeagueCount[]): LeagueMove[] {
  return leagues.map((league, index) => {
    const count = counts.find((c) => c.league === league.slug) ?? { league: league.slug, ranked: 0, assigned: 0 };
    const up = leagues[index + 1]?.slug ?? null;
    const down = index > 0 ? (leagues[index - 1]?.slug ?? null) : null;
    const promoteThrough = up ? Math.min(league.promoteTop ?? 0, count.ranked) : 0;
    const demoteFrom = down
      ? Math.max(promoteThrough, count.assigned - (league.demoteBottom ?? 0)) + 1
      : count.assigned + 1;
    return { league: league.slug, promoteThrough, up, demoteFrom, down, dropUnranked: index === 0 };
  });
}

/** Where the user at `position` of a listing goes: a league slug, or null when unassigned. */
export function destinationOf(move: LeagueMove, position: number, ranked: boolean): string | null {
  if (position <= move.promoteThrough && move.up) return move.up;
  if (position >= move.demoteFrom && move.down) return move.down;
  if (!ranked && move.dropUnranked) return null;
  return move.league;
}
