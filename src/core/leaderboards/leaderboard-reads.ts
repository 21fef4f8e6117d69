import type { AccountStore } from '../auth/account-store.js';
import type { Clock } from '../clock.js';
import { badRequest, notFound, validationFailed } from '../errors.js';
import type { BoardCache } from './board-cache.js';
import { rewardRecord } from './board-record.js';
import { findLeague, isExpired, type Leaderboard, lowestLeague, type Standing } from './leaderboard-model.js';
import type { LeaderboardStore } from './leaderboard-store.js';
import {
  type BundleView,
  type EntriesView,
  type HistoryView,
  leagueView,
  type MeView,
  metaView,
  paginationView,
  profileOf,
  type UsersView,
  userItems,
} from './leaderboard-views.js';
import type { LeagueRanks, ListingSource } from './league-ranks.js';
import { isoTime } from './period-schedule.js';
import { type ChosenUser, chosenUserIds, compareChosen, PlayerReads } from './player-reads.js';
import { statOf } from './rank-order.js';

/** A chosen user of the listed league: their stat, if any, and rank. */
interface Chosen extends ChosenUser {
  stat: number | null;
}

/** The bundle's section names, in the order of the §5 messages. */
export const BUNDLE_SECTIONS = ['meta', 'leagues', 'rewards', 'entries', 'users', 'me'] as const;
/** One bundle section. */
export type BundleSection = (typeof BUNDLE_SECTIONS)[number];

/** Parameters of the users listing (and the bundle's `entries` and `users` sections). */
export interface ListingQuery {
  league?: string;
  limit?: number;
  offset?: number;
  source?: ListingSource;
  expand?: 'profile';
}

/** Parameters of the users route: a listing, or (§18 `user_ids=3,9,12`) only the chosen users of its league. */
export interface UsersQuery extends ListingQuery {
  user_ids?: string;
}

/** Parameters of the bundle: `include` as given (repeated and/or comma-separated). */
export interface BundleQuery extends ListingQuery {
  include?: readonly string[];
}

/** Parameters of the history route. */
export interface HistoryQuery {
  /** The start of an archived period (ISO 8601); the latest when absent. */
  period?: string;
  league?: string;
  limit?: number;
  offset?: number;
  expand?: 'profile';
}

/** What the reads need. */
export interface LeaderboardReadsDeps {
  store: LeaderboardStore;
  boards: BoardCache;
  profiles: Pick<AccountStore, 'profilesOf'>;
  ranks: LeagueRanks;
  clock: Clock;
}

const DEFAULT_ENTRIES_LIMIT = 50;
const DEFAULT_USERS_LIMIT = 100;

/** Parses `include`: at least one known section (400 otherwise, with the §5 messages). */
export function parseInclude(values: readonly string[] | undefined): Set<BundleSection> {
  const items = (values ?? [])
    .flatMap((value) => value.split(','))
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) throw badRequest(`include must name at least one of: ${BUNDLE_SECTIONS.join(', ')}`);
  const sections = new Set<BundleSection>();
  for (const item of items) {
    if (!(BUNDLE_SECTIONS as readonly string[]).includes(item)) throw badRequest(`Unknown include value '${item}'`);
    sections.add(item as BundleSection);
  }
  return sections;
}

/** The reads of leaderboards (§5): bundles and listings ranked from the rank cache, and archived periods. */
export class LeaderboardReads {
  /** The reads centred on one player (§18): around me, my history. */
  readonly players: PlayerReads;

  constructor(private readonly deps: LeaderboardReadsDeps) {
    this.players = new PlayerReads(deps, this);
  }

  /** The board of that slug; 404 otherwise. */
  async board(projectId: number, slug: string): Promise<Leaderboard> {
    const board = await this.deps.boards.get(projectId, slug);
    if (!board) throw notFound('Leaderboard not found');
    return board;
  }

  /** The sections of a board named by `include`. */
  async bundle(projectId: number, userId: number, slug: string, query: BundleQuery): Promise<BundleView> {
    const sections = parseInclude(query.include);
    const board = await this.board(projectId, slug);
    this.checkSource(board, query.source);
    const needsStanding =
      sections.has('me') || ((sections.has('entries') || sections.has('users')) && callerLeagueVaries(board, query));
    const standing = needsStanding ? await this.deps.store.standing(board.id, userId) : null;
    const league = this.listingLeague(board, query.league, standing);
    return {
      meta: sections.has('meta') ? metaView(board) : null,
      leagues: sections.has('leagues') ? await this.leagues(board) : null,
      rewards: sections.has('rewards') ? board.rewards.map(rewardRecord) : null,
      entries: sections.has('entries') ? await this.entries(board, league, query) : null,
      users: sections.has('users') ? await this.listing(board, league, query) : null,
      me: sections.has('me') && standing ? await this.me(board, userId, standing) : null,
    };
  }

