/**
 * PostgreSQL's leaderboard rows and the model's values: boards read and written through the one
 * column list of `core/leaderboards/board-record.ts`, coercing only what `pg` returns differently
 * (BIGINT epoch milliseconds as strings). Shared by the leaderboard, admin and transfer stores.
 */
import {
  type BoardRow,
  boardRows,
  type LeagueRecord,
  type RewardRecord,
} from '../../core/leaderboards/board-record.js';
import type { Leaderboard, LeaderboardDefinition, Period } from '../../core/leaderboards/leaderboard-model.js';
import type { ArchivedStanding } from '../../core/leaderboards/leaderboard-store.js';
import { type HistoryRow, historyRows } from '../rows.js';
import { columnsOf } from './columns-of.js';
import type { Queryable } from './transactions.js';

/** BIGINT columns arrive as strings; these are epoch milliseconds, well inside a double's exact range. */
export type Millis = string;

/** A board row as `pg` returns it, with its leagues and rewards as JSON arrays. */
export interface PostgresBoardRow extends Omit<BoardRow, 'period_start' | 'period_end' | 'starts_at' | 'ends_at'> {
  period_start: Millis;
  period_end: Millis | null;
  starts_at: Millis | null;
  ends_at: Millis | null;
  leagues: LeagueRecord[];
  rewards: RewardRecord[];
}

/** A history row as `pg` returns it: `updated_at` a BIGINT string. */
export type PostgresHistoryRow = Omit<HistoryRow, 'updated_at'> & { updated_at: Millis };

const { columns } = boardRows;

/** `$from, $from+1, …`: `count` parameters. */
export const params = (count: number, from = 1) => Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');

/**
 * The board columns of a `PostgresBoardRow` from `leaderboards b` (`extra` adds some), with its
 * leagues and rewards as JSON arrays: one statement per board read.
 */
export const selectBoard = (
  extra = '',
) => `SELECT ${['id', 'project_id', 'revision', ...columns].map((c) => `b.${c}`).join(', ')}${extra},
    COALESCE((SELECT json_agg(json_build_object('slug', l.slug, 'name', l.name, 'order', l.ord, 'min_stat', l.min_stat,
        'promote_top', l.promote_top, 'demote_bottom', l.demote_bottom) ORDER BY l.ord)
      FROM leaderboard_leagues l WHERE l.leaderboard_id = b.id), '[]') AS leagues,
    COALESCE((SELECT json_agg(json_build_object('league', w.league, 'rank_from', w.rank_from, 'rank_to', w.rank_to,
        'reward', w.reward) ORDER BY w.position)
      FROM leaderboard_rewards w WHERE w.leaderboard_id = b.id), '[]') AS rewards
  FROM leaderboards b`;

/** Every board read starts here: `WHERE` and `ORDER BY` follow. */
export const SELECT_BOARD = selectBoard();

export const toHistory = (row: PostgresHistoryRow): ArchivedStanding =>
  historyRows.of({ ...row, updated_at: Number(row.updated_at) });

const millis = (value: Millis | null) => (value === null ? null : Number(value));

/** The board of a row. */
export function toBoard({ leagues, rewards, ...row }: PostgresBoardRow): Leaderboard {
  const { period_end, starts_at, ends_at } = row;
  return boardRows.of(
    {
      ...row,
      period_start: Number(row.period_start),
      period_end: millis(period_end),
      starts_at: millis(starts_at),
      ends_at: millis(ends_at),
    },
    leagues,
    rewards,
  );
}

/** Inserts a new board with its leagues and rewards; null when the slug is taken. Shared with the import. */
export async function insertBoard(
  db: Queryable,
  projectId: number,
  def: LeaderboardDefinition,
  period: Period,
): Promise<number | null> {
  const inserted = await db.query<{ id: number }>(
    `INSERT INTO leaderboards (project_id, ${columns.join(', ')}) VALUES ($1, ${params(columns.length, 2)})
     ON CONFLICT (project_id, slug) DO NOTHING RETURNING id`,
    [projectId, ...boardRows.values(def, period)],
  );
  const id = inserted.rows[0]?.id ?? null;
  if (id !== null) await writeDefinitionParts(db, id, def);
  return id;
}

/**
 * Replaces a board in place (the import): its definition, period and leagues and rewards, with
 * no entries, assignments, joins or counts left, a free reset lease and the next revision.
 */
export async function replaceBoard(
  db: Queryable,
  boardId: number,
  def: LeaderboardDefinition,
  period: Period,
): Promise<void> {
  await db.query(
    `UPDATE leaderboards SET (${columns.join(', ')}) = (${params(columns.length)}),
       revision = revision + 1, reset_owner = NULL, reset_lease_until = NULL WHERE id = $${columns.length + 1}`,
    [...boardRows.values(def, period), boardId],
  );
  await db.query('DELETE FROM leaderboard_entries WHERE leaderboard_id = $1', [boardId]);
  await db.query('DELETE FROM leaderboard_assignments WHERE leaderboard_id = $1', [boardId]);
  await clearParticipation(db, boardId);
  await writeDefinitionParts(db, boardId, def);
}

/** Drops a board's joins and counts (§18), in one statement: a reset starts the next period without any, an import replaces the board. */
export async function clearParticipation(db: Queryable, boardId: number): Promise<void> {
  await db.query(
    `WITH joins AS (DELETE FROM leaderboard_joins WHERE leaderboard_id = $1),
       counts AS (DELETE FROM leaderboard_join_counts WHERE leaderboard_id = $1)
     DELETE FROM leaderboard_submission_counts WHERE leaderboard_id = $1`,
    [boardId],
  );
}

/** Writes a board's leagues and rewards (after deleting any it had); shared with the import. */
export async function writeDefinitionParts(db: Queryable, boardId: number, def: LeaderboardDefinition): Promise<void> {
  await db.query('DELETE FROM leaderboard_leagues WHERE leaderboard_id = $1', [boardId]);
  await db.query('DELETE FROM leaderboard_rewards WHERE leaderboard_id = $1', [boardId]);
  await db.query(
    `INSERT INTO leaderboard_leagues (leaderboard_id, slug, name, ord, min_stat, promote_top, demote_bottom)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int[], $5::float8[], $6::int[], $7::int[])`,
    [boardId, ...columnsOf(def.leagues, 'slug', 'name', 'order', 'minStat', 'promoteTop', 'demoteBottom')],
  );
  if (def.rewards.length === 0) return;
  await db.query(
    `INSERT INTO leaderboard_rewards (leaderboard_id, position, league, rank_from, rank_to, reward)
     SELECT $1, * FROM unnest($2::int[], $3::text[], $4::int[], $5::int[], $6::jsonb[])`,
    [
      boardId,
      def.rewards.map((_, i) => i),
      ...columnsOf(def.rewards, 'league', 'rankFrom', 'rankTo'),
      def.rewards.map((r) => JSON.stringify(r.reward)),
    ],
  );
}
