import type { AccountStore } from '../auth/account-store.js';
import type { Clock } from '../clock.js';
import { AppError, conflict, validationFailed } from '../errors.js';
import { type EventRecording, recordOf } from '../events/event-recording.js';
import { statEvents } from '../events/outbox-events.js';
import { type HookOrigin, unusableReplacement, type WriteHooks } from '../functions/before-hooks.js';
import type { BoardCache } from './board-cache.js';
import { KeyedMutex } from './keyed-mutex.js';
import { LeaderboardAdmin } from './leaderboard-admin.js';
import { checkDefinition } from './leaderboard-definition.js';
import {
  isExpired,
  type Leaderboard,
  type LeaderboardDefinition,
  type LeaderboardEntry,
  type Standing,
} from './leaderboard-model.js';
import { type BundleQuery, type HistoryQuery, LeaderboardReads, type UsersQuery } from './leaderboard-reads.js';
import type { LeaderboardResets } from './leaderboard-resets.js';
import type { EntryWriteResult, LeaderboardAdminStore, LeaderboardStore } from './leaderboard-store.js';
import type { BundleView, HistoryView, MeView, UsersView } from './leaderboard-views.js';
import type { LeagueRanks } from './league-ranks.js';
import { periodContaining } from './period-schedule.js';
import type { PlayerReads } from './player-reads.js';
import { compareRankKeys, keyOfEntry, scoreOf } from './rank-order.js';
import type { RankSync } from './rank-sync.js';
import { applySubmission, checkBounds, checkSource, type SubmissionSource, withinBounds } from './submission.js';
import {
  type BoardListView,
  boardListItem,
  checkParticipation,
  checkWindow,
  type JoinView,
  notJoined,
  submissionLimitReached,
  submissionTerms,
} from './tournament.js';
import type { SubmissionTerms } from './tournament-store.js';

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
  /** The projects' `leaderboards.stat` before hooks (§16); none by default. */
  hooks?: WriteHooks;
  /** Which projects record their events (§16); none by default. */
  recording?: EventRecording;
}

const MAX_WRITE_ATTEMPTS = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Leaderboards (§5): submissions, the reset schedule and the boards' lifecycle here; the reads
 * (bundles, listings, archived periods) in `LeaderboardReads`.
 */
export class LeaderboardService {
  private readonly writes: KeyedMutex;
  private readonly reads: LeaderboardReads;
  private stopped = false;
  private administration: LeaderboardAdmin | null = null;

