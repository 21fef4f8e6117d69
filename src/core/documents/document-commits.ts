/**
 * Document commits as the tree's (§10): the store's `apply` returns what it committed; this hands
 * each project's commits to this instance's listeners at once (its WebSocket feeds: no bus round
 * trip, no JSON) and publishes them for the other instances, one bus message per project and turn
 * (the calls a group commit answers together), marked with this instance's `origin` so that its
 * own feeds skip it. A project with event consumers (§16) has each commit record its events in
 * the outbox, in the commit's own transaction.
 */
import { randomUUID } from 'node:crypto';
import { type Bus, LocalCommitListeners } from '../bus.js';
import { type EventRecording, recordOf, recordsNothing } from '../events/event-recording.js';
import { documentChannel, encodeDocumentCommits } from '../listeners/document-commit-event.js';
import type { ChangeLogRetention } from '../realtime/tree-store.js';
import type { AppliedMutation, DocumentCommitRecord, DocumentMutation, DocumentStore } from './document-store.js';

/** Told of a project's commits made by this instance, in version order, right after their COMMIT. */
export type LocalDocumentCommitListener = (projectId: number, commits: readonly DocumentCommitRecord[]) => void;

/** The commits of the document writes of one instance; see the module comment. */
export class DocumentCommits {
  /** Marks this instance's bus messages, so that its own feeds skip what they had already. */
  readonly origin = randomUUID();
  private readonly local = new LocalCommitListeners<DocumentCommitRecord>();
  private unpublished = new Map<number, DocumentCommitRecord[]>();

  constructor(
    private readonly store: Pick<DocumentStore, 'apply'>,
    /** The bus to the other instances; null when there are none (the in-process bus: nobody to tell). */
    private readonly peers: Bus | null,
    readonly retention: ChangeLogRetention,
    private readonly onPublishError?: (error: unknown) => void,
    /** Which projects' commits record `document.written` events (§16). */
    private readonly recording: EventRecording = recordsNothing,
  ) {}

  /** Applies the mutations as one commit of the project (`DocumentStore.apply`) and announces it. */
  async apply(projectId: number, mutations: readonly DocumentMutation[]): Promise<AppliedMutation[]> {
    const events = recordOf(this.recording, projectId);
    const { applied, commit } = await this.store.apply(projectId, mutations, this.retention, events);
    this.committed(projectId, [commit]);
    return applied;
  }

  /** Calls `listener` with this instance's commits; returns a function that stops. */
  onLocalCommits(listener: LocalDocumentCommitListener): () => void {
    return this.local.add(listener);
  }

  /**
   * Commits of a project made here (a write's, an import's): to this instance's listeners now, to
   * the others with the rest of this turn's.
   */
  committed(projectId: number, commits: readonly DocumentCommitRecord[]): void {
    if (commits.length === 0) return;
    this.local.tell(projectId, commits, this.onPublishError);
    if (!this.peers) return;
    const waiting = this.unpublished.get(projectId);
    if (waiting) {
      waiting.push(...commits);
      return;
    }
    if (this.unpublished.size === 0) setImmediate(() => this.publish());
    this.unpublished.set(projectId, [...commits]);
  }

  private publish(): void {
    const peers = this.peers as Bus;
    const batches = this.unpublished;
    this.unpublished = new Map();
    for (const [projectId, commits] of batches) {
      const message = encodeDocumentCommits({ projectId, commits }, this.origin);
      // The writes are committed: other instances' feeds catch up from the change log when they notice the gap.
      peers.publish(documentChannel(projectId), message).catch((error: unknown) => this.onPublishError?.(error));
    }
  }
}
