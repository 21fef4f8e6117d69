import { randomUUID } from 'node:crypto';
import type { AccountStore } from '../auth/account-store.js';
import type { Bus } from '../bus.js';
import type { Clock } from '../clock.js';
import { AppError, badRequest, notFound, validationFailed } from '../errors.js';
import { BoardCache } from './board-cache.js';
import { KeyedMutex } from './keyed-mutex.js';
import { LeaderboardAdmin } from './leaderboard-admin.js';
import { checkDefinition } from './leaderboard-definition.js';
import {
  findLeague,
  isExpired,
  type Leaderboard,
  type LeaderboardDefinition,
  lowestLeague,
  type Standing,
} from './leaderboard-model.js';
import { LeaderboardResets } from './leaderboard-resets.js';
import type { LeaderboardAdminStore, LeaderboardStore } from './leaderboard-store.js';
import {
  type BundleView,
  type EntriesView,
  type HistoryView,
  leagueView,
  type MeView,
  metaView,
  type ProfileView,
  paginationView,
  rewardView,
  type UsersView,
} from './leaderboard-views.js';
import { LeagueRanks, type ListingSource } from './league-ranks.js';
import { MemoryRankCache } from './memory-rank-cache.js';
import { isoTime, periodContaining } from './period-schedule.js';
import type { RankCache } from './rank-cache.js';
import { isUnranked, scoreOf, statOf } from './rank-order.js';
import { RankSync } from './rank-sync.js';
import { applySubmission, checkSubmission, type SubmissionSource } from './submission.js';

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

/** What the leaderboard service needs. */
export interface LeaderboardServiceDeps {
  store: LeaderboardStore;
  /** The boards as requests read them (the store's, cached in process). */
  boards: BoardCache;
  profiles: Pick<AccountStore, 'profilesOf'>;
  ranks: LeagueRanks;
  resets: LeaderboardResets;
  clock: Clock;
  /** How long a submission waits for another instance's reset of the board before giving up (503). */
  resetWaitMs?: number;
  /** The admin API's board edits (§6); the admin methods throw without it. */
  admin?: LeaderboardAdminStore;
  /** Serializes the writes of one (board, user); shared with `sync`, which must not interleave with them. */
  writes?: KeyedMutex;
  /** Keeps the rank caches of several instances coherent (absent with one instance). */
  sync?: RankSync;
}

const DEFAULT_ENTRIES_LIMIT = 50;
const DEFAULT_USERS_LIMIT = 100;
const MAX_WRITE_ATTEMPTS = 8;
const BOARD_NOT_FOUND = 'Leaderboard not found';

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Leaderboards (§5): reads with ranks from the rank cache, submissions, and archived periods. */
export class LeaderboardService {
  private readonly writes: KeyedMutex;
  private stopped = false;
  private administration: LeaderboardAdmin | null = null;

  constructor(private readonly deps: LeaderboardServiceDeps) {
    this.writes = deps.writes ?? new KeyedMutex();
  }

  /** Starts following the other instances' board changes and rank moves (before `warm`, so no move falls between). */
  async listen(): Promise<void> {
    await this.deps.boards.listen();
    await this.deps.sync?.listen();
  }

  /** Loads the ranks of every board's current period from the database (at start; requests meanwhile wait for their bucket). */
  async warm(): Promise<void> {
    const boards = await this.deps.store.listAll();
    await this.deps.ranks.warm(boards, () => this.stopped);
  }

