import type {
  Leaderboard,
  LeaderboardDefinition,
  Period,
  Standing,
} from '../../core/leaderboards/leaderboard-model.js';
import type {
  ArchivedPeriod,
  ArchivedStanding,
  EntryWrite,
  EntryWriteResult,
  LeaderboardStore,
  PeriodReset,
  PeriodStanding,
  ResetLease,
} from '../../core/leaderboards/leaderboard-store.js';
import type { RankKey } from '../../core/leaderboards/rank-order.js';
import { RolledBack, unlessRolledBack } from '../rolled-back.js';
import { historyRows, type PeriodStandingRow, periodStandingRows, type StandingRow, standingRows } from '../rows.js';
import { countedEntryWrite, entryWrite } from './entry-writes.js';
import { recordCommitEvents } from './event-store.js';
import {
  clearParticipation,
  insertBoard,
  type Millis,
  type PostgresBoardRow,
  type PostgresHistoryRow,
  SELECT_BOARD,
  selectBoard,
  toBoard,
  toHistory,
} from './leaderboard-rows.js';
import { PostgresTournaments } from './leaderboard-tournaments.js';
import { runListingRewrite, scanListing } from './listing-rewrite.js';
import { inTransaction } from './transactions.js';

/** Leaderboards on PostgreSQL: single statements, or transactions that lock the board row. */
export class PostgresLeaderboardStore extends PostgresTournaments implements LeaderboardStore {
  async create(projectId: number, def: LeaderboardDefinition, period: Period): Promise<Leaderboard | 'taken'> {
    const id = await inTransaction(this.pool, (client) => insertBoard(client, projectId, def, period));
    if (id === null) return 'taken';
    return this.one(`${SELECT_BOARD} WHERE b.id = $1`, [id]) as Promise<Leaderboard>;
  }

  get(projectId: number, slug: string): Promise<Leaderboard | null> {
    // Named: every leaderboard request reads its board, and PostgreSQL then plans this join once per connection.
    return this.one(
      `${SELECT_BOARD} WHERE b.project_id = $1 AND b.slug = $2`,
      [projectId, slug],
      'cds_leaderboard_get',
    );
  }

  async listAll(): Promise<Leaderboard[]> {
    const { rows } = await this.pool.query<PostgresBoardRow>(`${SELECT_BOARD} ORDER BY b.id`);
    return rows.map(toBoard);
  }

  async listDue(now: number): Promise<Leaderboard[]> {
    const { rows } = await this.pool.query<PostgresBoardRow>(
      `${SELECT_BOARD} WHERE b.period_end <= $1 ORDER BY b.period_end, b.id`,
      [now],
    );
    return rows.map(toBoard);
  }

  async standing(boardId: number, userId: number): Promise<Standing> {
    const { rows } = await this.pool.query<{
      stat_value: number | null;
      league: string | null;
      updated_at: Millis | null;
      assigned: string | null;
    }>({
      name: 'cds_leaderboard_standing',
      text: `SELECT e.stat_value, e.league, e.updated_at,
         (SELECT a.league FROM leaderboard_assignments a WHERE a.leaderboard_id = $1 AND a.user_id = $2) AS assigned
       FROM (SELECT 1) one LEFT JOIN leaderboard_entries e ON e.leaderboard_id = $1 AND e.user_id = $2`,
      values: [boardId, userId],
    });
    const row = rows[0];
    const entry =
      row && row.stat_value !== null && row.league !== null && row.updated_at !== null
        ? { userId, statValue: row.stat_value, league: row.league, updatedAt: Number(row.updated_at) }
        : null;
    return { entry, assignedLeague: row?.assigned ?? null };
  }

