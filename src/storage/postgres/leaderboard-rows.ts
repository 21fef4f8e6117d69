/**
 * The rows of PostgreSQL's leaderboard tables as the model's values, and a board's definition
 * written as rows: shared by the leaderboard, admin and transfer stores.
 */
import type { JsonValue } from '../../core/json.js';
import type {
  Leaderboard,
  LeaderboardDefinition,
  League,
  Period,
  Reward,
} from '../../core/leaderboards/leaderboard-model.js';
import type { ArchivedStanding } from '../../core/leaderboards/leaderboard-store.js';
import type { Queryable } from './transactions.js';

/** BIGINT columns arrive as strings; these are epoch milliseconds, well inside a double's exact range. */
export type Millis = string;

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
  period_start: Millis;
  period_end: Millis | null;
  client_submit: boolean;
  stat_min: number | null;
  stat_max: number | null;
  leagues: {
    slug: string;
    name: string;
    ord: number;
    min_stat: number | null;
    promote_top: number | null;
    demote_bottom: number | null;
  }[];
  rewards: { league: string; rank_from: number; rank_to: number; reward: JsonValue }[];
}

export interface HistoryRow {
  rank: number;
  user_id: number;
  stat_value: number;
  league: string;
  updated_at: Millis;
  reward: JsonValue | null;
}

// One statement per board read: leagues and rewards come along as JSON arrays.
export const SELECT_BOARD = `SELECT b.id, b.project_id, b.slug, b.name, b.description, b.type, b.sort, b.operator, b.reset,
    b.revision, b.period_start, b.period_end, b.client_submit, b.stat_min, b.stat_max,
    COALESCE((SELECT json_agg(json_build_object('slug', l.slug, 'name', l.name, 'ord', l.ord, 'min_stat', l.min_stat,
        'promote_top', l.promote_top, 'demote_bottom', l.demote_bottom) ORDER BY l.ord)
      FROM leaderboard_leagues l WHERE l.leaderboard_id = b.id), '[]') AS leagues,
    COALESCE((SELECT json_agg(json_build_object('league', w.league, 'rank_from', w.rank_from, 'rank_to', w.rank_to,
        'reward', w.reward) ORDER BY w.position)
      FROM leaderboard_rewards w WHERE w.leaderboard_id = b.id), '[]') AS rewards
  FROM leaderboards b`;

export const toHistory = (row: HistoryRow): ArchivedStanding => ({
  rank: row.rank,
  userId: row.user_id,
  statValue: row.stat_value,
  league: row.league,
  updatedAt: Number(row.updated_at),
  reward: row.reward,
});

/** Inserts a new board with its leagues and rewards; null when the slug is taken. Shared with the import. */
export async function insertBoard(
  db: Queryable,
  projectId: number,
  def: LeaderboardDefinition,
  period: Period,
): Promise<number | null> {
  const inserted = await db.query<{ id: number }>(
    `INSERT INTO leaderboards (project_id, slug, name, description, type, sort, operator, reset, period_start, period_end,
       client_submit, stat_min, stat_max)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (project_id, slug) DO NOTHING RETURNING id`,
    [
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
      def.clientSubmit,
      def.statMin,
      def.statMax,
    ],
  );
  const id = inserted.rows[0]?.id ?? null;
  if (id !== null) await writeDefinitionParts(db, id, def);
  return id;
}

/** Writes a board's leagues and rewards (after deleting any it had); shared with the import. */
export async function writeDefinitionParts(db: Queryable, boardId: number, def: LeaderboardDefinition): Promise<void> {
  await db.query('DELETE FROM leaderboard_leagues WHERE leaderboard_id = $1', [boardId]);
  await db.query('DELETE FROM leaderboard_rewards WHERE leaderboard_id = $1', [boardId]);
  await db.query(
    `INSERT INTO leaderboard_leagues (leaderboard_id, slug, name, ord, min_stat, promote_top, demote_bottom)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int[], $5::float8[], $6::int[], $7::int[])`,
    [
      boardId,
      def.leagues.map((l) => l.slug),
      def.leagues.map((l) => l.name),
      def.leagues.map((l) => l.order),
      def.leagues.map((l) => l.minStat),
      def.leagues.map((l) => l.promoteTop),
      def.leagues.map((l) => l.demoteBottom),
    ],
  );
  if (def.rewards.length === 0) return;
  await db.query(
    `INSERT INTO leaderboard_rewards (leaderboard_id, position, league, rank_from, rank_to, reward)
     SELECT $1, * FROM unnest($2::int[], $3::text[], $4::int[], $5::int[], $6::jsonb[])`,
    [
      boardId,
      def.rewards.map((_, i) => i),
      def.rewards.map((r) => r.league),
      def.rewards.map((r) => r.rankFrom),
      def.rewards.map((r) => r.rankTo),
      def.rewards.map((r) => JSON.stringify(r.reward)),
    ],
  );
}

export function toBoard(row: BoardRow): Leaderboard {
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
    period: { start: Number(row.period_start), end: row.period_end === null ? null : Number(row.period_end) },
    clientSubmit: row.client_submit,
    statMin: row.stat_min,
    statMax: row.stat_max,
    leagues: row.leagues.map(
      (l): League => ({
        slug: l.slug,
        name: l.name,
        order: l.ord,
        minStat: l.min_stat,
        promoteTop: l.promote_top,
        demoteBottom: l.demote_bottom,
      }),
    ),
    rewards: row.rewards.map(
      (r): Reward => ({ league: r.league, rankFrom: r.rank_from, rankTo: r.rank_to, reward: r.reward }),
    ),
  };
}
