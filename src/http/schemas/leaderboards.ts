/** TypeBox schemas of the leaderboard routes (§5): validation, response serialization and OpenAPI. */
import Type from 'typebox';
import { MAX_ID } from '../../core/admin/admin-service.js';
import {
  BoardFieldsSchema,
  LeagueRecordSchema,
  RewardRecordSchema,
  TournamentFieldsSchema,
} from '../../core/leaderboards/board-record.js';
import { Nullable } from '../../core/nullable-schema.js';

/** A board's anti-cheat settings (§9) as every board representation shows them. */
export const antiCheatFields = {
  client_submit: Type.Boolean({ description: 'false: clients get 403; only the admin route (server keys) submits' }),
  stat_min: Nullable(Type.Number({ description: 'Lowest accepted submitted value (inclusive); null: no bound' })),
  stat_max: Nullable(Type.Number({ description: 'Highest accepted submitted value (inclusive); null: no bound' })),
};

export const LeaderboardParams = Type.Object({ slug: Type.String() });

const listingQuery = {
  league: Type.Optional(Type.String({ description: 'League slug; default the caller’s league, else the lowest' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  source: Type.Optional(
    Type.Union([Type.Literal('ranked'), Type.Literal('assigned')], {
      description: 'ranked (default): users with a stat; assigned (AT_RESET only): every user assigned to the league',
    }),
  ),
  expand: Type.Optional(Type.Literal('profile', { description: 'profile: add {nickname, avatar_url} to each user' })),
};

export const UsersQuery = Type.Object({
  ...listingQuery,
  user_ids: Type.Optional(
    Type.String({
      pattern: '^[0-9]+(,[0-9]+){0,99}$',
      description:
        'A chosen set: 1 to 100 comma-separated user ids; only those users of the league are listed, `offset` is ignored',
    }),
  ),
});

export const AroundQuery = Type.Object({
  radius: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 50, description: 'Ranked users shown on each side of the caller (default 5)' }),
  ),
  expand: listingQuery.expand,
  user_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_ID,
      description: 'With a server key, required: the user to centre on (ignored with a player token)',
    }),
  ),
});

export const MyHistoryQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, description: 'Periods returned, newest first (default 20)' }),
  ),
});

export const BundleQuery = Type.Object({
  include: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Required: comma-separated (or repeated) sections among meta, leagues, rewards, entries, users, me',
    }),
  ),
  ...listingQuery,
});

export const HistoryQuery = Type.Object({
  period: Type.Optional(Type.String({ description: 'Start of an archived period (ISO 8601); default the latest' })),
  league: listingQuery.league,
  limit: listingQuery.limit,
  offset: listingQuery.offset,
  expand: listingQuery.expand,
});

export const SubmitBody = Type.Object({ value: Type.Number() });

const Pagination = Type.Object({
  limit: Type.Integer(),
  offset: Type.Integer(),
  total: Type.Integer(),
  has_more: Type.Boolean(),
});

const Profile = Type.Object({ nickname: Type.String(), avatar_url: Nullable(Type.String()) });

export const MeSchema = Type.Object({
  leaderboard_id: Type.Integer(),
  leaderboard_slug: Type.String(),
  leaderboard_name: Type.String(),
  user_id: Type.Integer(),
  rank: Nullable(Type.Integer()),
  stat_value: Nullable(Type.Number()),
  league: Type.String(),
  expired: Type.Boolean(),
});

const UserItem = Type.Object({
  rank: Nullable(Type.Integer()),
  user_id: Type.Integer(),
  stat_value: Nullable(Type.Number()),
  league: Type.String(),
  profile: Type.Optional(Profile),
});

export const UsersListSchema = Type.Object({
  pagination: Pagination,
  league: Type.String(),
  users: Type.Array(UserItem),
});

export const AroundSchema = Type.Object({
  league: Type.String(),
  me: MeSchema,
  users: Type.Array(UserItem),
});

/** A board as the admin API shows it: its definition and current period. */
export const BoardSchema = Type.Object({
  id: Type.Integer(),
  ...BoardFieldsSchema.properties,
  period: Type.Object({ start: Type.String(), end: Nullable(Type.String()) }),
  leagues: Type.Array(LeagueRecordSchema),
  rewards: Type.Array(RewardRecordSchema),
  ...antiCheatFields,
  ...TournamentFieldsSchema.properties,
});

const Meta = Type.Omit(BoardSchema, ['leagues', 'rewards']);

const LeagueItem = Type.Object({ ...LeagueRecordSchema.properties, users: Type.Integer() });

