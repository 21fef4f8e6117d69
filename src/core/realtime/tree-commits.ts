/**
 * Tree writes as commits shared by everything that arrived together: one commit in flight per
 * process, and the writes arriving meanwhile go together in the next (`TreeStore.commit`: one
 * transaction, each write at its project's next version, a refused write left out alone). A
 * project's commits queue on its version row anyway; waiting here instead lets each carry
 * everything that arrived meanwhile. After the commit, each project's commits go to this
 * instance's listeners at once (its WebSocket feeds: no bus round trip), then to the others as one
 * bus message, and then each write is answered.
 */
import { randomUUID } from 'node:crypto';

import { type Bus, LocalCommitListeners } from '../bus.js';
import type { JsonValue } from '../json.js';
import { commitChannel, encodeCommits } from './commit-event.js';
import type { ChangeLogRetention, TreeCommit, TreeStore, TreeWrite, TreeWriteOutcome } from './tree-store.js';

interface Pending {
  write: TreeWrite;
  resolve: (commit: TreeCommit & { value: JsonValue }) => void;
  reject: (error: unknown) => void;
}

/** Writes per commit at most: bounds the statements' parameter arrays. */
const MAX_WRITES = 256;

/** Told of a project's commits made by this instance, in version order, right after their COMMIT. */
export type LocalCommitListener = (projectId: number, commits: readonly TreeCommit[]) => void;

/** The commits of a `TreeService`'s writes. */
export class TreeCommits {
  private queue: Pending[] = [];
  private running = false;
  private readonly local = new LocalCommitListeners<TreeCommit>();
  /** Marks this instance's bus messages, so that its own listeners skip what they had already. */
  readonly origin = randomUUID();

  constructor(
    private readonly store: TreeStore,
    private readonly bus: Bus,
    private readonly retention: ChangeLogRetention,
    private readonly onPublishError?: (error: unknown) => void,
  ) {}

  /** Commits `write` with the others waiting; resolves once it is committed and published. */
  commit(write: TreeWrite): Promise<TreeCommit & { value: JsonValue }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  /** Calls `listener` with this instance's commits; returns a function that stops. */
  onLocalCommits(listener: LocalCommitListener): () => void {
    return this.local.add(listener);
  }

  /** Hands commits to this instance's listeners, then publishes them on the project's channel (also an import's). */
  async publish(projectId: number, commits: readonly TreeCommit[]): Promise<void> {
    if (commits.length === 0) return;
    this.local.tell(projectId, commits, this.onPublishError);
    try {
      await this.bus.publish(commitChannel(projectId), encodeCommits(projectId, commits, this.origin));
    } catch (error) {
      // The writes are committed: subscribers catch up from the change log when the next commit shows the gap.
      this.onPublishError?.(error);
    }
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const round = this.queue.splice(0, MAX_WRITES);
      const outcomes = await this.outcomesOf(round.map((pending) => pending.write));
      // The next commit need not wait for this one's broadcast.
      void this.answer(round, outcomes);
    }
    this.running = false;
  }

  /** The batch's outcomes; when its commit failed as a whole, each write's own commit answers it. */
  private async outcomesOf(writes: TreeWrite[]): Promise<TreeWriteOutcome[]> {
    try {
      return await this.store.commit(writes, this.retention);
    } catch (error) {
      if (writes.length === 1) return [{ ok: false, error }];
    }
    const outcomes: TreeWriteOutcome[] = [];
    for (const write of writes) {
      try {
        outcomes.push(...(await this.store.commit([write], this.retention)));
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }

  /** Publishes each project's commits as one message, then settles every write. */
  private async answer(round: Pending[], outcomes: TreeWriteOutcome[]): Promise<void> {
    const byProject = new Map<number, TreeCommit[]>();
    for (const [i, outcome] of outcomes.entries()) {
      if (!outcome.ok) continue;
      const projectId = (round[i] as Pending).write.projectId;
      const commits = byProject.get(projectId) ?? [];
      commits.push({ version: outcome.commit.version, changes: outcome.commit.changes });
      byProject.set(projectId, commits);
    }
    await Promise.all([...byProject].map(([projectId, commits]) => this.publish(projectId, commits)));
    for (const [i, pending] of round.entries()) {
      const outcome = outcomes[i] as TreeWriteOutcome;
      if (outcome.ok) pending.resolve(outcome.commit);
      else pending.reject(outcome.error);
    }
  }
}