  /** One page of a league's users, or the chosen users of the league when `user_ids` names them. */
  async users(projectId: number, userId: number, slug: string, query: UsersQuery): Promise<UsersView> {
    const board = await this.board(projectId, slug);
    this.checkSource(board, query.source);
    const standing = callerLeagueVaries(board, query) ? await this.deps.store.standing(board.id, userId) : null;
    const league = this.listingLeague(board, query.league, standing);
    if (query.user_ids !== undefined) return this.chosen(board, league, chosenUserIds(query.user_ids), query);
    return this.listing(board, league, query);
  }

  /** A page of the final standings of an archived period. */
  async history(projectId: number, userId: number, slug: string, query: HistoryQuery): Promise<HistoryView> {
    const board = await this.board(projectId, slug);
    const start = query.period === undefined ? null : Date.parse(query.period);
    if (start !== null && Number.isNaN(start)) {
      throw validationFailed([{ loc: ['query', 'period'], msg: 'must be an ISO 8601 timestamp', type: 'format' }]);
    }
    const period = await this.deps.store.archivedPeriod(board.id, start);
    if (!period) throw notFound('Period not found');
    const mine = await this.deps.store.archivedStandingOf(board.id, period.start, userId);
    const league = query.league ?? mine?.league ?? lowestLeague(board).slug;
    if (query.league && !findLeague(board, query.league)) throw notFound('League not found');
    const limit = query.limit ?? DEFAULT_USERS_LIMIT;
    const offset = query.offset ?? 0;
    const total = await this.deps.store.archivedCount(board.id, period.start, league);
    const rows = await this.deps.store.archivedStandings(board.id, period.start, league, offset, limit);
    const profiles =
      query.expand === 'profile'
        ? await this.profiles(
            projectId,
            rows.map((r) => r.userId),
          )
        : null;
    const view = (r: (typeof rows)[number]) => ({
      rank: r.rank,
      user_id: r.userId,
      stat_value: r.statValue,
      league: r.league,
      updated_at: isoTime(r.updatedAt),
      reward: r.reward,
    });
    return {
      period: { start: isoTime(period.start), end: isoTime(period.end) },
      archived_at: isoTime(period.archivedAt),
      league,
      pagination: paginationView(limit, offset, total, rows.length),
      standings: rows.map((r) => ({ ...view(r), ...(profiles ? { profile: profileOf(profiles, r.userId) } : {}) })),
      me: mine ? view(mine) : null,
    };
  }

  private checkSource(board: Leaderboard, source: ListingSource | undefined): void {
    if (source === 'assigned' && board.type !== 'AT_RESET') {
      throw badRequest('source=assigned is only allowed for AT_RESET leaderboards');
    }
  }

  /** The league a listing shows: the one asked for (404 when unknown), else the caller's, else the lowest. */
  private listingLeague(board: Leaderboard, asked: string | undefined, standing: Standing | null): string {
    if (asked !== undefined) {
      if (!findLeague(board, asked)) throw notFound('League not found');
      return asked;
    }
    return callerLeague(board, standing);
  }

  private async leagues(board: Leaderboard) {
    const source: ListingSource = board.type === 'AT_RESET' ? 'assigned' : 'ranked';
    return Promise.all(
      board.leagues.map(async (l) => leagueView(l, await this.deps.ranks.total(board, l.slug, source))),
    );
  }

  /** One page of a league's keys, ranked from `offset`, with the users' profiles when asked. */
  private async page(board: Leaderboard, league: string, source: ListingSource, query: ListingQuery, limit: number) {
    const offset = query.offset ?? 0;
    const total = await this.deps.ranks.total(board, league, source);
    const keys = await this.deps.ranks.page(board, league, offset, limit, total);
    const userIds = keys.map((k) => k.userId);
    const profiles = query.expand === 'profile' ? await this.profiles(board.projectId, userIds) : null;
    return { offset, keys, profiles, pagination: paginationView(limit, offset, total, keys.length) };
  }

  private async listing(board: Leaderboard, league: string, query: ListingQuery): Promise<UsersView> {
    const limit = query.limit ?? DEFAULT_USERS_LIMIT;
    const { offset, keys, profiles, pagination } = await this.page(
      board,
      league,
      query.source ?? 'ranked',
      query,
      limit,
    );
    return { pagination, league, users: userItems(board.sort, league, keys, offset, profiles) };
  }

