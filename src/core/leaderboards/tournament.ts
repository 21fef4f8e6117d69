/**
 * Tournaments (§18): the rules of a board's join, window and submission limit, and the answers of
 * the join route and the board list. Players are bound by them; admin and server-key submissions
 * are trusted and are not (`SubmissionSource`).
 */
import { AppError, conflict } from '../errors.js';
import type { DefinitionProblem } from './leaderboard-definition.js';
import type { Leaderboard, Tournament } from './leaderboard-model.js';
import { type PeriodView, periodView } from './leaderboard-views.js';
import { isoTime } from './period-schedule.js';
import type { Participation, SubmissionTerms } from './tournament-store.js';

/** `POST /leaderboards/{slug}/join`: always joined (a full board is a 409), with the period's participants. */
export interface JoinView {
  joined: true;
  /**
   * On a board with `join_required`, how many joined the current period; on one without (nothing
   * to join), how many players have a stat in it.
   */
  participants: number;
}

/** One board of `GET /leaderboards`, for the caller. */
export interface BoardListItemView {
  slug: string;
  name: string;
  type: Leaderboard['type'];
  sort: Leaderboard['sort'];
  reset: Leaderboard['reset'];
  period: PeriodView;
  /** When the current period ends and the board resets; null for `reset: none`. */
  next_reset_at: string | null;
  join_required: boolean;
  /** Whether the caller joined the current period; false where no join is required. */
  joined: boolean;
}

/** `GET /leaderboards`. */
export interface BoardListView {
  leaderboards: BoardListItemView[];
}

const isLimit = (n: number | null) => n === null || (Number.isInteger(n) && n >= 1);

/** The first problem of a board's tournament settings, or null (part of `definitionProblem`). */
export function tournamentProblem(board: Tournament): DefinitionProblem | null {
  if (!isLimit(board.maxParticipants)) return { at: 'max_participants', message: 'must be an integer >= 1 or null' };
  if (board.maxParticipants !== null && !board.joinRequired) {
    return { at: 'max_participants', message: 'applies to boards with join_required only' };
  }
  if (!isLimit(board.maxSubmissions)) return { at: 'max_submissions', message: 'must be an integer >= 1 or null' };
  const instant = 'must be an ISO 8601 date and time with a zone (2026-11-22T10:00:00Z)';
  if (Number.isNaN(board.startsAt)) return { at: 'starts_at', message: instant };
  if (Number.isNaN(board.endsAt)) return { at: 'ends_at', message: instant };
  if (board.startsAt !== null && board.endsAt !== null && board.endsAt <= board.startsAt) {
    return { at: 'ends_at', message: 'must be after starts_at' };
  }
  return null;
}

/** 409 `Tournament is not open` outside `[starts_at, ends_at)`. */
export function checkWindow(board: Tournament, now: number): void {
  if ((board.startsAt !== null && now < board.startsAt) || (board.endsAt !== null && now >= board.endsAt)) {
    throw conflict('Tournament is not open');
  }
}

/** 429 `Submission limit reached`. */
export const submissionLimitReached = (): AppError => new AppError('rate_limited', 'Submission limit reached');

/** 403 `Join the tournament first`. */
export const notJoined = (): AppError => new AppError('forbidden', 'Join the tournament first');

/** 403 when the board requires joining and the player did not join this period; then the limit (429). */
export function checkParticipation(board: Tournament, participation: Participation): void {
  if (board.joinRequired && !participation.joined) throw notJoined();
  if (board.maxSubmissions !== null && participation.submissions >= board.maxSubmissions) {
    throw submissionLimitReached();
  }
}

/** What storage must check of a player's submission to this board (a join, a limit), or null: nothing. */
export function submissionTerms(board: Tournament): SubmissionTerms | null {
  if (!board.joinRequired && board.maxSubmissions === null) return null;
  return { joinRequired: board.joinRequired, limit: board.maxSubmissions };
}

/** A board as the board list shows it to a caller who did (or did not) join its current period. */
export function boardListItem(board: Leaderboard, joined: boolean): BoardListItemView {
  return {
    slug: board.slug,
    name: board.name,
    type: board.type,
    sort: board.sort,
    reset: board.reset,
    period: periodView(board.period),
    next_reset_at: board.reset === 'none' || board.period.end === null ? null : isoTime(board.period.end),
    join_required: board.joinRequired,
    joined: board.joinRequired && joined,
  };
}
