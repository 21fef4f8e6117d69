/** The §5 response shapes (snake_case, as the API sends them) and how domain records become them. */

import type { UserProfile } from '../auth/account-store.js';
import type { JsonValue } from '../json.js';
import { type BoardFields, boardFields, type LeagueRecord, leagueRecord, type RewardRecord } from './board-record.js';
import type { Leaderboard, League, Period, SortOrder } from './leaderboard-model.js';
import { isoTime } from './period-schedule.js';
import { isUnranked, type RankKey, statOf } from './rank-order.js';

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

/** A current period as answers show it: `end` null when the board never resets. */
export interface PeriodView {
  start: string;
  end: string | null;
}

/** The bundle's `meta` section: the board's fields (anti-cheat included, §9), id and current period. */
export interface MetaView extends BoardFields {
  id: number;
  period: PeriodView;
}

/** One item of the bundle's `leagues` section; `users` counts the league's listing. */
export interface LeagueView extends LeagueRecord {
  users: number;
}

/** One item of the bundle's `rewards` section. */
export type RewardView = RewardRecord;

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

/** `GET /leaderboards/{slug}/around` (§18): the caller's `me` and the ranked users around it in its league. */
export interface AroundView {
  league: string;
  me: MeView;
  users: UserItemView[];
}

/** An archived period as answers show it. */
export interface ArchivedPeriodView {
  start: string;
  end: string;
}

/** One period of `GET /leaderboards/{slug}/history/me`: the caller's final standing in it. */
export interface MyPeriodView {
  period: ArchivedPeriodView;
  rank: number;
  stat_value: number;
  league: string;
  reward: JsonValue | null;
}

/** `GET /leaderboards/{slug}/history/me` (§18): the caller's archived periods and best final rank. */
export interface MyHistoryView {
  periods: MyPeriodView[];
  best: { rank: number; period: ArchivedPeriodView } | null;
}

/** A user's profile as `expand=profile` shows it (empty when the account is gone). */
export function profileOf(profiles: ReadonlyMap<number, UserProfile>, userId: number): ProfileView {
  const profile = profiles.get(userId);
  return { nickname: profile?.nickname ?? '', avatar_url: profile?.avatarUrl ?? null };
}

/** A listing's keys as its users, the first at position `offset` (rank `offset + 1` when ranked). */
export function userItems(
  sort: SortOrder,
  league: string,
  keys: readonly RankKey[],
  offset: number,
  profiles: ReadonlyMap<number, UserProfile> | null,
): UserItemView[] {
  return keys.map((key, i) => ({
    rank: isUnranked(key) ? null : offset + i + 1,
    user_id: key.userId,
    stat_value: isUnranked(key) ? null : statOf(sort, key.score),
    league,
    ...(profiles ? { profile: profileOf(profiles, key.userId) } : {}),
  }));
}

/** An archived period as answers show it. */
export function archivedPeriodView(period: { start: number; end: number }): ArchivedPeriodView {
  return { start: isoTime(period.start), end: isoTime(period.end) };
}

/** A current period as answers show it. */
export function periodView(period: Period): PeriodView {
  return { start: isoTime(period.start), end: period.end === null ? null : isoTime(period.end) };
}

/** The `meta` section of a board. */
export function metaView(board: Leaderboard): MetaView {
  return { id: board.id, ...boardFields(board), period: periodView(board.period) };
}

/** A league as the `leagues` section shows it. */
export function leagueView(league: League, users: number): LeagueView {
  return { ...leagueRecord(league), users };
}

/** The pagination block of a listing. */
export function paginationView(limit: number, offset: number, total: number, returned: number): PaginationView {
  return { limit, offset, total, has_more: offset + returned < total };
}
