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
