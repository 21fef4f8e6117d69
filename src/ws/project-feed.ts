import type { Bus } from '../core/bus.js';
import { SubscriptionIndex, type WriteRelation } from '../core/realtime/subscription-index.js';
import type { TreeService } from '../core/realtime/tree-service.js';
import type { TreeChange, TreeCommit } from '../core/realtime/tree-store.js';
import { CommitBroadcast } from './commit-broadcast.js';
import { type FeedOptions, OrderedFeed } from './ordered-feed.js';

/** One subscription of a connection, as the feed's index holds it. */
export interface FeedSubscription {
  readonly listener: FeedListener;
  readonly path: string;
  /**
   * The version of the `init` (or resume) its updates follow; +∞ while its first answer is not
   * sent, and once it has ended: it then receives nothing.
   */
  since: number;
}

/** A subscription concerned by one change of a commit, and how the written path relates to it. */
export interface FeedMatch {
  subscription: FeedSubscription;
  change: TreeChange;
  relation: WriteRelation;
}

/** What a feed needs from a connection of its project. */
export interface FeedListener {
  /** A commit concerning some of the listener's subscriptions (`matches`), in version order. */
  deliver(broadcast: CommitBroadcast, matches: readonly FeedMatch[]): void;
  /** The feed's cursor moved (whether or not the commit concerned the listener). */
  feedAdvanced(): void;
  /** The feed lost commits the change log no longer holds: the listener must start over. */
  resync(): void;
}

/**
 * The tree commits of one project (§4), delivered in version order (`OrderedFeed`) to the
 * subscriptions concerned. Its index is the one index of the project's subscriptions: a commit
 * costs one walk of it per change, and each connection receives the matches it holds.
 */
export class ProjectFeed extends OrderedFeed<TreeCommit> {
  private readonly index = new SubscriptionIndex<FeedSubscription>();
  private readonly listeners = new Set<FeedListener>();
  private readonly waiting = new Set<FeedListener>();

  constructor(
    readonly projectId: number,
    tree: TreeService,
    bus: Bus,
    options: FeedOptions,
  ) {
    super(tree.commitSource(projectId), bus, options);
  }

  /** Number of connections using the feed. */
  get size(): number {
    return this.listeners.size;
  }

  /** Adds a connection of the project. */
  join(listener: FeedListener): void {
    this.listeners.add(listener);
  }

  /** Starts matching commits against `subscription` (its `since` says from which version it receives them). */
  subscribe(subscription: FeedSubscription): void {
    this.index.add(subscription.path, subscription);
  }

  /** Ends `subscription`: it receives nothing more, also from commits already matched. */
  unsubscribe(subscription: FeedSubscription): void {
    subscription.since = Number.POSITIVE_INFINITY;
    this.index.remove(subscription.path, subscription);
  }

  /** Removes a connection and every subscription it held. */
  leave(listener: FeedListener, subscriptions: Iterable<FeedSubscription>): void {
    for (const subscription of subscriptions) this.unsubscribe(subscription);
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

  protected deliver(commit: TreeCommit): void {
    if (commit.changes.length > 0) {
      const concerned = new Map<FeedListener, FeedMatch[]>();
      for (const change of commit.changes) {
        this.index.match(change.path, (_path, subscription, relation) => {
          const match = { subscription, change, relation };
          const matches = concerned.get(subscription.listener);
          if (matches) matches.push(match);
          else concerned.set(subscription.listener, [match]);
        });
      }
      if (concerned.size > 0) {
        const broadcast = new CommitBroadcast(commit);
        for (const [listener, matches] of concerned) listener.deliver(broadcast, matches);
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
