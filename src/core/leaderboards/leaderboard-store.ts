/** The leaderboard ports (§5): boards, entries, resets and archives; core plans, engines write. */
import type { CommitEvents } from '../events/outbox-events.js';
import type { JsonValue } from '../json.js';
import type { Leaderboard, LeaderboardDefinition, LeaderboardEntry, Period, Standing } from './leaderboard-model.js';
import type { ArchivedStanding, ListingRewrite, ResetBoard } from './listing-rewrite.js';
import type { RankKey } from './rank-order.js';
import type { SubmissionTerms, TournamentStore } from './tournament-store.js';

/** A change of one user's entry, written only when nothing changed it since it was read. */
export interface EntryWrite {
  /** The period the entry belongs to: once the board has moved on, the write is refused. */
  periodStart: number;
  /** The board revision the entry's league was chosen under: once an admin edit bumped it, the write is refused. */
  revision: number;
  /** The entry as read (null: none); another value in the database means a concurrent write won. */
  previous: LeaderboardEntry | null;
  next: LeaderboardEntry;
  /** The score of `next` in the board's order (see `rank-order.ts`). */
  score: number;
  /** AT_RESET: the league to assign the user to, who had none. */
  assign: string | null;
  /**
   * §18: a player's join and submission limit, checked in the write's transaction (refused:
   * `not_joined`, `limit`), the submission counted there when limited. Absent or null: unchecked.
   */
  terms?: SubmissionTerms | null;
  /** The `leaderboards.stat` event to record with the write (§16), in its transaction; absent: none. */
  events?: CommitEvents;
}

/** What became of an `EntryWrite`. */
export type EntryWriteResult = 'written' | 'board_changed' | 'conflict' | 'not_joined' | 'limit';

/** The end of a period, run as one transaction by the holder of the board's reset lease. */
export interface PeriodReset {
  owner: string;
  /** The period being closed; nothing happens when the board is no longer in it. */
  periodStart: number;
  next: Period;
  archivedAt: number;
  /** Core's plan of the final listings, from the board as read inside the transaction. */
  plan(board: ResetBoard): ListingRewrite;
  /** The `leaderboards.reset` event to record with the reset (§16), in its transaction; absent: none. */
  events?: CommitEvents;
}

/** A board's reset lease as one instance asks for it: who, at what time, held until when. */
export interface ResetLease {
  owner: string;
  now: number;
  until: number;
}

/** An archived (ended) period of a board. */
export interface ArchivedPeriod {
  start: number;
  end: number;
  archivedAt: number;
}

/** A user's final standing in one archived period, with that period (§18 `history/me`). */
export interface PeriodStanding {
  periodStart: number;
  periodEnd: number;
  rank: number;
  statValue: number;
  league: string;
  reward: JsonValue | null;
}

/** Leaderboards (§5): boards, leagues, rewards, entries, assignments, resets and archives; tournaments (§18). */
export interface LeaderboardStore extends TournamentStore {
  /** Creates a board with its leagues and rewards; `taken` when the project has a board of that slug. */
  create(projectId: number, definition: LeaderboardDefinition, period: Period): Promise<Leaderboard | 'taken'>;
  /** The board of that slug with its leagues (by order) and rewards, or null. */
  get(projectId: number, slug: string): Promise<Leaderboard | null>;
  /** Every board of every project (rank warm-up). */
  listAll(): Promise<Leaderboard[]>;
  /** The boards whose current period ended at or before `now`. */
  listDue(now: number): Promise<Leaderboard[]>;
  /** The user's entry and assignment in the board's current period. */
  standing(boardId: number, userId: number): Promise<Standing>;
  /**
   * The standings of several users in one statement: every asked user, entry and assignment null
   * when none; without `assignments` (a board that has none: not AT_RESET) only entries are read.
   */
  standingsOf(boardId: number, userIds: readonly number[], assignments?: boolean): Promise<Map<number, Standing>>;
  /** Writes an entry (and assignment) unless the period moved on or the entry changed since read. */
  writeEntry(boardId: number, write: EntryWrite): Promise<EntryWriteResult>;
  /**
   * The keys of a league's listing in rank order, strictly after `after`, at most `limit`: the
   * entries, then (AT_RESET) the users assigned without an entry. Keyset pagination over an index.
   */
  scanLeague(boardId: number, league: string, after: RankKey | null, limit: number): Promise<RankKey[]>;
  /** Takes the reset lease of a board still in period `periodStart` that has ended, when free or expired (compare-and-set). */
  acquireResetLease(boardId: number, periodStart: number, lease: ResetLease): Promise<boolean>;
  /** Archives the standings with rewards, moves assignments, clears entries, joins and counts (§18) and starts `next`; false when not the lease holder. */
  resetPeriod(boardId: number, reset: PeriodReset): Promise<boolean>;
  /** An archived period by its start, or the latest when `start` is null. */
  archivedPeriod(boardId: number, start: number | null): Promise<ArchivedPeriod | null>;
  /** Final standings of a league in an archived period, by rank, ranks `offset + 1 ..`. */
  archivedStandings(
    boardId: number,
    periodStart: number,
    league: string,
    offset: number,
    limit: number,
  ): Promise<ArchivedStanding[]>;
  /** How many users of a league were ranked in an archived period. */
  archivedCount(boardId: number, periodStart: number, league: string): Promise<number>;
  /** One user's archived standing, or null. */
  archivedStandingOf(boardId: number, periodStart: number, userId: number): Promise<ArchivedStanding | null>;
  /** Every archived period in which the user had a stat, newest first, with their final standing (one index range). */
  periodsOf(boardId: number, userId: number): Promise<PeriodStanding[]>;
}

/**
 * The board edits of the admin API (§6), apart from `LeaderboardStore` so that its engines'
 * files stay the leaderboard code's own.
 */
export interface LeaderboardAdminStore {
  /** The slugs of a project's boards, sorted. */
  listSlugs(projectId: number): Promise<string[]>;
  /**
   * Replaces name, description, operator, leagues and rewards of a board (slug, type, sort and
   * reset stay), moves its revision on, and writes what `rehome` (core's `redefineRewrite`)
   * decides from the current listings, in one transaction. False when no board.
   */
  redefine(boardId: number, definition: LeaderboardDefinition, rehome: ListingRewrite): Promise<boolean>;
  /**
   * Takes the reset lease of a board still in period `periodStart` (free or expired lease), and
   * ends that period at `now` unless it ended earlier; false otherwise. `resetPeriod` follows.
   */
  beginResetNow(boardId: number, periodStart: number, lease: ResetLease): Promise<boolean>;
}

export type { ArchivedStanding };
