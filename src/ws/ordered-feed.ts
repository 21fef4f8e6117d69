import { type Bus, type CommitSource, isOwnMessage, type VersionedCommit } from '../core/bus.js';

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
 * The commits of one project delivered in version order, for the tree (§4) and the documents
 * (§10) alike. Commits may arrive out of order (publishers race after their commits) or not at
 * all (a publisher died): versions are consecutive, so a gap is noticed, waited for briefly, then
 * filled from the change log; a periodic look at the current version finds a lost last commit.
 * Subclasses say what delivering a commit means and what to do when the log lost history.
 */
export abstract class OrderedFeed<C extends VersionedCommit> {
  private readonly pending = new Map<number, C>();
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
    private readonly source: CommitSource<C>,
    private readonly bus: Bus,
    private readonly options: FeedOptions,
  ) {}

  /** One commit, in version order; the cursor is already at its version. */
  protected abstract deliver(commit: C): void;
  /** The change log no longer covers the gap: the cursor jumped to the current version. */
  protected abstract historyLost(): void;
  /** The cursor moved past versions the change log lists no commit for (they changed nothing). */
  protected cursorMoved(): void {}

  /** The last version delivered; -1 until the feed has started. */
  get cursor(): number {
    return this.current ?? -1;
  }

  /** Listens on the bus, then reads the current version; retried after a failure. */
  ready(): Promise<void> {
    this.starting ??= this.start().catch((error: unknown) => {
      this.starting = null;
      throw error;
    });
    return this.starting;
  }

  /** Notes that `version` is committed; a cursor still behind it after the grace is filled from the log. */
  expect(version: number): void {
    if (version <= this.expected) return;
    this.expected = version;
    this.drain();
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
      this.source.channel,
      (message) => this.onMessage(message),
      () => void this.reconcile(),
    );
    const version = await this.source.currentVersion();
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
      this.expect(await this.source.currentVersion());
    } catch (error) {
      this.options.onError(error);
    }
  }

  private onMessage(message: string): void {
    if (isOwnMessage(message, this.source.origin)) return;
    const commits = this.source.decode(message);
    if (commits) this.receive(commits);
  }

  /** Commits of the project made by this instance, straight after their COMMIT (no bus round trip). */
  ownCommits(commits: readonly C[]): void {
    this.receive(commits);
  }

  /** Commits of the project heard of (from the bus, or from this instance's own commits), in any order. */
  protected receive(commits: readonly C[]): void {
    if (this.closed) return;
    for (const commit of commits) {
      if (this.current === null || commit.version > this.current) this.pending.set(commit.version, commit);
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
    if (this.pending.size > MAX_PENDING) void this.fillGap();
    else this.gapTimer ??= setTimeout(() => void this.fillGap(), this.options.gapWaitMs);
  }

  private dispatch(commit: C): void {
    this.current = commit.version;
    this.deliver(commit);
  }

  private async fillGap(): Promise<void> {
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.gapTimer = null;
    if (this.filling || this.closed || this.current === null) return;
    this.filling = true;
    try {
      const history = await this.source.changesSince(this.current);
      if (history === null) {
        this.current = await this.source.currentVersion();
        this.pending.clear();
        this.historyLost();
      } else {
        for (const commit of history.commits) if (commit.version > this.current) this.dispatch(commit);
        if (history.version > this.current) {
          this.current = history.version;
          this.cursorMoved();
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
