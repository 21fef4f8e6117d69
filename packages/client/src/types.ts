/**
 * The wire types of the service, written out so the published declarations stand alone.
 * `../contract/schemas.check.ts` proves each equal to `Static<typeof Schema>` of the server's own
 * TypeBox schemas (`src/http/schemas`), so a contract change breaks the SDK's type check.
 */

/** Any JSON object (a document's `data`). */
export type JsonObject = Record<string, unknown>;

/** A user's public profile: AuthResponse's `user` (§1). */
export interface AuthUser {
  id: number;
  username: string;
  nickname: string;
  avatar_url: string | null;
}

/** The §1 `AuthResponse`. */
export interface AuthResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
  user: AuthUser;
}

/** `GET /auth/me`. */
export interface Me extends AuthUser {
  roles: string[];
  permissions: string[];
}

export interface SignUpInput {
  username: string;
  password: string;
  nickname?: string;
}

export interface LogInInput {
  username: string;
  password: string;
}

export interface ProfileInput {
  nickname?: string;
  avatar_url?: string | null;
}

/** A document as list and query return it (§2). */
export interface Document {
  id: string;
  path: string;
  data: JsonObject;
}

/** `GET /documents/docs/{path}`. */
export interface DocumentWithCollections extends Document {
  collections: string[];
}

/** `PUT` and `POST` answers. */
export interface DocumentWithCreated extends Document {
  created: boolean;
}

/** The §0 error body; 422 carries a list of problems. */
export interface ErrorBody {
  detail: string | { loc: (string | number)[]; msg: string; type: string }[];
}

export interface Pagination {
  limit: number;
  offset: number;
  total: number;
  has_more: boolean;
}

export interface LeaderboardProfile {
  nickname: string;
  avatar_url: string | null;
}

/** `leaderboard(slug).join()` (§18): joined, with how many joined the period (players with a stat where no join is required). */
export interface LeaderboardJoin {
  joined: true;
  participants: number;
}

/** One board of `leaderboards.list()` (§18), for the caller. */
export interface LeaderboardListItem {
  slug: string;
  name: string;
  type: 'CONTINUOUS' | 'AT_RESET';
  sort: 'asc' | 'desc';
  reset: 'none' | 'daily' | 'weekly' | 'monthly';
  period: { start: string; end: string | null };
  /** When the current period ends; null for `reset: 'none'`. */
  next_reset_at: string | null;
  join_required: boolean;
  /** The caller joined the current period; false where no join is required. */
  joined: boolean;
}

/** `GET /leaderboards`: every board of the project, by slug. */
export interface LeaderboardList {
  leaderboards: LeaderboardListItem[];
}

/** The caller's standing on a board (§5 `me`). */
export interface LeaderboardMe {
  leaderboard_id: number;
  leaderboard_slug: string;
  leaderboard_name: string;
  user_id: number;
  rank: number | null;
  stat_value: number | null;
  league: string;
  expired: boolean;
}

export interface LeaderboardUser {
  rank: number | null;
  user_id: number;
  stat_value: number | null;
  league: string;
  profile?: LeaderboardProfile;
}

/** `GET /leaderboards/{slug}/users`. */
export interface LeaderboardUsers {
  pagination: Pagination;
  league: string;
  users: LeaderboardUser[];
}

export interface LeaderboardMeta {
  id: number;
  slug: string;
  name: string;
  description: string;
  type: 'CONTINUOUS' | 'AT_RESET';
  sort: 'asc' | 'desc';
  operator: 'best' | 'latest' | 'increment';
  reset: 'none' | 'daily' | 'weekly' | 'monthly';
  period: { start: string; end: string | null };
  client_submit: boolean;
  stat_min: number | null;
  stat_max: number | null;
  /** Tournaments (§18): players join each period before they submit. */
  join_required: boolean;
  /** How many players may join a period; null: no limit. */
  max_participants: number | null;
  /** How many submissions of a player count per period; null: no limit. */
  max_submissions: number | null;
  /** When players' submissions open (ISO 8601); null: always open. */
  starts_at: string | null;
  /** When players' submissions close (ISO 8601, exclusive); null: never. */
  ends_at: string | null;
}

export interface LeaderboardLeague {
  slug: string;
  name: string;
  order: number;
  min_stat: number | null;
  promote_top: number | null;
  demote_bottom: number | null;
  users: number;
}

export interface LeaderboardReward {
  league: string;
  rank_from: number;
  rank_to: number;
  reward: unknown;
}

export interface LeaderboardEntry {
  rank: number;
  user_id: number;
  stat_value: number;
  league: string;
  updated_at: string;
  profile?: LeaderboardProfile;
}

