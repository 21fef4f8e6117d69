import { decodeDocumentCommit, documentChannel } from '../core/listeners/document-commit-event.js';
import type { DocumentListenerService } from '../core/listeners/document-listener-service.js';
import { ListenerIndex } from '../core/listeners/listener-index.js';
import type { Bus, DocumentCommitEvent, DocumentCommitRecord } from '../core/ports.js';
import type { FeedOptions } from './project-feed.js';

/** A document listener as the feed sees it. */
export interface DocumentFeedMember {
  /** A commit concerning the listener's collection or document, in version order. */
  deliver(commit: DocumentCommitRecord): void;
  /** The feed lost commits the change log no longer holds: the listener must read its result again. */
  resync(): void;
}

// Past this many commits waiting behind a gap, the gap is filled at once.
const MAX_PENDING = 10_000;

/**
 * The document commits of one project (§10), delivered in version order to the listeners they
 * concern, as `ProjectFeed` does for the tree: commits may arrive out of order or not at all (a
 * publisher died); versions are consecutive, so a gap is noticed, waited for briefly, then filled
 * from the change log; a periodic look at the current version finds a lost last commit. When the
 * log no longer covers a gap, every listener reads its result again (nothing is closed).
 */
export class DocumentFeed {
  readonly index = new ListenerIndex<DocumentFeedMember>();
  private readonly pending = new Map<number, DocumentCommitEvent>();
  private current: number | null = null;
  private starting: Promise<void> | null = null;
  private stopListening: (() => Promise<void>) | null = null;
  private gapTimer: NodeJS.Timeout | null = null;
  private reconcileTimer: NodeJS.Timeout | null = null;
  private expected = 0;
  private filling = false;
  private closed = false;

  constructor(
    readonly projectId: number,
    private readonly service: DocumentListenerService,
    private readonly bus: Bus,
    private readonly options: FeedOptions,
  ) {}

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

  /** Notes that `version` is committed (a listener read it): a cursor behind it is filled after the grace. */
  expect(version: number): void {
    if (version <= this.expected) return;
    this.expected = version;
    this.drain();
  }

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
    this.stopListening ??= await this.bus.subscribe(
      documentChannel(this.projectId),
      (message) => this.onMessage(message),
      () => void this.reconcile(),
    );
    const version = await this.service.currentVersion(this.projectId);
    if (this.closed) {
      await this.close();
      return;
    }
    if (this.current === null || version > this.current) this.current = version;
    this.reconcileTimer ??= setInterval(() => void this.reconcile(), this.options.reconcileMs);
    this.reconcileTimer.unref();
    this.drain();
  }

  private async reconcile(): Promise<void> {
    if (this.closed || this.filling) return;
    try {
      this.expect(await this.service.currentVersion(this.projectId));
    } catch (error) {
      this.options.onError(error);
    }
  }

  private onMessage(message: string): void {
    const event = decodeDocumentCommit(message);
    if (!event || event.projectId !== this.projectId || this.closed) return;
    if (this.current !== null && event.version <= this.current) return;
    this.pending.set(event.version, event);
    if (this.current !== null) this.drain();
  }

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

  private dispatch(commit: DocumentCommitRecord): void {
    this.current = commit.version;
    if (commit.changes.length === 0 || this.index.size === 0) return;
    for (const member of this.index.concerned(commit.changes.map((change) => change.path))) member.deliver(commit);
  }

  private async fillGap(): Promise<void> {
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.gapTimer = null;
    if (this.filling || this.closed || this.current === null) return;
    this.filling = true;
    try {
      const history = await this.service.changesSince(this.projectId, this.current);
      if (history === null) {
        this.current = await this.service.currentVersion(this.projectId);
        this.pending.clear();
        for (const member of this.index.all()) member.resync();
      } else {
        for (const commit of history.commits) if (commit.version > this.current) this.dispatch(commit);
        if (history.version > this.current) this.current = history.version;
      }
    } catch (error) {
      this.options.onError(error);
    } finally {
      this.filling = false;
    }
    if (!this.closed) this.drain();
  }
}
