import type { Bus } from '../core/bus.js';
import type { DocumentCommitRecord } from '../core/documents/document-store.js';
import type { DocumentListenerService } from '../core/listeners/document-listener-service.js';
import { ListenerIndex } from '../core/listeners/listener-index.js';
import { type FeedOptions, OrderedFeed } from './ordered-feed.js';

/** A document listener as the feed sees it. */
export interface DocumentFeedMember {
  /** A commit concerning the listener's collection or document, in version order. */
  deliver(commit: DocumentCommitRecord): void;
  /** The feed lost commits the change log no longer holds: the listener must read its result again. */
  resync(): void;
}

/**
 * The document commits of one project (§10), delivered in version order (`OrderedFeed`, as the
 * tree's) to the listeners they concern. When the log no longer covers a gap, every listener
 * reads its result again (nothing is closed).
 */
export class DocumentFeed extends OrderedFeed<DocumentCommitRecord> {
  readonly index = new ListenerIndex<DocumentFeedMember>();

  constructor(
    readonly projectId: number,
    private readonly service: DocumentListenerService,
    bus: Bus,
    options: FeedOptions,
  ) {
    super(service.commitSource(projectId), bus, options);
  }

  protected deliver(commit: DocumentCommitRecord): void {
    if (commit.changes.length === 0 || this.index.size === 0) return;
    // Once per commit for every listener: documents it leaves expired are absent (§17).
    const live = this.service.liveCommit(this.projectId, commit);
    for (const member of this.index.concerned(live.changes.map((change) => change.path))) member.deliver(live);
  }

  protected historyLost(): void {
    for (const member of this.index.all()) member.resync();
  }
}
