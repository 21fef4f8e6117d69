import { AppError } from '../core/errors.js';
import type { JsonValue } from '../core/json.js';
import { updateFor } from '../core/realtime/commit-event.js';
import {
  ackMessage,
  cancelMessage,
  initMessage,
  type MessageId,
  resumeMessage,
  updateMessageOfJson,
} from '../core/realtime/messages.js';
import { ancestorsOf } from '../core/realtime/tree-path.js';
import { DENIED_BY_RULES, deniedByRules, type GrantBasis, type ReadCheck } from '../core/realtime/tree-rules.js';
import type { TreeService } from '../core/realtime/tree-service.js';
import type { TreeCommit } from '../core/realtime/tree-store.js';
import { changeJson } from '../core/realtime/tree-value.js';
import type { CommitBroadcast, UpdateFrame } from './commit-broadcast.js';
import type { FeedListener, FeedMatch, FeedSubscription, ProjectFeed } from './project-feed.js';

/** A subscription of this connection: the feed's index holds it, the session finds it by path. */
interface LiveSubscription extends FeedSubscription {
  /** What the rules granted it under (§9); null under the open ruleset. */
  grant: GrantBasis | null;
}

/** A commit waiting for a pending subscription's first answer, with the matches the feed found. */
interface HeldCommit {
  broadcast: CommitBroadcast;
  matches: readonly FeedMatch[];
}

type FirstAnswer =
  | { kind: 'init'; version: number; value: JsonValue }
  | { kind: 'resume'; version: number; since: number; commits: TreeCommit[] };

interface PendingSubscription {
  /** Registered with the feed from the start, receiving nothing until activated. */
  subscription: LiveSubscription;
  id: MessageId | undefined;
  answer: FirstAnswer | null;
  done: () => void;
}

/** Where the subscriptions' messages go: the connection's socket. */
export interface SubscriptionOutput {
  readonly closing: boolean;
  send(text: string): void;
  sendFrame(frame: UpdateFrame): void;
  close(code: number, reason: string): void;
}

/** Who subscribes, and within which limits. */
export interface SubscriptionScope {
  tree: TreeService;
  projectId: number;
  /** The client user whose rules decide reads; undefined for a trusted caller. */
  userId: number | undefined;
  maxSubscriptions: number;
  /** The connection's slots taken by other kinds of subscription (document listeners). */
  otherSlotsTaken: () => number;
}

// Commits held while a subscription's snapshot is read; a client lagging this far is closed.
const MAX_HELD = 20_000;

/**
 * A connection's tree subscriptions (§4). Updates reach the client in commit order: while a
 * subscription reads its snapshot (version V), commits are held; those up to V go out first, then
 * the `init`, then the rest, so nothing older than an `init` follows it and nothing is lost or
 * sent twice.
 */
export class TreeSubscriptions implements FeedListener {
  /** The active subscriptions by path (the feed's index holds the same objects). */
  private readonly live = new Map<string, LiveSubscription>();
  private pending: PendingSubscription | null = null;
  private readonly held: HeldCommit[] = [];
  private ended = false;

  constructor(
    private readonly feed: ProjectFeed,
    private readonly scope: SubscriptionScope,
    private readonly output: SubscriptionOutput,
  ) {
    feed.join(this);
  }

  get size(): number {
    return this.live.size;
  }

  deliver(broadcast: CommitBroadcast, matches: readonly FeedMatch[]): void {
    if (this.output.closing) return;
    if (!this.pending && this.held.length === 0) {
      this.dispatch(broadcast, matches);
      return;
    }
    this.held.push({ broadcast, matches });
    if (this.held.length > MAX_HELD) this.output.close(1008, 'Too far behind');
    else this.pump();
  }

  feedAdvanced(): void {
    this.pump();
  }

  resync(): void {
    this.output.close(1012, 'Updates were lost; reconnect and subscribe again');
  }

  /** Answers once the subscription's `init` (or `resume`) is sent; throws the refusal otherwise. */
  async subscribe(path: string, id: MessageId | undefined, since: number | undefined): Promise<void> {
    const { tree, projectId, userId, maxSubscriptions } = this.scope;
    // A rule that needs no stored value decides before anything is registered; one that reads
    // `resource.value` decides on the snapshot (an error then unregisters, as any failure does).
    const rules = await tree.rulesFor(projectId, userId);
    const read = rules?.readCheck(path) ?? null;
    if (read && !read.needsValue && !read.allows(null)) throw deniedByRules();
    const previous = this.live.get(path);
    if (!previous && this.live.size + this.scope.otherSlotsTaken() >= maxSubscriptions) {
      throw new AppError('bad_request', `Too many subscriptions (max ${maxSubscriptions})`);
    }
    // Subscribing again replaces the subscription: a fresh init, and no duplicated updates.
    if (previous) {
      this.live.delete(path);
      this.feed.unsubscribe(previous);
    }
    let done = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const subscription: LiveSubscription = {
      listener: this,
      path,
      since: Number.POSITIVE_INFINITY,
      grant: rules?.basis ?? null,
    };
    const pending: PendingSubscription = { subscription, id, answer: null, done };
    this.pending = pending;
    // Registered before the snapshot is read: commits made meanwhile are held, none is missed.
    this.feed.subscribe(subscription);
    try {
      await this.feed.ready();
      pending.answer = await this.firstAnswer(path, since, read?.needsValue ? read : null);
    } catch (error) {
      if (this.pending === pending) this.pending = null;
      this.feed.unsubscribe(subscription);
      this.pump();
      throw error;
    }
    this.pump();
    await finished;
  }