  constructor(private readonly deps: LeaderboardServiceDeps) {
    this.writes = deps.writes ?? new KeyedMutex();
    this.reads = new LeaderboardReads(deps);
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
    if (board === 'taken') throw conflict(`Leaderboard '${definition.slug}' already exists`);
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
  bundle(projectId: number, userId: number, slug: string, query: BundleQuery): Promise<BundleView> {
    return this.reads.bundle(projectId, userId, slug, query);
  }

  /** One page of a league's users, or its chosen users (`user_ids`, §18). */
  users(projectId: number, userId: number, slug: string, query: UsersQuery): Promise<UsersView> {
    return this.reads.users(projectId, userId, slug, query);
  }

  /** A page of the final standings of an archived period. */
  history(projectId: number, userId: number, slug: string, query: HistoryQuery): Promise<HistoryView> {
    return this.reads.history(projectId, userId, slug, query);
  }

  /** The reads centred on one player (§18): around me, my history. */
  get players(): PlayerReads {
    return this.reads.players;
  }

  /** Every board of the project by slug, with the caller's join of each current period (§18 board list). */
  async list(projectId: number, userId: number): Promise<BoardListView> {
    const [boards, joined] = await Promise.all([
      this.deps.store.boardsOf(projectId),
      this.deps.store.joinedBoards(projectId, userId),
    ]);
    return { leaderboards: boards.map((board) => boardListItem(board, joined.has(board.id))) };
  }

  /**
   * Joins the caller to the board's current period (§18): again by a member, the same answer; a
   * full period → 409; on a board without `join_required` nothing is recorded. A period that has
   * ended is reset first, so the join is the next period's.
   */
  async join(projectId: number, userId: number, slug: string): Promise<JoinView> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const board = await this.reads.board(projectId, slug);
      const now = this.deps.clock.now();
      if (isExpired(board.period, now)) {
        await this.awaitReset(board);
        continue;
      }
      if (!board.joinRequired) return { joined: true, participants: await this.playersWithStat(board) };
      const { result, participants } = await this.deps.store.join(board.id, {
        periodStart: board.period.start,
        revision: board.revision,
        userId,
        maxParticipants: board.maxParticipants,
        at: now,
      });
      if (result === 'full') throw conflict('Tournament is full');
      if (result !== 'board_changed') return { joined: true, participants };
      this.deps.boards.forgetHere(projectId, [slug]);
    }
    throw new AppError('unavailable', 'The leaderboard is busy; try again');
  }

  /**
   * Applies a submitted value with the board's operator and returns the user's `me`. `source` says
   * who submits (a client unless told otherwise). A client's submission is checked in the order of
   * §9 and §18: server-only board (403), window (409), join (403), limit (429), bounds (422); a
   * server's (admin or server key) only against the bounds. A refused submission records nothing.
   */
  async submit(
    projectId: number,
    slug: string,
    userId: number,
    submitted: number,
    source: SubmissionSource = 'client',
    origin?: HookOrigin,
  ): Promise<MeView> {
    if (!Number.isFinite(submitted)) {
      throw validationFailed([{ loc: ['body', 'value'], msg: 'must be a finite number', type: 'value_error' }]);
    }
    const value = origin ? await this.hookedValue(projectId, slug, userId, submitted, origin) : submitted;
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const board = await this.reads.board(projectId, slug);
      const now = this.deps.clock.now();
      // Checked on every attempt: a retry follows a new revision, whose rules are the ones that apply.
      checkSource(board, source);
      const player = source === 'client';
      if (player) checkWindow(board, now);
      if (isExpired(board.period, now)) {
        await this.awaitReset(board);
        continue;
      }
      // Joins and counts are the period's: checked once the period is the current one, by the
      // write's transaction; read first only when the value is out of bounds (403 and 429 come before 422).
      const terms = player ? submissionTerms(board) : null;
      if (terms && !withinBounds(board, value)) {
        checkParticipation(board, await this.deps.store.participation(board.id, board.period.start, userId));
      }
      checkBounds(board, value);
      const outcome = await this.writes.run(`${board.id}/${userId}`, () => this.write(board, userId, value, terms));
      if (outcome === 'not_joined') throw notJoined();
      if (outcome === 'limit') throw submissionLimitReached();
      // The board moved to another period or was edited (maybe on another instance): read it afresh, not from the cache.
      if (outcome === 'board_changed') this.deps.boards.forgetHere(projectId, [slug]);
      else if (outcome !== 'conflict') return this.reads.me(board, userId, outcome);
    }
    throw new AppError('unavailable', 'The leaderboard is busy; try again');
  }

  /**
   * The value the project's `leaderboards.stat` hook submits instead (§16), once the board is known
   * to exist; the board's checks (window, join, limit, bounds) then apply to it as to any value.
   */
  private async hookedValue(projectId: number, slug: string, userId: number, value: number, origin: HookOrigin) {
    const hook = this.deps.hooks?.find(projectId, 'leaderboards.stat');
    if (!hook) return value;
    await this.reads.board(projectId, slug);
    const replacement = await hook(origin, { slug, user_id: userId, value });
    if (replacement === undefined) return value;
    if (typeof replacement !== 'number' || !Number.isFinite(replacement)) {
      throw unusableReplacement(origin, 'leaderboards.stat', 'a replacement must be a finite number');
    }
    return replacement;
  }

  /** How many players have a stat in the board's current period, over every league. */
  private async playersWithStat(board: Leaderboard): Promise<number> {
    const totals = await Promise.all(board.leagues.map((l) => this.deps.ranks.total(board, l.slug, 'ranked')));
    return totals.reduce((sum, n) => sum + n, 0);
  }

  /**
   * One attempt at a submission: the standing after it, `not_joined` or `limit` when the player's
   * `terms` refuse it (checked and counted in the write's transaction; null: none), or why to retry
   * (the board or the entry moved under it).
   */
  private async write(
    board: Leaderboard,
    userId: number,
    value: number,
    terms: SubmissionTerms | null,
  ): Promise<Standing | Exclude<EntryWriteResult, 'written'>> {
    const { store, ranks, clock } = this.deps;
    const standing = await store.standing(board.id, userId);
    const outcome = applySubmission(board, userId, standing, value, clock.now());
    const at = { periodStart: board.period.start, revision: board.revision };
    if (!outcome) {
      // Nothing to write, but a submission all the same: the terms apply and it counts against the limit.
      if (terms === null) return standing;
      const counted = await store.countSubmission(board.id, { ...at, userId, terms });
      return counted === 'counted' ? standing : counted;
    }
    const events = await this.statEvent(board, standing.entry, outcome.entry);
    const result = await store.writeEntry(board.id, {
      ...at,
      previous: standing.entry,
      next: outcome.entry,
      score: scoreOf(board.sort, outcome.entry.statValue),
      assign: outcome.assign,
      terms,
      events,
    });
    if (result !== 'written') return result;
    await ranks.moved(board, { entry: standing.entry, assigned: standing.assignedLeague }, outcome.entry);
    return { entry: outcome.entry, assignedLeague: standing.assignedLeague ?? outcome.assign };
  }

  /**
   * The `leaderboards.stat` event of a write about to commit (§16): the rank the new entry takes
   * among the league's entries as this instance holds them (the player's own earlier entry, if
   * ahead of the new one, not counted).
   */
  private async statEvent(board: Leaderboard, previous: LeaderboardEntry | null, next: LeaderboardEntry) {
    const below = (await this.deps.ranks.rankOf(board, next)) - 1;
    const ownAhead =
      previous !== null &&
      previous.league === next.league &&
      compareRankKeys(keyOfEntry(board.sort, previous), keyOfEntry(board.sort, next)) < 0;
    const now = this.deps.clock.now();
    return statEvents(board.projectId, recordOf(this.deps.recording, board.projectId), now, {
      slug: board.slug,
      user_id: next.userId,
      value: next.statValue,
      rank: below - (ownAhead ? 1 : 0) + 1,
      league: next.league,
    });
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
}
