import type { Bus } from '../core/ports.js';
import { commitChannel, decodeCommits, type TreeCommitEvent } from '../core/realtime/commit-event.js';
import { SubscriptionIndex } from '../core/realtime/subscription-index.js';
import type { TreeService } from '../core/realtime/tree-service.js';
import { CommitBroadcast } from './commit-broadcast.js';

/** What a feed needs from a connection of its project. */
export interface FeedListener {
  /** A commit concerning one of the listener's paths, in version order. */
  deliver(broadcast: CommitBroadcast): void;
  /** The feed's cursor moved (whether or not the commit concerned the listener). */
  feedAdvanced(): void;
  /** The feed lost commits the change log no longer holds: the listener must start over. */
  resync(): void;
}

/** Settings of a feed. */
export interface FeedOptions {
  /** How long a gap in versions may wait for the missing commits before they are read from the log. */
  gapWaitMs: number;
  /** How often the feed compares its cursor with the database, for commits whose broadcast was lost. */
  reconcileMs: number;
  onError: (error: unknown) => void;
}

// Past this many commits waiting behind a gap, the gap is filled at once.
const MAX_PENDING = 10_000;

/**
 * The commits of one project, delivered in version order to the connections subscribed to them.
 * Commits may arrive out of order (publishers race after their commits) or not at all (a
 * publisher died): versions are consecutive, so a gap is noticed, waited for briefly, then filled
 * from the change log. `cursor` is the last version delivered.
 */
export class ProjectFeed {
  /** Which listeners hold a subscription at which path. */
  readonly index = new SubscriptionIndex<FeedListener>();
  private readonly listeners = new Set<FeedListener>();
  private readonly waiting = new Set<FeedListener>();
  private readonly pending = new Map<number, TreeCommitEvent>();
  private current: number | null = null;
  private starting: Promise<void> | null = null;
  private stopListening: (() => Promise<void>) | null = null;
  private gapTimer: NodeJS.Timeout | null = null;
  private reconcileTimer: NodeJS.Timeout | null = null;
  /** The highest version known to be committed (from a snapshot or the database). */
  private expected = 0;
  private filling = false;
  private closed = false;

  constructor(
    readonly projectId: number,
    private readonly tree: TreeService,
    private readonly bus: Bus,
    private readonly options: FeedOptions,
  ) {}

  /** The last version delivered; -1 until the feed has started. */
  get cursor(): number {
    return this.current ?? -1;
  }

  /** Number of connections using the feed. */
  get size(): number {
    return this.listeners.size;
  }

  /** Listens on the bus, then reads the current version; retried after a failure. */
  ready(): Promise<void> {
    this.starting ??= this.start().catch((error: unknown) => {
      this.starting = null;
      throw error;
    });
    return this.starting;
  }

  /** Adds a connection of the project. */
  join(listener: FeedListener): void {
    this.listeners.add(listener);
  }

  /** Removes a connection and every subscription it held. */
  leave(listener: FeedListener, paths: Iterable<string>): void {
    for (const path of paths) this.index.remove(path, listener);
    this.listeners.delete(listener);
    this.waiting.delete(listener);
  }

  /**
   * Asks for `feedAdvanced` calls until `stopWaiting`, the listener knowing that `version` is
   * committed: if its broadcast does not arrive in time, it is read from the change log.
   */
  waitForAdvance(listener: FeedListener, version: number): void {
    this.waiting.add(listener);
    this.expect(version);
  }

  /** Ends `waitForAdvance`. */
  stopWaiting(listener: FeedListener): void {
    this.waiting.delete(listener);
  }

  /** Stops listening on the bus. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.gapTimer) clearTimeout(this.gapTimer);
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    this.gapTimer = null;
    this.reconcileTimer = null;
    const stop = this.stopListening;
    this.stopListening = null;
    await stop?.();
  }

  private async start(): Promise<void> {
    // Listen before reading the version: a commit made in between is then seen by both.
    // After a bus outage, commits published meanwhile are read from the log at once, not at the next reconcile.
    this.stopListening ??= await this.bus.subscribe(
      commitChannel(this.projectId),
      (message) => this.onMessage(message),
      () => void this.reconcile(),
    );
    const version = await this.tree.currentVersion(this.projectId);
    if (this.closed) {
      await this.close();
      return;
    }
    if (this.current === null || version > this.current) this.current = version;
    // A lost broadcast is otherwise noticed only when a later commit of the project arrives.
    this.reconcileTimer ??= setInterval(() => void this.reconcile(), this.options.reconcileMs);
    this.reconcileTimer.unref();
    this.drain();
  }

  private async reconcile(): Promise<void> {
    if (this.closed || this.filling) return;
    try {
      this.expect(await this.tree.currentVersion(this.projectId));
    } catch (error) {
      this.options.onError(error);
    }
  }

  /** Notes that `version` is committed; a cursor still behind it after the grace is filled from the log. */
  private expect(version: number): void {
    if (version <= this.expected) return;
    this.expected = version;
    this.drain();
  }

  /** A message carries one commit, or a batch's commits in version order. */
  private onMessage(message: string): void {
    const events = decodeCommits(message);
    if (!events || this.closed) return;
    for (const event of events) {
      if (event.projectId !== this.projectId) return;
      if (this.current !== null && event.version <= this.current) continue;
      this.pending.set(event.version, event);
    }
    if (this.current !== null) this.drain();
  }

  /** Delivers the pending commits that follow the cursor; waits for (then fills) any gap. */
  private drain(): void {
    if (this.current === null || this.closed) return;
    for (let next = this.pending.get(this.current + 1); next; next = this.pending.get(this.current + 1)) {
      this.pending.delete(next.version);
      this.dispatch(next);
    }
    for (const version of this.pending.keys()) if (version <= this.current) this.pending.delete(version);
    if (this.pending.size === 0 && this.expected <= this.current) {
      if (this.gapTimer) clearTimeout(this.gapTimer);
      this.gapTimer = null;
      return;
    }
    if (this.filling) return;
    if (this.pending.size > MAX_PENDING) {
      void this.fillGap();
    } else if (!this.gapTimer) {
      this.gapTimer = setTimeout(() => void this.fillGap(), this.options.gapWaitMs);
    }
  }

  private dispatch(event: TreeCommitEvent): void {
    this.current = event.version;
    if (event.changes.length > 0) {
      const broadcast = new CommitBroadcast(event);
      for (const listener of this.index.holdersConcerned(event.changes.map((change) => change.path))) {
        listener.deliver(broadcast);
      }
    }
    for (const listener of this.waiting) listener.feedAdvanced();
  }

  private async fillGap(): Promise<void> {
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.gapTimer = null;
    if (this.filling || this.closed || this.current === null) return;
    this.filling = true;
    try {
      const history = await this.tree.changesSince(this.projectId, this.current);
      if (history === null) {
        this.current = await this.tree.currentVersion(this.projectId);
        this.pending.clear();
        for (const listener of [...this.listeners]) listener.resync();
      } else {
        for (const commit of history.commits) {
          if (commit.version > this.current) this.dispatch({ projectId: this.projectId, ...commit });
        }
        if (history.version > this.current) {
          this.current = history.version;
          for (const listener of this.waiting) listener.feedAdvanced();
        }
      }
    } catch (error) {
      this.options.onError(error);
    } finally {
      this.filling = false;
    }
    if (!this.closed) this.drain();
  }
}
