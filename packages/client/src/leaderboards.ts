import type { Http } from './http.js';
import type {
  LeaderboardAround,
  LeaderboardAroundOptions,
  LeaderboardBundle,
  LeaderboardHistoryOptions,
  LeaderboardJoin,
  LeaderboardList,
  LeaderboardListOptions,
  LeaderboardMe,
  LeaderboardMyHistory,
  LeaderboardUsers,
  LeaderboardUsersOptions,
  LeaderboardUsersQuery,
} from './types.js';

/** A section of a §5 bundle. */
export type BundleSection = 'meta' | 'leagues' | 'rewards' | 'entries' | 'users' | 'me';

/** `leaderboard(slug)`: reads and the caller's submissions. */
export class LeaderboardRef {
  constructor(
    private readonly http: Http,
    readonly slug: string,
  ) {}

  private get base(): string {
    return `/leaderboards/${encodeURIComponent(this.slug)}`;
  }

  /** The requested sections; the others are null. */
  bundle(include: BundleSection | BundleSection[], options: LeaderboardListOptions = {}): Promise<LeaderboardBundle> {
    const sections = Array.isArray(include) ? include.join(',') : include;
    return this.http.request('GET', `${this.base}/bundle`, { query: { include: sections, ...options } });
  }

  /** One page of a league's users; with `userIds`, only those users of the league, by rank (§18). */
  users(options: LeaderboardUsersOptions = {}): Promise<LeaderboardUsers> {
    const { userIds, ...listing } = options;
    const query: LeaderboardUsersQuery = userIds === undefined ? listing : { ...listing, user_ids: userIds.join(',') };
    return this.http.request('GET', `${this.base}/users`, { query: { ...query } });
  }

  /** The caller's standing and the ranked users around it in its league (§18). */
  around(options: LeaderboardAroundOptions = {}): Promise<LeaderboardAround> {
    return this.http.request('GET', `${this.base}/around`, { query: { ...options } });
  }

  /** The caller's final standings in the board's archived periods, newest first, and their best rank (§18). */
  myHistory(options: LeaderboardHistoryOptions = {}): Promise<LeaderboardMyHistory> {
    return this.http.request('GET', `${this.base}/history/me`, { query: { ...options } });
  }

  /**
   * Joins the current period of a tournament (§18): the same answer for a member; `CdsError` 409
   * `Tournament is full`. Boards with `join_required` refuse the submissions of players who did not join.
   */
  join(): Promise<LeaderboardJoin> {
    return this.http.request('POST', `${this.base}/join`);
  }

  /** Submits a stat; the board's operator combines it. Resolves to the caller's standing. */
  submit(value: number): Promise<LeaderboardMe> {
    return this.http.request('POST', `${this.base}/stats`, { body: { value } });
  }
}

/** `leaderboards`: the project's boards (§18). */
export class Leaderboards {
  constructor(private readonly http: Http) {}

  /** Every board of the project by slug, with its current period and whether the caller joined it. */
  list(): Promise<LeaderboardList> {
    return this.http.request('GET', '/leaderboards');
  }
}
