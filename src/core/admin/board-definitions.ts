/** Leaderboard definitions as the admin API takes and shows them (snake_case, §5 field names). */
import { badRequest } from '../errors.js';
import {
  type BoardInput,
  type LeagueRecord,
  leagueRecord,
  leaguesOf,
  type RewardRecord,
  rewardRecord,
  rewardsOf,
  tournamentOf,
} from '../leaderboards/board-record.js';
import type { LeaderboardEdit } from '../leaderboards/leaderboard-admin.js';
import type { Leaderboard } from '../leaderboards/leaderboard-model.js';
import { type MetaView, metaView } from '../leaderboards/leaderboard-views.js';

/** A change of a board as sent; `type`, `sort` and `reset` may be repeated but not changed. */
export type BoardChangeInput = Partial<Omit<BoardInput, 'slug'>>;

/** A board as the admin API shows it: the fields of its `meta` section with its leagues and rewards. */
export interface BoardView extends MetaView {
  leagues: LeagueRecord[];
  rewards: RewardRecord[];
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
  // Each tournament field the change names (null included: it removes the limit or the bound).
  const tournament = tournamentOf(input);
  if (input.join_required !== undefined) edit.joinRequired = tournament.joinRequired;
  if (input.max_participants !== undefined) edit.maxParticipants = tournament.maxParticipants;
  if (input.max_submissions !== undefined) edit.maxSubmissions = tournament.maxSubmissions;
  if (input.starts_at !== undefined) edit.startsAt = tournament.startsAt;
  if (input.ends_at !== undefined) edit.endsAt = tournament.endsAt;
  return edit;
}

/** The admin view of a board. */
export function boardView(board: Leaderboard): BoardView {
  return { ...metaView(board), leagues: board.leagues.map(leagueRecord), rewards: board.rewards.map(rewardRecord) };
}
