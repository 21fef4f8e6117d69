/**
 * The rows of SQLite's leaderboard tables as the model's values, and a board's definition
 * written as rows: shared by the leaderboard, admin and transfer stores.
 */
import type Database from 'better-sqlite3';
import type { JsonValue } from '../../core/json.js';
import type {
  Leaderboard,
  LeaderboardDefinition,
  LeaderboardEntry,
  League,
  Period,
  Reward,
} from '../../core/leaderboards/leaderboard-model.js';
import type { ArchivedStanding } from '../../core/leaderboards/leaderboard-store.js';

export interface BoardRow {
  id: number;
  project_id: number;
  slug: string;
  name: string;
  description: string;
  type: Leaderboard['type'];
  sort: Leaderboard['sort'];
  operator: Leaderboard['operator'];
  reset: Leaderboard['reset'];
  revision: number;
  period_start: number;
  period_end: number | null;
  /** 0 or 1. */
  client_submit: number;
  stat_min: number | null;
  stat_max: number | null;
}

export interface LeagueRow {
  slug: string;
  name: string;
  ord: number;
  min_stat: number | null;
  promote_top: number | null;
  demote_bottom: number | null;
}

export interface RewardRow {
  league: string;
  rank_from: number;
  rank_to: number;
  reward: string;
}

export interface EntryRow {
  user_id: number;
  stat_value: number;
  league: string;
  updated_at: number;
}

export interface HistoryRow extends EntryRow {
  rank: number;
  reward: string | null;
}

export const BOARD_COLUMNS =
  'id, project_id, slug, name, description, type, sort, operator, reset, revision, period_start, period_end, client_submit, stat_min, stat_max';

export const toHistory = (row: HistoryRow): ArchivedStanding => ({
  rank: row.rank,
  userId: row.user_id,
  statValue: row.stat_value,
  league: row.league,
  updatedAt: row.updated_at,
  reward: row.reward === null ? null : (JSON.parse(row.reward) as JsonValue),
});

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
      `INSERT INTO leaderboards (project_id, slug, name, description, type, sort, operator, reset, period_start, period_end,
         client_submit, stat_min, stat_max, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      projectId,
      def.slug,
      def.name,
      def.description,
      def.type,
      def.sort,
      def.operator,
      def.reset,
      period.start,
      period.end,
      def.clientSubmit ? 1 : 0,
      def.statMin,
      def.statMax,
      now,
    );
  const boardId = Number(result.lastInsertRowid);
  writeDefinitionParts(db, boardId, def);
  return boardId;
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

export function toEntry(row: EntryRow): LeaderboardEntry {
  return { userId: row.user_id, statValue: row.stat_value, league: row.league, updatedAt: row.updated_at };
}

export function boardFromRows(row: BoardRow, leagues: LeagueRow[], rewards: RewardRow[]): Leaderboard {
  return {
    id: row.id,
    projectId: row.project_id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    type: row.type,
    sort: row.sort,
    operator: row.operator,
    reset: row.reset,
    revision: row.revision,
    period: { start: row.period_start, end: row.period_end },
    clientSubmit: row.client_submit === 1,
    statMin: row.stat_min,
    statMax: row.stat_max,
    leagues: leagues.map(
      (l): League => ({
        slug: l.slug,
        name: l.name,
        order: l.ord,
        minStat: l.min_stat,
        promoteTop: l.promote_top,
        demoteBottom: l.demote_bottom,
      }),
    ),
    rewards: rewards.map(
      (r): Reward => ({
        league: r.league,
        rankFrom: r.rank_from,
        rankTo: r.rank_to,
        reward: JSON.parse(r.reward) as JsonValue,
      }),
    ),
  };
}