export interface LeaderboardEntries {
  pagination: Pagination;
  league: string;
  entries: LeaderboardEntry[];
}

/** `GET /leaderboards/{slug}/bundle`: every key present, unrequested sections null. */
export interface LeaderboardBundle {
  meta: LeaderboardMeta | null;
  leagues: LeaderboardLeague[] | null;
  rewards: LeaderboardReward[] | null;
  entries: LeaderboardEntries | null;
  users: LeaderboardUsers | null;
  me: LeaderboardMe | null;
}

/** The options of the users list and the bundle (§5 `UsersQuery`). */
export interface LeaderboardListOptions {
  league?: string;
  limit?: number;
  offset?: number;
  source?: 'ranked' | 'assigned';
  expand?: 'profile';
}

/** The options of `users`: a listing, or (§18) only the chosen users of its league, `userIds` (1 to 100). */
export interface LeaderboardUsersOptions extends LeaderboardListOptions {
  userIds?: number[];
}

/** The users route's query on the wire (§5, §18 `UsersQuery`): `user_ids` comma-separated. */
export interface LeaderboardUsersQuery extends LeaderboardListOptions {
  user_ids?: string;
}

/** The options of `around` (§18): ranked users shown on each side of the caller (1 to 50, default 5). */
export interface LeaderboardAroundOptions {
  radius?: number;
  expand?: 'profile';
}

/** The around route's query on the wire (§18 `AroundQuery`); `user_id` is for server keys, which the SDK does not use. */
export interface LeaderboardAroundQuery extends LeaderboardAroundOptions {
  user_id?: number;
}

/** `GET /leaderboards/{slug}/around` (§18): the caller's `me` and the ranked users around it in its league. */
export interface LeaderboardAround {
  league: string;
  me: LeaderboardMe;
  users: LeaderboardUser[];
}

/** The options of `myHistory` (§18 `MyHistoryQuery`): periods returned, newest first (1 to 100, default 20). */
export interface LeaderboardHistoryOptions {
  limit?: number;
}

/** An archived period. */
export interface LeaderboardArchivedPeriod {
  start: string;
  end: string;
}

/** `GET /leaderboards/{slug}/history/me` (§18): the caller's final standings, newest first, and their best. */
export interface LeaderboardMyHistory {
  periods: {
    period: LeaderboardArchivedPeriod;
    rank: number;
    stat_value: number;
    league: string;
    reward: unknown;
  }[];
  best: { rank: number; period: LeaderboardArchivedPeriod } | null;
}

/** A write of a §11 batch (`POST /documents/batch`). */
export interface BatchWrite {
  op: 'put' | 'create' | 'patch' | 'delete';
  path: string;
  data?: JsonObject;
  transforms?: Record<string, unknown>;
  if_match?: number | string;
  if_absent?: boolean;
}

/** The answer of a §11 batch: one result per write, every `version` the batch's. */
export interface BatchResult {
  version: number;
  results: ({ id: string; path: string; version: number; created?: boolean } | { deleted: string })[];
}

/**
 * §17 `on_disconnect`: a write the server runs when this connection ends, or the `cancel` of those
 * at or below `path` (`id`: the SDK names these messages `o1`, `o2`…, as its own presence writes).
 */
export interface OnDisconnectMessage {
  action: 'on_disconnect';
  op: 'set' | 'patch' | 'delete' | 'cancel';
  path: string;
  value?: unknown;
  id?: string | number;
}

/** A §10 `listen` for one document (`id`: the SDK names listeners `l1`, `l2`…). */
export interface ListenDocumentMessage {
  action: 'listen';
  id: string | number;
  doc: string;
  since?: number;
}

/** A §10 `listen` for a query: what `GET /documents/query/{collection}` returns with these parameters. */
export interface ListenQueryMessage {
  action: 'listen';
  id: string | number;
  collection: string;
  parent_path?: string;
  where?: string[];
  order_by?: string;
  limit?: number;
  since?: number;
}

/** One change of a `changes` message (for `removed`, `document` is `{id, path}`). */
export interface ListenerChangeWire {
  type: 'added' | 'modified' | 'removed';
  document: Document | { id: string; path: string };
}

/** `snapshot`: a listener's result at `version`, in query order. */
export interface SnapshotEvent {
  event: 'snapshot';
  id: string | number;
  version: number;
  documents: Document[];
}

/** `changes`: what one commit changed in a listener's result (removed, added, modified). */
export interface ChangesEvent {
  event: 'changes';
  id: string | number;
  version: number;
  changes: ListenerChangeWire[];
}
