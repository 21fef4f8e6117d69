/**
 * The tournament side of the leaderboard port (§18): joins and counted submissions per board and
 * period, and a project's board list. `LeaderboardStore` extends it; core decides from what it
 * returns, the engines count and insert atomically.
 */
import type { Leaderboard } from './leaderboard-model.js';

/** A player's part in a board's period: joined or not, and how many of their submissions counted. */
export interface Participation {
  joined: boolean;
  submissions: number;
}

/** A join as core asks for it: in the period and revision of the board it read, against that board's limit. */
export interface JoinRequest {
  periodStart: number;
  revision: number;
  userId: number;
  /** How many may join the period; null: no limit. */
  maxParticipants: number | null;
  /** When (epoch ms), kept with the join. */
  at: number;
}

/**
 * What became of a join: `joined` (inserted), `member` (joined before), `full` (refused: the
 * period has `maxParticipants` joins), `board_changed` (the board's period or revision moved on).
 */
export type JoinResult = 'joined' | 'member' | 'full' | 'board_changed';

/** A join's result with the period's number of joins after it (0 when the board changed). */
export interface JoinOutcome {
  result: JoinResult;
  participants: number;
}

/**
 * What storage checks of a player's submission in the transaction that writes it (§18): a join of
 * the period when the board requires one, then fewer than `limit` submissions counted (null: no
 * limit, nothing counted). Refused: `not_joined` or `limit`, and nothing is written.
 */
export interface SubmissionTerms {
  joinRequired: boolean;
  limit: number | null;
}

/** A submission that changes no entry, checked and counted, in the period and revision of the board core read. */
export interface SubmissionCount {
  periodStart: number;
  revision: number;
  userId: number;
  terms: SubmissionTerms;
}

/** What became of a count: `counted` (or checked, without a limit), `not_joined`, `limit` (refused, nothing counted), `board_changed`. */
export type SubmissionCountResult = 'counted' | 'not_joined' | 'limit' | 'board_changed';

/** Tournaments (§18) in storage: each method is one statement or one transaction. */
export interface TournamentStore {
  /** Every board of a project, by slug (byte order), with its leagues and rewards. */
  boardsOf(projectId: number): Promise<Leaderboard[]>;
  /** The ids of the project's boards whose current period the user joined. */
  joinedBoards(projectId: number, userId: number): Promise<Set<number>>;
  /** The user's joins and counted submissions in a period of a board. */
  participation(boardId: number, periodStart: number, userId: number): Promise<Participation>;
  /**
   * Joins the user to the board's period unless they are a member, the period is full or the board
   * moved on: the count check and the insert are one atomic step, so racing joins never exceed the limit.
   */
  join(boardId: number, request: JoinRequest): Promise<JoinOutcome>;
  /**
   * Checks and counts a submission that changes no entry (`EntryWrite.terms` does so for the
   * others with their write), unless the terms refuse it or the board moved on: atomically.
   */
  countSubmission(boardId: number, count: SubmissionCount): Promise<SubmissionCountResult>;
}