  /**
   * The chosen users of the league, as the listing shows them (§18), in O(k log n): those the
   * league's ranks hold come from there, as a listing's page does; only the others are read from
   * the database (one statement: their entries, and assignments on AT_RESET boards, the only ones
   * that have any). Accounts are read for users without a stat (an entry on the board is a user
   * of its project already) or, with `expand=profile`, for every member.
   */
  private async chosen(board: Leaderboard, league: string, ids: number[], query: ListingQuery): Promise<UsersView> {
    const limit = query.limit ?? DEFAULT_USERS_LIMIT;
    const held = ids.length === 0 ? [] : await this.deps.ranks.held(board, league, ids);
    const candidates: Chosen[] = [];
    const others: number[] = [];
    ids.forEach((userId, i) => {
      const user = held[i];
      if (!user) others.push(userId);
      else
        candidates.push({
          userId,
          rank: user.rank,
          stat: user.rank === null ? null : statOf(board.sort, user.key.score),
        });
    });
    candidates.push(...(await this.storedInLeague(board, league, others)));
    const withProfile = query.expand === 'profile';
    const unverified = candidates.filter((c) => withProfile || c.stat === null).map((c) => c.userId);
    const accounts = await this.profiles(board.projectId, unverified);
    const members = candidates.filter((c) => accounts.has(c.userId) || (c.stat !== null && !withProfile));
    const shown = members.sort(compareChosen).slice(0, limit);
    return {
      pagination: paginationView(limit, 0, shown.length, shown.length),
      league,
      users: shown.map(({ userId, stat, rank }) => ({
        rank,
        user_id: userId,
        stat_value: stat,
        league,
        ...(withProfile ? { profile: profileOf(accounts, userId) } : {}),
      })),
    };
  }

  /**
   * Chosen users the league's ranks do not hold, by their stored standing: those in the league
   * (an entry the ranks have not applied yet, or none at all in the lowest league), ranked.
   */
  private async storedInLeague(board: Leaderboard, league: string, ids: number[]): Promise<Chosen[]> {
    if (ids.length === 0) return [];
    const standings = await this.deps.store.standingsOf(board.id, ids, board.type === 'AT_RESET');
    const inLeague = ids.filter((id) => callerLeague(board, standings.get(id) ?? null) === league);
    const entries = inLeague.flatMap((id) => standings.get(id)?.entry ?? []);
    const ranks = entries.length === 0 ? [] : await this.deps.ranks.ranksOf(board, league, entries);
    const ranked = new Map(
      entries.map((entry, i) => [entry.userId, { stat: entry.statValue, rank: ranks[i] ?? null }]),
    );
    return inLeague.map((userId) => ({ userId, stat: null, rank: null, ...ranked.get(userId) }));
  }

  private async entries(board: Leaderboard, league: string, query: ListingQuery): Promise<EntriesView> {
    const limit = query.limit ?? DEFAULT_ENTRIES_LIMIT;
    const { offset, keys, profiles, pagination } = await this.page(board, league, 'ranked', query, limit);
    return {
      pagination,
      league,
      entries: keys.map((key, i) => ({
        rank: offset + i + 1,
        user_id: key.userId,
        stat_value: statOf(board.sort, key.score),
        league,
        updated_at: isoTime(key.updatedAt),
        ...(profiles ? { profile: profileOf(profiles, key.userId) } : {}),
      })),
    };
  }

  /** The user's standing on the board, as `me` shows it. */
  async me(board: Leaderboard, userId: number, standing: Standing): Promise<MeView> {
    const entry = standing.entry;
    return {
      leaderboard_id: board.id,
      leaderboard_slug: board.slug,
      leaderboard_name: board.name,
      user_id: userId,
      rank: entry ? await this.deps.ranks.rankOf(board, entry) : null,
      stat_value: entry ? entry.statValue : null,
      league: callerLeague(board, standing),
      expired: isExpired(board.period, this.deps.clock.now()),
    };
  }

  private profiles(projectId: number, userIds: number[]) {
    return userIds.length === 0 ? Promise.resolve(new Map()) : this.deps.profiles.profilesOf(projectId, userIds);
  }
}

/**
 * Whether the league a listing shows depends on the caller's standing: not when the query names
 * one, nor on a board of one league (every entry and assignment is in it), where no read is needed.
 */
function callerLeagueVaries(board: Leaderboard, query: ListingQuery): boolean {
  return query.league === undefined && board.leagues.length > 1;
}

/** The caller's league: of their entry, else their assignment, else the lowest. */
export function callerLeague(board: Leaderboard, standing: Standing | null): string {
  return standing?.entry?.league ?? standing?.assignedLeague ?? lowestLeague(board).slug;
}
