/**
 * SQLite's leaderboard rows and the model's values: boards read and written through the one
 * column list of `core/leaderboards/board-record.ts`, coercing only what SQLite stores
 * differently (booleans as 0/1, JSON as text). Shared by the leaderboard, admin and transfer stores.
 */
import type Database from 'better-sqlite3';
import type { JsonValue } from '../../core/json.js';
import {
  type BoardRow,
  type BoardValue,
  boardRows,
  type LeagueRecord,
  type RewardRecord,
} from '../../core/leaderboards/board-record.js';
import type { Leaderboard, LeaderboardDefinition, Period } from '../../core/leaderboards/leaderboard-model.js';
import type { ArchivedStanding } from '../../core/leaderboards/leaderboard-store.js';
import { type HistoryRow, historyRows } from '../rows.js';

/** What the stores need of a database: `prepare` (the leaderboard store's caches its statements). */
type Prepares = Pick<Database.Database, 'prepare'>;

/** A board row as SQLite returns it: `client_submit` and `join_required` are 0 or 1. */
export type SqliteBoardRow = Omit<BoardRow, 'client_submit' | 'join_required'> & {
  client_submit: number;
  join_required: number;
};

/** A history row as SQLite returns it: `reward` JSON text. */
export type SqliteHistoryRow = Omit<HistoryRow, 'reward'> & { reward: string | null };

const { columns } = boardRows;
/** The columns of a `SqliteBoardRow`. */
export const BOARD_ROW_COLUMNS = `id, project_id, revision, ${columns.join(', ')}`;
/** Every board read starts here: `WHERE` and `ORDER BY` follow. */
export const SELECT_BOARD = `SELECT ${BOARD_ROW_COLUMNS} FROM leaderboards`;

/** Values as SQLite binds them: booleans as 0/1. */
export const sqliteValues = (values: BoardValue[]) =>
  values.map((value) => (typeof value === 'boolean' ? Number(value) : value));

export const toHistory = (row: SqliteHistoryRow): ArchivedStanding =>
  historyRows.of({ ...row, reward: row.reward === null ? null : (JSON.parse(row.reward) as JsonValue) });

/** The board of a row, with its leagues and rewards read beside it. */
export function readBoard(db: Prepares, row: SqliteBoardRow): Leaderboard {
  const leagues = db
    .prepare<[number], LeagueRecord>(
      'SELECT slug, name, ord AS "order", min_stat, promote_top, demote_bottom FROM leaderboard_leagues WHERE leaderboard_id = ? ORDER BY ord',
    )
    .all(row.id);
  const rewards = db
    .prepare<[number], Omit<RewardRecord, 'reward'> & { reward: string }>(
      'SELECT league, rank_from, rank_to, reward FROM leaderboard_rewards WHERE leaderboard_id = ? ORDER BY position',
    )
    .all(row.id)
    .map((reward) => ({ ...reward, reward: JSON.parse(reward.reward) as JsonValue }));
  return boardRows.of(
    { ...row, client_submit: row.client_submit === 1, join_required: row.join_required === 1 },
    leagues,
    rewards,
  );
}

/** Inserts a new board with its leagues and rewards; shared with the import. */
export function insertBoard(
  db: Database.Database,
  projectId: number,
  def: LeaderboardDefinition,
  period: Period,
  now: number,
): number {
  const result = db
    .prepare(
      `INSERT INTO leaderboards (project_id, ${columns.join(', ')}, created_at)
       VALUES (?, ${columns.map(() => '?').join(', ')}, ?)`,
    )
    .run(projectId, ...sqliteValues(boardRows.values(def, period)), now);
  const boardId = Number(result.lastInsertRowid);
  writeDefinitionParts(db, boardId, def);
  return boardId;
}

/**
 * Replaces a board in place (the import): its definition, period and leagues and rewards, with
 * no entries, assignments, joins or counts left, a free reset lease and the next revision.
 */
export function replaceBoard(db: Database.Database, boardId: number, def: LeaderboardDefinition, period: Period): void {
  db.prepare(
    `UPDATE leaderboards SET (${columns.join(', ')}) = (${columns.map(() => '?').join(', ')}),
       revision = revision + 1, reset_owner = NULL, reset_lease_until = NULL WHERE id = ?`,
  ).run(...sqliteValues(boardRows.values(def, period)), boardId);
  db.prepare('DELETE FROM leaderboard_entries WHERE leaderboard_id = ?').run(boardId);
  db.prepare('DELETE FROM leaderboard_assignments WHERE leaderboard_id = ?').run(boardId);
  clearParticipation(db, boardId);
  writeDefinitionParts(db, boardId, def);
}

/** Drops a board's joins and counts (§18): a reset starts the next period without any, an import replaces the board. */
export function clearParticipation(db: Prepares, boardId: number): void {
  for (const table of ['leaderboard_joins', 'leaderboard_join_counts', 'leaderboard_submission_counts']) {
    db.prepare(`DELETE FROM ${table} WHERE leaderboard_id = ?`).run(boardId);
  }
}

/** Writes a board's leagues and rewards (after deleting any it had); shared with the import. */
export function writeDefinitionParts(db: Database.Database, boardId: number, def: LeaderboardDefinition): void {
  db.prepare('DELETE FROM leaderboard_leagues WHERE leaderboard_id = ?').run(boardId);
  db.prepare('DELETE FROM leaderboard_rewards WHERE leaderboard_id = ?').run(boardId);
  const league = db.prepare(
    'INSERT INTO leaderboard_leagues (leaderboard_id, slug, name, ord, min_stat, promote_top, demote_bottom) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  for (const l of def.leagues) league.run(boardId, l.slug, l.name, l.order, l.minStat, l.promoteTop, l.demoteBottom);
  const reward = db.prepare(
    'INSERT INTO leaderboard_rewards (leaderboard_id, position, league, rank_from, rank_to, reward) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const [i, r] of def.rewards.entries())
    reward.run(boardId, i, r.league, r.rankFrom, r.rankTo, JSON.stringify(r.reward));
}