  async standingsOf(boardId: number, userIds: readonly number[], assignments = true): Promise<Map<number, Standing>> {
    const { rows } = await this.pool.query<Omit<StandingRow, 'updated_at'> & { updated_at: Millis | null }>({
      name: assignments ? 'cds_leaderboard_standings_of' : 'cds_leaderboard_entries_of',
      text: `SELECT u.id AS user_id, e.stat_value, e.league, e.updated_at, ${assignments ? 'a.league' : 'NULL::text'} AS assigned
       FROM unnest($2::int[]) AS u(id)
       LEFT JOIN leaderboard_entries e ON e.leaderboard_id = $1 AND e.user_id = u.id
       ${assignments ? 'LEFT JOIN leaderboard_assignments a ON a.leaderboard_id = $1 AND a.user_id = u.id' : ''}`,
      values: [boardId, userIds],
    });
    return new Map(
      rows.map((row) => [
        row.user_id,
        standingRows.of({ ...row, updated_at: row.updated_at === null ? null : Number(row.updated_at) }),
      ]),
    );
  }

  writeEntry(boardId: number, write: EntryWrite): Promise<EntryWriteResult> {
    return unlessRolledBack(this.writeEntryOnce(boardId, write));
  }

  private writeEntryOnce(boardId: number, write: EntryWrite): Promise<EntryWriteResult> {
    return inTransaction(this.pool, async (client): Promise<EntryWriteResult> => {
      const { next, terms } = write;
      // KEY SHARE lets submissions run side by side but waits for (and then sees) a reset's FOR UPDATE;
      // a join is one of the period's, so the board's lock keeps it as read here.
      // `watched`: whether the project has a webhook (§16), read here so that recording the
      // submission's event costs no round trip of its own (see `watchedProjects` for the lock it holds).
      const board = await client.query<{ period_start: Millis; revision: number; joined: boolean; watched: boolean }>({
        name: 'cds_leaderboard_entry_write_board',
        text: `SELECT period_start, revision, $2::boolean AND EXISTS (SELECT 1 FROM leaderboard_joins j
           WHERE j.leaderboard_id = $1 AND j.period_start = b.period_start AND j.user_id = $3) AS joined,
           EXISTS (SELECT 1 FROM webhooks w WHERE w.project_id = b.project_id) AS watched
         FROM leaderboards b WHERE id = $1 FOR KEY SHARE`,
        values: [boardId, terms?.joinRequired ?? false, next.userId],
      });
      const row = board.rows[0];
      if (!row || Number(row.period_start) !== write.periodStart || row.revision !== write.revision) {
        return 'board_changed';
      }
      if (terms?.joinRequired && !row.joined) return 'not_joined';
      const limit = terms?.limit;
      if (limit != null) {
        // §18: counted in the statement that writes the entry (no round trip of its own): at the
        // limit nothing is written; a lost compare-and-set undoes the count with the transaction.
        const { rows } = await client.query<{ counted: boolean; written: boolean }>(
          countedEntryWrite(boardId, write, limit),
        );
        if (!rows[0]?.counted) return 'limit';
        if (!rows[0].written) throw new RolledBack<EntryWriteResult>('conflict');
      } else {
        const changed = await client.query(entryWrite(boardId, write));
        if (changed.rowCount === 0) return 'conflict';
      }
      if (write.assign) {
        await client.query(
          'INSERT INTO leaderboard_assignments (leaderboard_id, user_id, league) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
          [boardId, next.userId, write.assign],
        );
      }
      if (write.events) await recordCommitEvents(client, write.events, row.watched);
      return 'written';
    });
  }

  scanLeague(boardId: number, league: string, after: RankKey | null, limit: number): Promise<RankKey[]> {
    return scanListing(this.pool, boardId, league, after, limit);
  }

