import { AppError, validationFailed } from '../errors.js';
import {
  type AntiCheat,
  type Leaderboard,
  type LeaderboardDefinition,
  type LeaderboardEntry,
  lowestLeague,
  type Standing,
} from './leaderboard-model.js';

/** The entry a submission leads to, and the league to assign when the user had none (AT_RESET). */
export interface SubmissionOutcome {
  entry: LeaderboardEntry;
  assign: string | null;
}

/** Who submits: a client for themself (§5), or the admin API (an admin or a server key) for any user (§6). */
export type SubmissionSource = 'client' | 'server';

/**
 * The anti-cheat rules of a board (§9), checked before the user's entry is read or written: a client on a
 * board that accepts server submissions only → 403; a value outside `[stat_min, stat_max]`
 * (inclusive, null = no bound) → 422 on every route.
 */
export function checkSubmission(board: AntiCheat, value: number, source: SubmissionSource): void {
  checkSource(board, source);
  checkBounds(board, value);
}

/** 403 for a client on a board that accepts server submissions only (§9): the first check of a submission. */
export function checkSource(board: Pick<AntiCheat, 'clientSubmit'>, source: SubmissionSource): void {
  if (source === 'client' && !board.clientSubmit) {
    throw new AppError('forbidden', 'Leaderboard accepts server submissions only');
  }
}

type Bounds = Pick<AntiCheat, 'statMin' | 'statMax'>;

/** Whether a value is inside `[stat_min, stat_max]` (`checkBounds` passes). */
export const withinBounds = (board: Bounds, value: number): boolean =>
  (board.statMin === null || value >= board.statMin) && (board.statMax === null || value <= board.statMax);

/**
 * 422 for a value outside `[stat_min, stat_max]` (§9), on every route: checked after a player's
 * tournament checks (§18: window, join, limit), before the entry is read.
 */
export function checkBounds(board: Bounds, value: number): void {
  if (board.statMin !== null && value < board.statMin) {
    throw validationFailed([{ loc: ['body', 'value'], msg: `must be >= ${board.statMin}`, type: 'minimum' }]);
  }
  if (board.statMax !== null && value > board.statMax) {
    throw validationFailed([{ loc: ['body', 'value'], msg: `must be <= ${board.statMax}`, type: 'maximum' }]);
  }
}

/** The league a stat reaches on a CONTINUOUS board: the highest whose `min_stat` it reaches, else the lowest. */
export function leagueForStat(board: Pick<LeaderboardDefinition, 'leagues' | 'sort'>, stat: number): string {
  for (let i = board.leagues.length - 1; i > 0; i--) {
    const league = board.leagues[i];
    if (!league || league.minStat === null) continue;
    if (board.sort === 'desc' ? stat >= league.minStat : stat <= league.minStat) return league.slug;
  }
  return lowestLeague(board).slug;
}

/** The stat after applying the board's operator, or null when the stored entry stays as it is. */
function combine(board: Leaderboard, current: LeaderboardEntry | null, value: number): number | null {
  if (!current) return board.operator === 'increment' ? value + 0 : value;
  switch (board.operator) {
    case 'best':
      return (board.sort === 'desc' ? value > current.statValue : value < current.statValue) ? value : null;
    case 'latest':
      return value === current.statValue ? null : value;
    case 'increment': {
      const sum = current.statValue + value;
      if (!Number.isFinite(sum)) {
        throw validationFailed([
          { loc: ['body', 'value'], msg: 'The stat would leave the range of a double', type: 'value_error' },
        ]);
      }
      return sum === current.statValue ? null : sum;
    }
  }
}

/**
 * Applies a submitted value to a user's standing. `updatedAt` is when the stat last changed, so
 * a submission that changes nothing (a `best` that is not better) keeps the user's place among ties.
 */
export function applySubmission(
  board: Leaderboard,
  userId: number,
  standing: Standing,
  value: number,
  now: number,
): SubmissionOutcome | null {
  const stat = combine(board, standing.entry, value);
  if (stat === null) return null;
  const league =
    board.type === 'CONTINUOUS' ? leagueForStat(board, stat) : (standing.assignedLeague ?? lowestLeague(board).slug);
  const assign = board.type === 'AT_RESET' && standing.assignedLeague === null ? league : null;
  return { entry: { userId, statValue: stat, league, updatedAt: now }, assign };
}
