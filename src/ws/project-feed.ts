import type { Bus } from '../core/bus.js';
import { commitChannel, decodeCommits, type TreeCommitEvent } from '../core/realtime/commit-event.js';
import { SubscriptionIndex } from '../core/realtime/subscription-index.js';
import type { TreeService } from '../core/realtime/tree-service.js';
import { CommitBroadcast } from './commit-broadcast.js';
import { type FeedOptions, OrderedFeed } from './ordered-feed.js';

/** What a feed needs from a connection of its project. */
export interface FeedListener {
  /** A commit concerning one of the listener's paths, in version order. */
  deliver(broadcast: CommitBroadcast): void;
  /** The feed's cursor moved (whether or not the commit concerned the listener). */
  feedAdvanced(): void;
  /** The feed lost commits the change log no longer holds: the listener must start over. */
  resync(): void;
}

/**
 * The tree commits of one project (§4), delivered in version order (`OrderedFeed`) to the
 * connections subscribed to the paths they change.
 */
export class ProjectFeed extends OrderedFeed<TreeCommitEvent> {
  /** Which listeners hold a subscription at which path. */
  readonly index = new SubscriptionIndex<FeedListener>();
  private readonly listeners = new Set<FeedListener>();
  private readonly waiting = new Set<FeedListener>();

  constructor(
    readonly projectId: number,
    tree: TreeService,
    bus: Bus,
    options: FeedOptions,
  ) {
    super(
      {
        channel: commitChannel(projectId),
        decode: (message) => {
          const events = decodeCommits(message);
          return events?.every((event) => event.projectId === projectId) ? events : null;
        },
        currentVersion: () => tree.currentVersion(projectId),
        changesSince: async (version) => {
          const history = await tree.changesSince(projectId, version);
          return history && { version: history.version, commits: history.commits.map((c) => ({ projectId, ...c })) };
        },
      },
      bus,
      options,
    );
  }

  /** Number of connections using the feed. */
  get size(): number {
    return this.listeners.size;
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

  protected deliver(event: TreeCommitEvent): void {
    if (event.changes.length > 0) {
      const broadcast = new CommitBroadcast(event);
      for (const listener of this.index.holdersConcerned(event.changes.map((change) => change.path))) {
        listener.deliver(broadcast);
      }
    }
    this.notifyWaiting();
  }

  protected override cursorMoved(): void {
    this.notifyWaiting();
  }

  private notifyWaiting(): void {
    for (const listener of this.waiting) listener.feedAdvanced();
  }

  protected historyLost(): void {
    for (const listener of [...this.listeners]) listener.resync();
  }
}