  unsubscribe(path: string, id: MessageId | undefined): void {
    this.remove(path);
    this.output.send(ackMessage('unsubscribe', path, id));
  }

  /**
   * Checks the live subscriptions again under the rules now (§9): those granted under another
   * ruleset or another `request.auth`, or all when `all` (the ruleset just changed). One no longer
   * granted is cancelled and sends nothing more. Data changes alone re-check nothing.
   */
  async reviewGrants(all: boolean): Promise<void> {
    if (this.live.size === 0) return;
    const { tree, projectId, userId } = this.scope;
    const rules = await tree.rulesFor(projectId, userId);
    if (!rules) return;
    for (const subscription of [...this.live.values()]) {
      if (!all && rules.covers(subscription.grant)) continue;
      const allowed = await rules.mayRead(subscription.path, tree.valueAt(projectId));
      // Unsubscribed or replaced meanwhile: the new one was decided on its own.
      if (this.live.get(subscription.path) !== subscription) continue;
      if (allowed) subscription.grant = rules.basis;
      else {
        this.remove(subscription.path);
        this.output.send(cancelMessage(subscription.path, DENIED_BY_RULES));
      }
    }
  }

  /** Leaves the feed: no more commits arrive, a pending subscription answers nothing. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.held.length = 0;
    const subscriptions = [...this.live.values()];
    if (this.pending) subscriptions.push(this.pending.subscription);
    this.feed.leave(this, subscriptions);
    this.pending?.done();
  }

  /** The `init` or `resume` of a subscription; `read` when the rules must see the value at `path`. */
  private async firstAnswer(path: string, since: number | undefined, read: ReadCheck | null): Promise<FirstAnswer> {
    const { tree, projectId } = this.scope;
    if (since !== undefined) {
      const history = await tree.changesSince(projectId, since);
      if (history) {
        if (read && !read.allows((await tree.snapshot(projectId, path)).value)) throw deniedByRules();
        return { kind: 'resume', version: history.version, since, commits: history.commits };
      }
    }
    const snapshot = await tree.snapshot(projectId, path);
    if (read && !read.allows(snapshot.value)) throw deniedByRules();
    return { kind: 'init', version: snapshot.version, value: snapshot.value };
  }

  private remove(path: string): void {
    const subscription = this.live.get(path);
    if (!subscription) return;
    this.live.delete(path);
    this.feed.unsubscribe(subscription);
  }

  /** Sends held commits and a pending subscription's first answer in version order. */
  private pump(): void {
    while (!this.output.closing) {
      const pending = this.pending;
      if (pending) {
        const answer = pending.answer;
        if (!answer) return;
        const head = this.held[0];
        if (head && head.broadcast.version <= answer.version) {
          this.held.shift();
          this.dispatch(head.broadcast, head.matches);
          continue;
        }
        if (this.feed.cursor < answer.version) {
          // Commits up to the snapshot's version are still on their way: wait for the feed.
          this.feed.waitForAdvance(this, answer.version);
          return;
        }
        this.feed.stopWaiting(this);
        this.activate(pending, answer);
        continue;
      }
      const head = this.held.shift();
      if (!head) return;
      this.dispatch(head.broadcast, head.matches);
    }
  }

  private activate(pending: PendingSubscription, answer: FirstAnswer): void {
    this.pending = null;
    const { subscription } = pending;
    if (answer.kind === 'init') {
      this.output.send(initMessage(subscription.path, answer.value, answer.version, pending.id));
    } else {
      this.output.send(resumeMessage(subscription.path, answer.since, pending.id));
      for (const commit of answer.commits) this.replay(subscription.path, commit);
    }
    subscription.since = answer.version;
    this.live.set(subscription.path, subscription);
    pending.done();
  }

  /**
   * Sends the updates of a live commit to the subscriptions the feed matched that follow an older
   * version: each distinct message once, whatever the overlaps.
   */
  private dispatch(broadcast: CommitBroadcast, matches: readonly FeedMatch[]): void {
    const version = broadcast.version;
    if (matches.length === 1) {
      // The common case: one subscription concerned, one message.
      const [{ subscription, change, relation }] = matches as [FeedMatch];
      if (subscription.since < version) this.output.sendFrame(broadcast.update(subscription.path, change, relation));
      return;
    }
    const sent = new Set<UpdateFrame>();
    for (const { subscription, change, relation } of matches) {
      if (subscription.since >= version) continue;
      const frame = broadcast.update(subscription.path, change, relation);
      if (sent.has(frame)) continue;
      sent.add(frame);
      this.output.sendFrame(frame);
    }
  }

  /**
   * Sends a missed commit to a resumed subscription, except what another live subscription
   * already sent (the same message) or superseded (its `init` is newer).
   */
  private replay(path: string, commit: TreeCommit): void {
    const sent = new Set<string>();
    for (const change of commit.changes) {
      const update = updateFor(path, change);
      if (!update || sent.has(update.path)) continue;
      sent.add(update.path);
      // Live subscriptions at the update's path or above it would have sent it, or a newer init.
      let covered = false;
      for (const livePath of [update.path, ...ancestorsOf(update.path)]) {
        const subscription = this.live.get(livePath);
        if (!subscription) continue;
        if (subscription.since >= commit.version || updateFor(livePath, change)?.path === update.path) covered = true;
      }
      const json = update === change ? changeJson(change) : JSON.stringify(update.value);
      if (!covered) this.output.send(updateMessageOfJson(update.path, json, commit.version));
    }
  }
}
