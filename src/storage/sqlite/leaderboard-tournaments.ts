/**
 * Tournaments (§18) on SQLite: joins, their count and counted submissions per board and period.
 * Every write is one immediate transaction, so no other writer (another connection or process on
 * the file) runs between its count check and its insert.
 */
import type Database from 'better-sqlite3';
import type { Leaderboard } from '../../core/leaderboards/leaderboard-model.js';
import type {
  JoinOutcome,
  JoinRequest,
  Participation,
  SubmissionCount,
  SubmissionCountResult,
  SubmissionTerms,
  TournamentStore,
} from '../../core/leaderboards/tournament-store.js';
import { readBoard, SELECT_BOARD, type SqliteBoardRow } from './leaderboard-rows.js';

/** What the tournament statements need of a database (the leaderboard store's, with its statement cache). */
type Db = Pick<Database.Database, 'prepare' | 'transaction'>;

/** Whether the user joined the period (inside the caller's transaction, or alone). */
function joinedIn(db: Pick<Db, 'prepare'>, boardId: number, periodStart: number, userId: number): boolean {
  const row = db
    .prepare('SELECT 1 FROM leaderboard_joins WHERE leaderboard_id = ? AND period_start = ? AND user_id = ?')
    .get(boardId, periodStart, userId);
  return row !== undefined;
}

/**
 * Checks a player's submission against its terms and counts it when limited, inside the caller's
 * immediate transaction (no other writer between the check and the count): the refusal, or null.
 */
export function admitSubmission(
  db: Pick<Db, 'prepare'>,
  boardId: number,
  periodStart: number,
  userId: number,
  terms: SubmissionTerms,
): 'not_joined' | 'limit' | null {
  if (terms.joinRequired && !joinedIn(db, boardId, periodStart, userId)) return 'not_joined';
  if (terms.limit === null) return null;
  const counted = db
    .prepare(
      `INSERT INTO leaderboard_submission_counts (leaderboard_id, period_start, user_id, submissions) VALUES (?, ?, ?, 1)
       ON CONFLICT (leaderboard_id, period_start, user_id) DO UPDATE SET submissions = submissions + 1 WHERE submissions < ?`,
    )
    .run(boardId, periodStart, userId, terms.limit);
  return counted.changes === 1 ? null : 'limit';
}

/** The board's period and revision when they are still the ones asked about (inside the caller's transaction). */
function isCurrent(db: Pick<Db, 'prepare'>, boardId: number, at: { periodStart: number; revision: number }) {
  const board = db
    .prepare<[number], { period_start: number; revision: number }>(
      'SELECT period_start, revision FROM leaderboards WHERE id = ?',
    )
    .get(boardId);
  return board !== undefined && board.period_start === at.periodStart && board.revision === at.revision;
}

/** `TournamentStore` on SQLite; the engine's leaderboard store extends it. */
export class SqliteTournaments implements TournamentStore {
  constructor(protected readonly db: Db) {}

  async boardsOf(projectId: number): Promise<Leaderboard[]> {
    const rows = this.db
      .prepare<[number], SqliteBoardRow>(`${SELECT_BOARD} WHERE project_id = ? ORDER BY slug`)
      .all(projectId);
    return rows.map((row) => readBoard(this.db, row));
  }

  async joinedBoards(projectId: number, userId: number): Promise<Set<number>> {
    const rows = this.db
      .prepare<[number, number], { id: number }>(
        `SELECT b.id FROM leaderboards b JOIN leaderboard_joins j
           ON j.leaderboard_id = b.id AND j.period_start = b.period_start AND j.user_id = ?
         WHERE b.project_id = ?`,
      )
      .all(userId, projectId);
    return new Set(rows.map((row) => row.id));
  }

  async participation(boardId: number, periodStart: number, userId: number): Promise<Participation> {
    const counted = this.db
      .prepare<[number, number, number], { submissions: number }>(
        'SELECT submissions FROM leaderboard_submission_counts WHERE leaderboard_id = ? AND period_start = ? AND user_id = ?',
      )
      .get(boardId, periodStart, userId);
    return { joined: joinedIn(this.db, boardId, periodStart, userId), submissions: counted?.submissions ?? 0 };
  }

  async join(boardId: number, request: JoinRequest): Promise<JoinOutcome> {
    const { periodStart, userId, maxParticipants, at } = request;
    return this.db
      .transaction((): JoinOutcome => {
        if (!isCurrent(this.db, boardId, request)) return { result: 'board_changed', participants: 0 };
        const participants =
          this.db
            .prepare<[number, number], { participants: number }>(
              'SELECT participants FROM leaderboard_join_counts WHERE leaderboard_id = ? AND period_start = ?',
            )
            .get(boardId, periodStart)?.participants ?? 0;
        if (joinedIn(this.db, boardId, periodStart, userId)) return { result: 'member', participants };
        if (maxParticipants !== null && participants >= maxParticipants) return { result: 'full', participants };
        this.db
          .prepare(
            'INSERT INTO leaderboard_joins (leaderboard_id, period_start, user_id, joined_at) VALUES (?, ?, ?, ?)',
          )
          .run(boardId, periodStart, userId, at);
        this.db
          .prepare(
            `INSERT INTO leaderboard_join_counts (leaderboard_id, period_start, participants) VALUES (?, ?, 1)
             ON CONFLICT (leaderboard_id, period_start) DO UPDATE SET participants = participants + 1`,
          )
          .run(boardId, periodStart);
        return { result: 'joined', participants: participants + 1 };
      })
      .immediate();
  }

  async countSubmission(boardId: number, count: SubmissionCount): Promise<SubmissionCountResult> {
    return this.db
      .transaction((): SubmissionCountResult => {
        if (!isCurrent(this.db, boardId, count)) return 'board_changed';
        return admitSubmission(this.db, boardId, count.periodStart, count.userId, count.terms) ?? 'counted';
      })
      .immediate();
  }
}
