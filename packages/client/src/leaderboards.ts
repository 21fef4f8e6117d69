import type { Http } from './http.js';
import type { LeaderboardBundle, LeaderboardListOptions, LeaderboardMe, LeaderboardUsers } from './types.js';

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

  users(options: LeaderboardListOptions = {}): Promise<LeaderboardUsers> {
    return this.http.request('GET', `${this.base}/users`, { query: { ...options } });
  }

  /** Submits a stat; the board's operator combines it. Resolves to the caller's standing. */
  submit(value: number): Promise<LeaderboardMe> {
    return this.http.request('POST', `${this.base}/stats`, { body: { value } });
  }
}