  /** Starts the reset schedule: due boards are checked every `intervalMs` (0: never, tests call `runDueResets`). */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    this.stopped = false;
    this.deps.resets.start(intervalMs, onError);
  }

  /** Stops the schedule, any warm-up in progress, and following other instances. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.deps.resets.stop();
    await this.deps.boards.close();
    await this.deps.sync?.close();
  }

  /** Resets every board whose period has ended (what the schedule runs); returns how many this instance reset. */
  runDueResets(): Promise<number> {
    return this.deps.resets.runDue();
  }

  /** Creates a board (admin API, tests); its first period is the one containing now. */
  async create(projectId: number, definition: LeaderboardDefinition): Promise<Leaderboard> {
    checkDefinition(definition);
    const board = await this.deps.store.create(
      projectId,
      definition,
      periodContaining(definition.reset, this.deps.clock.now()),
    );
    await this.deps.boards.changed(projectId, [board.slug]);
    return board;
  }

  /** Tells every instance that these boards were replaced behind the service's back (§8 import). */
  boardsChanged(projectId: number, slugs: readonly string[]): Promise<void> {
    return this.deps.boards.changed(projectId, slugs);
  }

  /** The admin API's listing, editing and resetting of boards (§6); throws when built without its store. */
  get admin(): LeaderboardAdmin {
    if (!this.deps.admin) throw new Error('The leaderboard service was built without its admin store');
    this.administration ??= new LeaderboardAdmin({
      store: this.deps.store,
      admin: this.deps.admin,
      boards: this.deps.boards,
      resets: this.deps.resets,
    });
    return this.administration;
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
      rewards: sections.has('rewards') ? board.rewards.map(rewardView) : null,
      entries: sections.has('entries') ? await this.entries(board, league, query) : null,
      users: sections.has('users') ? await this.listing(board, league, query) : null,
      me: sections.has('me') && standing ? await this.me(board, userId, standing) : null,
    };
  }

  /** One page of a league's users. */
  async users(projectId: number, userId: number, slug: string, query: ListingQuery): Promise<UsersView> {
    const board = await this.board(projectId, slug);
    this.checkSource(board, query.source);
    const standing = callerLeagueVaries(board, query) ? await this.deps.store.standing(board.id, userId) : null;
    return this.listing(board, this.listingLeague(board, query.league, standing), query);
  }

  /**
   * Applies a submitted value with the board's operator and returns the user's `me`. `source` says
   * who submits (a client unless told otherwise), for the board's anti-cheat rules.
   */
  async submit(
    projectId: number,
    slug: string,
    userId: number,
    value: number,
    source: SubmissionSource = 'client',
  ): Promise<MeView> {
    if (!Number.isFinite(value)) {
      throw validationFailed([{ loc: ['body', 'value'], msg: 'must be a finite number', type: 'value_error' }]);
    }
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const board = await this.board(projectId, slug);
      // Checked on every attempt: a retry follows a new revision, whose rules are the ones that apply.
      checkSubmission(board, value, source);
      if (isExpired(board.period, this.deps.clock.now())) {
        await this.awaitReset(board);
        continue;
      }
      const outcome = await this.writes.run(`${board.id}/${userId}`, () => this.write(board, userId, value));
      // The board moved to another period or was edited (maybe on another instance): read it afresh, not from the cache.
      if (outcome === 'board_changed') this.deps.boards.forgetHere(projectId, [slug]);
      else if (outcome !== 'conflict') return this.me(board, userId, outcome);
    }
    throw new AppError('unavailable', 'The leaderboard is busy; try again');
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

  /** The board of that slug; 404 otherwise. */
  private async board(projectId: number, slug: string): Promise<Leaderboard> {
    const board = await this.deps.boards.get(projectId, slug);
    if (!board) throw notFound(BOARD_NOT_FOUND);
    return board;
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
    return {
      pagination,
      league,
      users: keys.map((key, i) => ({
        rank: isUnranked(key) ? null : offset + i + 1,
        user_id: key.userId,
        stat_value: isUnranked(key) ? null : statOf(board.sort, key.score),
        league,
        ...(profiles ? { profile: profileOf(profiles, key.userId) } : {}),
      })),
    };
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

  private async me(board: Leaderboard, userId: number, standing: Standing): Promise<MeView> {
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

  /** One attempt at a submission: the standing after it, or why to retry (the board or the entry moved under it). */
  private async write(
    board: Leaderboard,
    userId: number,
    value: number,
  ): Promise<Standing | 'board_changed' | 'conflict'> {
    const { store, ranks, clock } = this.deps;
    const standing = await store.standing(board.id, userId);
    const outcome = applySubmission(board, userId, standing, value, clock.now());
    if (!outcome) return standing;
    const result = await store.writeEntry(board.id, {
      periodStart: board.period.start,
      revision: board.revision,
      previous: standing.entry,
      next: outcome.entry,
      score: scoreOf(board.sort, outcome.entry.statValue),
      assign: outcome.assign,
    });
    if (result !== 'written') return result;
    await ranks.moved(board, { entry: standing.entry, assigned: standing.assignedLeague }, outcome.entry);
    return { entry: outcome.entry, assignedLeague: standing.assignedLeague ?? outcome.assign };
  }

  /** Runs the due reset of a board, or waits for the instance that holds its lease (503 after `resetWaitMs`). */
  private async awaitReset(board: Leaderboard): Promise<void> {
    if (await this.deps.resets.resetBoard(board)) return;
    // A wait in real time (a monotonic timer), not a reading of the service's clock: a test's
    // stopped clock must not make it wait for ever.
    const deadline = performance.now() + (this.deps.resetWaitMs ?? 10_000);
    while (performance.now() < deadline) {
      const current = await this.deps.store.get(board.projectId, board.slug);
      if (!current || current.period.start !== board.period.start) return;
      if (await this.deps.resets.resetBoard(current)) return;
      await sleep(50);
    }
    throw new AppError('unavailable', 'The leaderboard is being reset; try again shortly');
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
function callerLeague(board: Leaderboard, standing: Standing | null): string {
  return standing?.entry?.league ?? standing?.assignedLeague ?? lowestLeague(board).slug;
}

function profileOf(profiles: Map<number, { nickname: string; avatarUrl: string | null }>, userId: number): ProfileView {
  const profile = profiles.get(userId);
  return { nickname: profile?.nickname ?? '', avatar_url: profile?.avatarUrl ?? null };
}

/** What `createLeaderboards` wires together. */
export interface LeaderboardsOptions {
  store: LeaderboardStore;
  profiles: Pick<AccountStore, 'profilesOf'>;
  clock: Clock;
  /** Defaults to ranks held in this process. */
  cache?: RankCache;
  /** This instance's name in reset leases; random by default. */
  owner?: string;
  /** Reset lease length; default 5 minutes. */
  leaseMs?: number;
  /** The admin API's board edits (§6). */
  admin?: LeaderboardAdminStore;
  /** The bus shared with other instances: rank moves (`RankSync`) and board changes (`BoardCache`) travel on it. */
  peers?: Bus;
  /** Told when following another instance's move, or announcing a board change, fails. */
  onSyncError?: (error: unknown) => void;
  /** How long a board definition is served from the process's cache at most; default 5 s. */
  boardMaxAgeMs?: number;
}

/** Builds the leaderboard service with its rank cache and reset runner. */
export function createLeaderboards(options: LeaderboardsOptions): LeaderboardService {
  const cache = options.cache ?? new MemoryRankCache();
  const owner = options.owner ?? `cds-${randomUUID()}`;
  const onSyncError = options.onSyncError ?? (() => undefined);
  const boards = new BoardCache({
    store: options.store,
    clock: options.clock,
    origin: owner,
    onError: onSyncError,
    ...(options.peers ? { bus: options.peers } : {}),
    ...(options.boardMaxAgeMs !== undefined ? { maxAgeMs: options.boardMaxAgeMs } : {}),
  });
  const resets = new LeaderboardResets({
    store: options.store,
    boards,
    cache,
    clock: options.clock,
    owner,
    leaseMs: options.leaseMs ?? 5 * 60_000,
  });
  const writes = new KeyedMutex();
  const sync = options.peers
    ? new RankSync({
        bus: options.peers,
        store: options.store,
        cache,
        writes,
        origin: owner,
        onError: onSyncError,
      })
    : undefined;
  return new LeaderboardService({
    store: options.store,
    boards,
    profiles: options.profiles,
    ranks: new LeagueRanks(options.store, cache, sync),
    resets,
    clock: options.clock,
    writes,
    ...(sync ? { sync } : {}),
    ...(options.admin ? { admin: options.admin } : {}),
  });
}
