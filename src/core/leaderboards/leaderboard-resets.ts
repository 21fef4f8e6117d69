import type { Clock } from '../clock.js';
import { type EventRecording, recordOf } from '../events/event-recording.js';
import { resetEvents } from '../events/outbox-events.js';
import type { BoardCache } from './board-cache.js';
import { isExpired, type Leaderboard, type Period } from './leaderboard-model.js';
import type { LeaderboardAdminStore, LeaderboardStore } from './leaderboard-store.js';
import { resetRewrite } from './listing-rewrite.js';
import { nextPeriod, periodContaining } from './period-schedule.js';
import type { RankCache } from './rank-cache.js';

/** What the reset runner needs. */
export interface LeaderboardResetsDeps {
  store: LeaderboardStore;
  /** Told of every reset, so that no instance serves the ended period from its board cache. */
  boards: Pick<BoardCache, 'changed'>;
  cache: RankCache;
  clock: Clock;
  /** This instance's name in the lease column. */
  owner: string;
  /** How long a lease lasts: an instance that dies mid-reset is replaced after this. */
  leaseMs: number;
  /** Which projects record their events (§16); none by default. */
  recording?: EventRecording;
}

/**
 * Ends periods on schedule. Every instance checks for due boards; a compare-and-set on the
 * board's lease columns lets exactly one of them run each reset, and the reset itself is one
 * transaction that re-checks the lease and the period, so a reset never runs twice.
 */
export class LeaderboardResets {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(private readonly deps: LeaderboardResetsDeps) {}

  /** Resets every board whose period has ended; returns how many this instance reset. */
  runDue(): Promise<number> {
    // One pass at a time per instance: a slow reset must not be started again by the next tick.
    this.running ??= this.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Resets one board if its period has ended and this instance wins the lease; true when it did. */
  async resetBoard(board: Leaderboard): Promise<boolean> {
    const { store, clock, owner, leaseMs } = this.deps;
    const now = clock.now();
    if (!isExpired(board.period, now)) return false;
    if (!(await store.acquireResetLease(board.id, board.period.start, { owner, now, until: now + leaseMs })))
      return false;
    const next = nextPeriod(board.reset, board.period, now);
    return this.reset(board, next, now);
  }

  /**
   * Admin API (§6): ends the board's current period now and resets it as its schedule would;
   * false when another reset holds the lease or the board moved to another period meanwhile.
   */
  async resetNow(board: Leaderboard, admin: Pick<LeaderboardAdminStore, 'beginResetNow'>): Promise<boolean> {
    const { clock, owner, leaseMs } = this.deps;
    const now = clock.now();
    if (!(await admin.beginResetNow(board.id, board.period.start, { owner, now, until: now + leaseMs }))) return false;
    const next = isExpired(board.period, now) ? nextPeriod(board.reset, board.period, now) : periodAfter(board, now);
    return this.reset(board, next, now);
  }

  /** Archives the period (rewards, promotion) and starts `next`, under the lease this instance holds. */
  private async reset(board: Leaderboard, next: Period, now: number): Promise<boolean> {
    const { store, owner, recording } = this.deps;
    // A reset now (admin) ends the period early: at `now`.
    const end = Math.min(board.period.end ?? now, now);
    const ended = { start: new Date(board.period.start).toISOString(), end: new Date(end).toISOString() };
    const done = await store.resetPeriod(board.id, {
      owner,
      periodStart: board.period.start,
      next,
      archivedAt: now,
      plan: resetRewrite,
      events: resetEvents(board.projectId, recordOf(recording, board.projectId), now, {
        slug: board.slug,
        period: ended,
      }),
    });
    if (done) await this.ended(board, next);
    return done;
  }

  /** After a reset: the rank cache keeps only the new period, and the board caches read the board afresh. */
  private async ended(board: Leaderboard, next: Period): Promise<void> {
    await this.deps.cache.retain(board.id, board.revision, next.start);
    await this.deps.boards.changed(board.projectId, [board.slug]);
  }

  /** Checks for due boards every `intervalMs` until `stop`; errors go to `onError` and the next tick tries again. */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    if (this.timer || intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.runDue().catch(onError);
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a pass in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  private async pass(): Promise<number> {
    const due = await this.deps.store.listDue(this.deps.clock.now());
    let count = 0;
    for (const board of due) if (await this.resetBoard(board)) count++;
    return count;
  }
}

/**
 * The period after one ended early at `now`: from now (after its start, so archived periods keep
 * distinct starts) to the end the schedule gives that moment, so the calendar stays in step.
 */
function periodAfter(board: Leaderboard, now: number): Period {
  const start = Math.max(now, board.period.start + 1);
  return { start, end: periodContaining(board.reset, start).end };
}
