/**
 * Tournaments (§18) on PostgreSQL: joins, their count and counted submissions per board and period.
 * A join locks its board's row (`FOR NO KEY UPDATE`): joins of one board take turns, so the count a
 * join reads after taking the lock is the one it moves on, on every instance; submissions (which
 * hold `FOR KEY SHARE`) are not held up, and a reset (`FOR UPDATE`) waits for the join or the join
 * for it. A submission is counted by one conditional upsert, which PostgreSQL applies to the latest
 * row whatever ran meanwhile.
 */
import type pg from 'pg';
import type { Leaderboard } from '../../core/leaderboards/leaderboard-model.js';
import type {
  JoinOutcome,
  JoinRequest,
  Participation,
  SubmissionCount,
  SubmissionCountResult,
  TournamentStore,
} from '../../core/leaderboards/tournament-store.js';
import { type Millis, type PostgresBoardRow, SELECT_BOARD, toBoard } from './leaderboard-rows.js';
import { inTransaction, type Queryable } from './transactions.js';

/** Counts one submission of the user in the period unless `limit` counted already; false then (nothing written). */
async function countSubmissionIn(
  db: Queryable,
  boardId: number,
  periodStart: number,
  userId: number,
  limit: number,
): Promise<boolean> {
  const counted = await db.query(
    `INSERT INTO leaderboard_submission_counts AS c (leaderboard_id, period_start, user_id, submissions)
     VALUES ($1, $2, $3, 1)
     ON CONFLICT (leaderboard_id, period_start, user_id) DO UPDATE SET submissions = c.submissions + 1
       WHERE c.submissions < $4`,
    [boardId, periodStart, userId, limit],
  );
  return counted.rowCount === 1;
}

/** The board's period and revision, under the lock `lock`, when they are still the ones asked about. */
async function isCurrent(
  client: Queryable,
  boardId: number,
  at: { periodStart: number; revision: number },
  lock: 'FOR KEY SHARE' | 'FOR NO KEY UPDATE',
): Promise<boolean> {
  const { rows } = await client.query<{ period_start: Millis; revision: number }>(
    `SELECT period_start, revision FROM leaderboards WHERE id = $1 ${lock}`,
    [boardId],
  );
  const row = rows[0];
  return row !== undefined && Number(row.period_start) === at.periodStart && row.revision === at.revision;
}

/** The user's join and count in a period (inside the caller's transaction, or alone). */
async function participationIn(
  db: Queryable,
  boardId: number,
  periodStart: number,
  userId: number,
): Promise<Participation> {
  const { rows } = await db.query<{ joined: boolean; submissions: number }>({
    name: 'cds_leaderboard_participation',
    text: `SELECT EXISTS (SELECT 1 FROM leaderboard_joins WHERE leaderboard_id = $1 AND period_start = $2 AND user_id = $3) AS joined,
         COALESCE((SELECT submissions FROM leaderboard_submission_counts
           WHERE leaderboard_id = $1 AND period_start = $2 AND user_id = $3), 0) AS submissions`,
    values: [boardId, periodStart, userId],
  });
  const row = rows[0];
  return { joined: row?.joined ?? false, submissions: row?.submissions ?? 0 };
}

/** `TournamentStore` on PostgreSQL; the engine's leaderboard store extends it. */
export class PostgresTournaments implements TournamentStore {
  constructor(protected readonly pool: pg.Pool) {}

  async boardsOf(projectId: number): Promise<Leaderboard[]> {
    const { rows } = await this.pool.query<PostgresBoardRow>(
      `${SELECT_BOARD} WHERE b.project_id = $1 ORDER BY b.slug COLLATE "C"`,
      [projectId],
    );
    return rows.map(toBoard);
  }

  async joinedBoards(projectId: number, userId: number): Promise<Set<number>> {
    const { rows } = await this.pool.query<{ id: number }>(
      `SELECT b.id FROM leaderboards b JOIN leaderboard_joins j
         ON j.leaderboard_id = b.id AND j.period_start = b.period_start AND j.user_id = $2
       WHERE b.project_id = $1`,
      [projectId, userId],
    );
    return new Set(rows.map((row) => row.id));
  }

  participation(boardId: number, periodStart: number, userId: number): Promise<Participation> {
    return participationIn(this.pool, boardId, periodStart, userId);
  }

  join(boardId: number, request: JoinRequest): Promise<JoinOutcome> {
    const { periodStart, userId, maxParticipants, at } = request;
    return inTransaction(this.pool, async (client): Promise<JoinOutcome> => {
      if (!(await isCurrent(client, boardId, request, 'FOR NO KEY UPDATE'))) {
        return { result: 'board_changed', participants: 0 };
      }
      // A statement of its own, after the lock: its snapshot has every join that held the lock before.
      const { rows } = await client.query<{ participants: number; member: boolean }>(
        `SELECT COALESCE((SELECT participants FROM leaderboard_join_counts WHERE leaderboard_id = $1 AND period_start = $2), 0) AS participants,
           EXISTS (SELECT 1 FROM leaderboard_joins WHERE leaderboard_id = $1 AND period_start = $2 AND user_id = $3) AS member`,
        [boardId, periodStart, userId],
      );
      const participants = rows[0]?.participants ?? 0;
      if (rows[0]?.member) return { result: 'member', participants };
      if (maxParticipants !== null && participants >= maxParticipants) return { result: 'full', participants };
      await client.query(
        `WITH joined AS (
           INSERT INTO leaderboard_joins (leaderboard_id, period_start, user_id, joined_at) VALUES ($1, $2, $3, $4)
         )
         INSERT INTO leaderboard_join_counts AS c (leaderboard_id, period_start, participants) VALUES ($1, $2, 1)
         ON CONFLICT (leaderboard_id, period_start) DO UPDATE SET participants = c.participants + 1`,
        [boardId, periodStart, userId, at],
      );
      return { result: 'joined', participants: participants + 1 };
    });
  }

  countSubmission(boardId: number, count: SubmissionCount): Promise<SubmissionCountResult> {
    const { periodStart, userId, terms } = count;
    return inTransaction(this.pool, async (client): Promise<SubmissionCountResult> => {
      // KEY SHARE, as a stat write: the count lands in the period it was meant for, or not at all.
      if (!(await isCurrent(client, boardId, count, 'FOR KEY SHARE'))) return 'board_changed';
      if (terms.joinRequired && !(await participationIn(client, boardId, periodStart, userId)).joined)
        return 'not_joined';
      if (terms.limit === null) return 'counted';
      return (await countSubmissionIn(client, boardId, periodStart, userId, terms.limit)) ? 'counted' : 'limit';
    });
  }
}
