/** The §5 response shapes (snake_case, as the API sends them) and how domain records become them. */
import type { JsonValue } from '../json.js';
import type { Leaderboard, League, Reward } from './leaderboard-model.js';
import { isoTime } from './period-schedule.js';

/** `{limit, offset, total, has_more}` of every listing. */
export interface PaginationView {
  limit: number;
  offset: number;
  total: number;
  has_more: boolean;
}

/** What `expand=profile` adds to a listed user. */
export interface ProfileView {
  nickname: string;
  avatar_url: string | null;
}

/** The bundle's `meta` section. */
export interface MetaView {
  id: number;
  slug: string;
  name: string;
  description: string;
  type: Leaderboard['type'];
  sort: Leaderboard['sort'];
  operator: Leaderboard['operator'];
  reset: Leaderboard['reset'];
  period: { start: string; end: string | null };
  /** Anti-cheat (§9): whether clients may submit, and the accepted range of a submitted value. */
  client_submit: boolean;
  stat_min: number | null;
  stat_max: number | null;
}

/** One item of the bundle's `leagues` section; `users` counts the league's listing. */
export interface LeagueView {
  slug: string;
  name: string;
  order: number;
  min_stat: number | null;
  promote_top: number | null;
  demote_bottom: number | null;
  users: number;
}

/** One item of the bundle's `rewards` section. */
export interface RewardView {
  league: string;
  rank_from: number;
  rank_to: number;
  reward: JsonValue;
}

/** One user of the users listing: `rank` and `stat_value` are null for assigned users without a stat. */
export interface UserItemView {
  rank: number | null;
  user_id: number;
  stat_value: number | null;
  league: string;
  profile?: ProfileView;
}

/** One item of the bundle's `entries` section. */
export interface EntryItemView {
  rank: number;
  user_id: number;
  stat_value: number;
  league: string;
  updated_at: string;
  profile?: ProfileView;
}

/** `GET /leaderboards/{slug}/users` and the bundle's `users` section. */
export interface UsersView {
  pagination: PaginationView;
  league: string;
  users: UserItemView[];
}

/** The bundle's `entries` section. */
export interface EntriesView {
  pagination: PaginationView;
  league: string;
  entries: EntryItemView[];
}

/** The caller's standing: the bundle's `me` section and the answer to a submission. */
export interface MeView {
  leaderboard_id: number;
  leaderboard_slug: string;
  leaderboard_name: string;
  user_id: number;
  rank: number | null;
  stat_value: number | null;
  league: string;
  expired: boolean;
}

/** The bundle: every key present, null when not requested. */
export interface BundleView {
  meta: MetaView | null;
  leagues: LeagueView[] | null;
  rewards: RewardView[] | null;
  entries: EntriesView | null;
  users: UsersView | null;
  me: MeView | null;
}

/** One final standing of an archived period. */
export interface StandingView {
  rank: number;
  user_id: number;
  stat_value: number;
  league: string;
  updated_at: string;
  reward: JsonValue | null;
  profile?: ProfileView;
}

/** `GET /leaderboards/{slug}/history`: one archived period's final standings of one league. */
export interface HistoryView {
  period: { start: string; end: string };
  archived_at: string;
  league: string;
  pagination: PaginationView;
  standings: StandingView[];
  /** The caller's own final standing in that period (any league), or null. */
  me: Omit<StandingView, 'profile'> | null;
}

/** The `meta` section of a board. */
export function metaView(board: Leaderboard): MetaView {
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
    client_submit: board.clientSubmit,
    stat_min: board.statMin,
    stat_max: board.statMax,
  };
}

/** A league as the `leagues` section shows it. */
export function leagueView(league: League, users: number): LeagueView {
  return {
    slug: league.slug,
    name: league.name,
    order: league.order,
    min_stat: league.minStat,
    promote_top: league.promoteTop,
    demote_bottom: league.demoteBottom,
    users,
  };
}

/** A reward as the `rewards` section shows it. */
export function rewardView(reward: Reward): RewardView {
  return { league: reward.league, rank_from: reward.rankFrom, rank_to: reward.rankTo, reward: reward.reward };
}

/** The pagination block of a listing. */
export function paginationView(limit: number, offset: number, total: number, returned: number): PaginationView {
  return { limit, offset, total, has_more: offset + returned < total };
}
