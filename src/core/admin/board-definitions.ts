/** Leaderboard definitions as the admin API takes and shows them (snake_case, §5 field names). */
import { badRequest } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { LeaderboardEdit } from '../leaderboards/leaderboard-admin.js';
import {
  ANTI_CHEAT_DEFAULTS,
  type Leaderboard,
  type LeaderboardDefinition,
  type LeaderboardType,
  type League,
  type ResetSchedule,
  type Reward,
  type SortOrder,
  type SubmitOperator,
} from '../leaderboards/leaderboard-model.js';
import { isoTime } from '../leaderboards/period-schedule.js';

/** A league as sent: `order` defaults to its position, `name` to its slug. */
export interface LeagueInput {
  slug: string;
  name?: string;
  order?: number;
  min_stat?: number | null;
  promote_top?: number | null;
  demote_bottom?: number | null;
}

/** A reward as sent. */
export interface RewardInput {
  league: string;
  rank_from: number;
  rank_to: number;
  reward?: unknown;
}

/** A new board as sent; omitted fields take the defaults of `DEFAULTS`. */
export interface BoardInput {
  slug: string;
  name: string;
  description?: string;
  type?: LeaderboardType;
  sort?: SortOrder;
  operator?: SubmitOperator;
  reset?: ResetSchedule;
  leagues?: LeagueInput[];
  rewards?: RewardInput[];
  client_submit?: boolean;
  stat_min?: number | null;
  stat_max?: number | null;
}

/** A change of a board as sent; `type`, `sort` and `reset` may be repeated but not changed. */
export type BoardChangeInput = Partial<Omit<BoardInput, 'slug'>>;

/** A board as the admin API shows it: its definition and current period. */
export interface BoardView {
  id: number;
  slug: string;
  name: string;
  description: string;
  type: LeaderboardType;
  sort: SortOrder;
  operator: SubmitOperator;
  reset: ResetSchedule;
  period: { start: string; end: string | null };
  leagues: {
    slug: string;
    name: string;
    order: number;
    min_stat: number | null;
    promote_top: number | null;
    demote_bottom: number | null;
  }[];
  rewards: { league: string; rank_from: number; rank_to: number; reward: JsonValue }[];
  client_submit: boolean;
  stat_min: number | null;
  stat_max: number | null;
}

/** What a board is when the request leaves a field out (§5: one league `global`). */
export const DEFAULTS = {
  description: '',
  type: 'CONTINUOUS',
  sort: 'desc',
  operator: 'best',
  reset: 'none',
  leagues: [{ slug: 'global', name: 'Global' }],
} as const;

function leaguesOf(input: readonly LeagueInput[]): League[] {
  return input
    .map((l, i) => ({
      slug: l.slug,
      name: l.name ?? l.slug,
      order: l.order ?? i,
      minStat: l.min_stat ?? null,
      promoteTop: l.promote_top ?? null,
      demoteBottom: l.demote_bottom ?? null,
    }))
    .sort((a, b) => a.order - b.order);
}

function rewardsOf(input: readonly RewardInput[]): Reward[] {
  return input.map((r) => ({
    league: r.league,
    rankFrom: r.rank_from,
    rankTo: r.rank_to,
    reward: (r.reward ?? null) as JsonValue,
  }));
}

/** The definition of a new board. */
export function definitionOf(input: BoardInput): LeaderboardDefinition {
  return {
    slug: input.slug,
    name: input.name,
    description: input.description ?? DEFAULTS.description,
    type: input.type ?? DEFAULTS.type,
    sort: input.sort ?? DEFAULTS.sort,
    operator: input.operator ?? DEFAULTS.operator,
    reset: input.reset ?? DEFAULTS.reset,
    leagues: leaguesOf(input.leagues ?? DEFAULTS.leagues),
    rewards: rewardsOf(input.rewards ?? []),
    clientSubmit: input.client_submit ?? ANTI_CHEAT_DEFAULTS.clientSubmit,
    statMin: input.stat_min ?? ANTI_CHEAT_DEFAULTS.statMin,
    statMax: input.stat_max ?? ANTI_CHEAT_DEFAULTS.statMax,
  };
}

/** The edit a change asks for; 400 when it would change `type`, `sort` or `reset`. */
export function editOf(board: Leaderboard, input: BoardChangeInput): LeaderboardEdit {
  for (const field of ['type', 'sort', 'reset'] as const) {
    if (input[field] !== undefined && input[field] !== board[field]) {
      throw badRequest(`'${field}' of a leaderboard cannot be changed; create another leaderboard instead`);
    }
  }
  const edit: LeaderboardEdit = {};
  if (input.name !== undefined) edit.name = input.name;
  if (input.description !== undefined) edit.description = input.description;
  if (input.operator !== undefined) edit.operator = input.operator;
  if (input.leagues !== undefined) edit.leagues = leaguesOf(input.leagues);
  if (input.rewards !== undefined) edit.rewards = rewardsOf(input.rewards);
  if (input.client_submit !== undefined) edit.clientSubmit = input.client_submit;
  if (input.stat_min !== undefined) edit.statMin = input.stat_min;
  if (input.stat_max !== undefined) edit.statMax = input.stat_max;
  return edit;
}

/** The admin view of a board. */
export function boardView(board: Leaderboard): BoardView {
  return {
    id: board.id,
    slug: board.slug,
    name: board.name,
    description: board.description,
    type: board.type,
    sort: board.sort,
    operator: board.operator,
    reset: board.reset,
    period: { start: isoTime(board.period.start), end: board.period.end === null ? null : isoTime(board.period.end) },
    leagues: board.leagues.map((l) => ({
      slug: l.slug,
      name: l.name,
      order: l.order,
      min_stat: l.minStat,
      promote_top: l.promoteTop,
      demote_bottom: l.demoteBottom,
    })),
    rewards: board.rewards.map((r) => ({
      league: r.league,
      rank_from: r.rankFrom,
      rank_to: r.rankTo,
      reward: r.reward,
    })),
    client_submit: board.clientSubmit,
    stat_min: board.statMin,
    stat_max: board.statMax,
  };
}