const Entries = Type.Object({
  pagination: Pagination,
  league: Type.String(),
  entries: Type.Array(
    Type.Object({
      rank: Type.Integer(),
      user_id: Type.Integer(),
      stat_value: Type.Number(),
      league: Type.String(),
      updated_at: Type.String(),
      profile: Type.Optional(Profile),
    }),
  ),
});

export const BundleSchema = Type.Object({
  meta: Nullable(Meta),
  leagues: Nullable(Type.Array(LeagueItem)),
  rewards: Nullable(Type.Array(RewardRecordSchema)),
  entries: Nullable(Entries),
  users: Nullable(UsersListSchema),
  me: Nullable(MeSchema),
});

const Standing = Type.Object({
  rank: Type.Integer(),
  user_id: Type.Integer(),
  stat_value: Type.Number(),
  league: Type.String(),
  updated_at: Type.String(),
  reward: Type.Unknown({ description: 'The reward of this final rank (free JSON), or null' }),
});

export const HistorySchema = Type.Object({
  period: Type.Object({ start: Type.String(), end: Type.String() }),
  archived_at: Type.String(),
  league: Type.String(),
  pagination: Pagination,
  standings: Type.Array(Type.Object({ ...Standing.properties, profile: Type.Optional(Profile) })),
  me: Nullable(Standing),
});

const ArchivedPeriod = Type.Object({ start: Type.String(), end: Type.String() });

export const MyHistorySchema = Type.Object({
  periods: Type.Array(
    Type.Object({
      period: ArchivedPeriod,
      rank: Type.Integer(),
      stat_value: Type.Number(),
      league: Type.String(),
      reward: Type.Unknown({ description: 'The reward of this final rank (free JSON), or null' }),
    }),
  ),
  best: Nullable(Type.Object({ rank: Type.Integer(), period: ArchivedPeriod })),
});

/** Route descriptions for the OpenAPI document. */
export const leaderboardRouteDescriptions = {
  bundle:
    'Selected sections of a leaderboard. `include` is required; every key is present and unrequested sections are null. ' +
    '`league`, `limit` (default 50 for entries, 100 for users), `offset`, `source` and `expand` apply to entries and users.',
  users:
    'One page of a league’s users by rank (source=ranked) or every assigned user (source=assigned, AT_RESET only). ' +
    'With `user_ids=3,9,12` (1 to 100 ids), only those users of the league: in rank order with their ranks in the ' +
    'full listing, those without a stat last (`rank: null`, by id); ids without an account or of another league ' +
    'are left out; `offset` is ignored and `total` is the number returned.',
  around:
    'The caller’s `me` and the window of `2 × radius + 1` consecutive ranked users around it in its league, shifted ' +
    'to stay inside the league (all of them when fewer): `{league, me, users}`. A caller without a stat gets the ' +
    'bottom `radius + 1`. A server key (`Authorization: Bearer sk_…`, client credentials optional) names the user ' +
    'with `user_id` (required: 422; an unknown user or one of another project: 404 `User not found`).',
  historyMe:
    'The caller’s final standing in each archived period where they had a stat, newest first: `{periods: [{period: ' +
    '{start, end}, rank, stat_value, league, reward}], best: {rank, period} | null}`. `reward` is null when no range ' +
    'covered the rank; `best` is the best final rank over all periods (not cut by `limit`), the newest on a tie.',
  stats:
    'Submits a stat for the caller; the board’s operator (best, latest, increment) combines it. Returns the caller’s `me`. ' +
    '403 `Leaderboard accepts server submissions only` on a board with `client_submit: false`; on a tournament ' +
    '(§18), in this order: 409 `Tournament is not open` outside `[starts_at, ends_at)`, 403 `Join the tournament ' +
    'first` when `join_required` and the caller did not join this period, 429 `Submission limit reached` past ' +
    '`max_submissions` this period (refused submissions do not count); then 422 (`loc` `["body", "value"]`) for a ' +
    'value outside the board’s `[stat_min, stat_max]`. A refused submission records nothing.',
  history:
    'Final standings of an archived (ended) period: `{period: {start, end}, archived_at, league, pagination, standings: ' +
    '[{rank, user_id, stat_value, league, updated_at, reward, profile?}], me}`. `period` picks the period by its start ' +
    '(default the latest archived one); `league` defaults to the caller’s league in that period, else the lowest; ' +
    '`reward` is the reward of that final rank (null when none); `me` is the caller’s own final standing or null. ' +
    '404 `Period not found` when there is no such archived period.',
};