  async acquireResetLease(boardId: number, periodStart: number, { owner, now, until }: ResetLease): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE leaderboards SET reset_owner = $1, reset_lease_until = $2
       WHERE id = $3 AND period_start = $4 AND period_end IS NOT NULL AND period_end <= $5
         AND (reset_lease_until IS NULL OR reset_lease_until <= $5)`,
      [owner, until, boardId, periodStart, now],
    );
    return result.rowCount === 1;
  }

  resetPeriod(boardId: number, reset: PeriodReset): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const locked = await client.query<PostgresBoardRow & { reset_owner: string | null }>(
        `${selectBoard(', b.reset_owner')} WHERE b.id = $1 FOR UPDATE OF b`,
        [boardId],
      );
      const row = locked.rows[0];
      if (
        !row ||
        Number(row.period_start) !== reset.periodStart ||
        row.reset_owner !== reset.owner ||
        row.period_end === null
      ) {
        return false;
      }
      await runListingRewrite(client, boardId, reset.plan(toBoard(row)), Number(row.period_start));
      await client.query(
        'INSERT INTO leaderboard_periods (leaderboard_id, period_start, period_end, archived_at) VALUES ($1, $2, $3, $4)',
        [boardId, row.period_start, row.period_end, reset.archivedAt],
      );
      await client.query('DELETE FROM leaderboard_entries WHERE leaderboard_id = $1', [boardId]);
      await clearParticipation(client, boardId);
      await client.query(
        'UPDATE leaderboards SET period_start = $1, period_end = $2, reset_owner = NULL, reset_lease_until = NULL WHERE id = $3',
        [reset.next.start, reset.next.end, boardId],
      );
      if (reset.events) await recordCommitEvents(client, reset.events);
      return true;
    });
  }

  async archivedPeriod(boardId: number, start: number | null): Promise<ArchivedPeriod | null> {
    const { rows } = await this.pool.query<{ period_start: Millis; period_end: Millis; archived_at: Millis }>(
      `SELECT period_start, period_end, archived_at FROM leaderboard_periods
       WHERE leaderboard_id = $1 AND ($2::bigint IS NULL OR period_start = $2) ORDER BY period_start DESC LIMIT 1`,
      [boardId, start],
    );
    const row = rows[0];
    return row
      ? { start: Number(row.period_start), end: Number(row.period_end), archivedAt: Number(row.archived_at) }
      : null;
  }

  async archivedStandings(boardId: number, periodStart: number, league: string, offset: number, limit: number) {
    const { rows } = await this.pool.query<PostgresHistoryRow>(
      `SELECT ${historyRows.columns} FROM leaderboard_history
       WHERE leaderboard_id = $1 AND period_start = $2 AND league = $3 AND rank > $4 ORDER BY rank LIMIT $5`,
      [boardId, periodStart, league, offset, limit],
    );
    return rows.map(toHistory);
  }

  async archivedCount(boardId: number, periodStart: number, league: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: number | null }>(
      'SELECT max(rank) AS n FROM leaderboard_history WHERE leaderboard_id = $1 AND period_start = $2 AND league = $3',
      [boardId, periodStart, league],
    );
    return rows[0]?.n ?? 0;
  }

  async archivedStandingOf(boardId: number, periodStart: number, userId: number): Promise<ArchivedStanding | null> {
    const { rows } = await this.pool.query<PostgresHistoryRow>(
      `SELECT ${historyRows.columns} FROM leaderboard_history
       WHERE leaderboard_id = $1 AND period_start = $2 AND user_id = $3`,
      [boardId, periodStart, userId],
    );
    return rows[0] ? toHistory(rows[0]) : null;
  }

  async periodsOf(boardId: number, userId: number): Promise<PeriodStanding[]> {
    const { rows } = await this.pool.query<
      Omit<PeriodStandingRow, 'period_start' | 'period_end'> & Record<'period_start' | 'period_end', Millis>
    >(
      `SELECT ${periodStandingRows.columns} FROM leaderboard_history h
       JOIN leaderboard_periods p ON p.leaderboard_id = h.leaderboard_id AND p.period_start = h.period_start
       WHERE h.leaderboard_id = $1 AND h.user_id = $2 ORDER BY h.period_start DESC`,
      [boardId, userId],
    );
    return rows.map((row) =>
      periodStandingRows.of({ ...row, period_start: Number(row.period_start), period_end: Number(row.period_end) }),
    );
  }

  private async one(sql: string, params: unknown[], name?: string): Promise<Leaderboard | null> {
    const { rows } = await this.pool.query<PostgresBoardRow>({ text: sql, values: params, ...(name ? { name } : {}) });
    return rows[0] ? toBoard(rows[0]) : null;
  }
}
