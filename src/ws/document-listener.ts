import type { DocumentCommitRecord, DocumentRecord } from '../core/documents/document-store.js';
import type { DocumentListenerService } from '../core/listeners/document-listener-service.js';
import {
  changesMessage,
  type ListenerId,
  type ListenTarget,
  listenerResumeMessage,
  snapshotMessage,
} from '../core/listeners/listen-request.js';
import { ListenerView } from '../core/listeners/listener-view.js';
import type { DocumentAccess } from '../core/rules/document-access.js';
import type { DocumentFeed, DocumentFeedMember } from './document-feed.js';

/** What a listener needs from its connection. */
export interface ListenerHost {
  projectId: number;
  service: DocumentListenerService;
  feed: DocumentFeed;
  send(text: string): void;
  onError(error: unknown): void;
}

/**
 * One live listener of a connection (§10). It keeps the client's result (`ListenerView`) at
 * version `since`; commits up to `since` are ignored, later ones become `changes`. While its result
 * is read (at `listen`, to refill a window, after a rule change or a lost gap) commits are held,
 * then those after the read's version are applied in order: nothing is lost or sent twice.
 */
export class DocumentListener implements DocumentFeedMember {
  private readonly view: ListenerView;
  private since = -1;
  private loading = true;
  private held: DocumentCommitRecord[] = [];
  private reloadQueued = false;
  closed = false;

  constructor(
    readonly id: ListenerId,
    readonly target: ListenTarget,
    public access: DocumentAccess,
    private readonly host: ListenerHost,
  ) {
    this.view = new ListenerView(target);
  }

  /** What the user may see: query listeners filter by `list` (§9); a doc listener was granted `get` whole. */
  private get visible(): (document: DocumentRecord) => boolean {
    if (this.target.kind === 'document') return () => true;
    const access = this.access;
    return (document) => access.mayList(document);
  }

  /** The document a doc listener holds (null when absent). */
  get heldDocument(): DocumentRecord | null {
    return this.view.result()[0] ?? null;
  }

  deliver(commit: DocumentCommitRecord): void {
    if (this.closed || commit.version <= this.since) return;
    if (this.loading) this.held.push(commit);
    else this.applyCommit(commit);
  }

  resync(): void {
    this.reload();
  }

  /**
   * The first answer: `resume` and the missed `changes` when `since` is covered by the log (and
   * there is no `limit`), else a `snapshot`. Throws (nothing sent) when the rules deny a doc listener.
   */
  async start(since: number | undefined, denied: () => Error): Promise<void> {
    const { service, projectId } = this.host;
    const read = await service.read(projectId, this.target, this.access);
    if (this.target.kind === 'document' && !this.access.mayGet(this.target.path, read.documents[0] ?? null)) {
      throw denied();
    }
    this.host.feed.expect(read.version);
    const resumable = since !== undefined && !(this.target.kind === 'query' && this.target.limit !== undefined);
    const history = resumable ? await service.changesSince(projectId, since) : null;
    if (this.closed) return;
    if (history && since !== undefined) {
      this.host.send(listenerResumeMessage(this.id, since));
      for (const commit of history.commits) {
        if (commit.version > read.version) break;
        const changes = this.view.replay(service.liveCommit(projectId, commit).changes, this.visible);
        if (changes.length > 0) this.host.send(changesMessage(this.id, commit.version, changes));
      }
      this.view.replace(read.documents);
    } else {
      this.view.replace(read.documents);
      this.host.send(snapshotMessage(this.id, read.version, read.documents));
    }
    this.settle(read.version);
  }

  /** Reads the result again and sends the difference as one `changes` message at the read's version. */
  reload(): void {
    if (this.closed) return;
    if (this.loading) {
      this.reloadQueued = true;
      return;
    }
    this.loading = true;
    const { service, projectId } = this.host;
    service.read(projectId, this.target, this.access).then(
      (read) => {
        if (this.closed) return;
        this.host.feed.expect(read.version);
        const changes = this.view.replace(read.documents);
        if (changes.length > 0) this.host.send(changesMessage(this.id, read.version, changes));
        this.settle(read.version);
      },
      (error: unknown) => {
        this.host.onError(error);
        this.loading = false;
        // Try again on the next commit of the collection.
        this.reloadQueued = true;
      },
    );
  }

  /** The view now reflects `version`: applies the commits held meanwhile that come after it. */
  private settle(version: number): void {
    this.since = Math.max(this.since, version);
    const held = this.held;
    this.held = [];
    this.loading = false;
    for (const commit of held) {
      if (this.closed || this.loading) {
        if (this.loading) this.held.push(commit);
        continue;
      }
      if (commit.version > this.since) this.applyCommit(commit);
    }
    if (this.reloadQueued && !this.loading) {
      this.reloadQueued = false;
      this.reload();
    }
  }

  private applyCommit(commit: DocumentCommitRecord): void {
    if (this.reloadQueued) {
      this.reloadQueued = false;
      this.held.push(commit);
      this.reload();
      return;
    }
    const update = this.view.apply(commit.changes, this.visible);
    if (update.kind === 'reload') {
      this.held.push(commit);
      this.reload();
      return;
    }
    this.since = commit.version;
    if (update.changes.length > 0) this.host.send(changesMessage(this.id, commit.version, update.changes));
  }
}
