/**
 * What document listeners (§10) need from the domain: the result of a listener read with the
 * version it reflects, under the listening user's rules (§9), the change log for `since`, the
 * current version, and the rules a user is held to now.
 */

import type { CommitSource } from '../bus.js';
import type { DocumentCommits, LocalDocumentCommitListener } from '../documents/document-commits.js';
import { parseDocumentJson } from '../documents/document-service.js';
import type {
  DocumentChangeEntry,
  DocumentCommitRecord,
  DocumentHistory,
  DocumentRecord,
  DocumentStore,
  QueryDocumentsOptions,
} from '../documents/document-store.js';
import { collectionOf, isExpired } from '../documents/ttl.js';
import { liveFilter, noTtls, type TtlSource } from '../documents/ttl-service.js';
import type { DocumentAccess, DocumentAccessSource } from '../rules/document-access.js';
import { matchesNothing } from '../where.js';
import { decodeDocumentCommits, documentChannel } from './document-commit-event.js';
import type { ListenTarget } from './listen-request.js';

/** A listener's result at `version`, in query order. */
export interface ListenerRead {
  version: number;
  documents: DocumentRecord[];
}

export class DocumentListenerService {
  constructor(
    private readonly store: Pick<
      DocumentStore,
      'querySnapshot' | 'documentSnapshot' | 'changesSince' | 'currentVersion'
    >,
    private readonly accessSource: DocumentAccessSource,
    private readonly commits: Pick<DocumentCommits, 'origin' | 'onLocalCommits'>,
    /** The collections whose documents expire (§17): absent to snapshots and changes once expired. */
    private readonly ttl: TtlSource = noTtls,
  ) {}

  /** Marks this instance's commits on the bus: its feeds had them already (`onLocalCommits`). */
  get origin(): string {
    return this.commits.origin;
  }

  /** Calls `listener` with the document commits of this instance right after their COMMIT. */
  onLocalCommits(listener: LocalDocumentCommitListener): () => void {
    return this.commits.onLocalCommits(listener);
  }

  /** The rules `userId` is held to now; none for a trusted caller (no user: an admin, §13). */
  access(projectId: number, userId: number | undefined): Promise<DocumentAccess> {
    return this.accessSource.of(projectId, userId);
  }

  /** Calls `listener` with the project id whenever a project's ruleset changes. */
  onRulesChange(listener: (projectId: number) => void): () => void {
    return this.accessSource.onRulesChange(listener);
  }

  /** The listener's result and its version, read in one transaction and filtered by the rules. */
  async read(projectId: number, target: ListenTarget, access: DocumentAccess): Promise<ListenerRead> {
    if (target.kind === 'document') {
      const [ttls, { version, document }] = await Promise.all([
        this.ttl.of(projectId),
        this.store.documentSnapshot(projectId, target.path),
      ]);
      const field = ttls.get(collectionOf(target.path));
      const expired = document && field && isExpired(document.data, field, this.ttl.now());
      return { version, documents: document && !expired ? [document] : [] };
    }
    const options: QueryDocumentsOptions = { collection: target.collection, where: target.where };
    const live = liveFilter(await this.ttl.of(projectId), target.collection, this.ttl);
    if (live) options.live = live;
    if (target.parent !== undefined) options.parent = target.parent;
    if (target.orderBy) options.orderBy = target.orderBy;
    const plan = access.listPlan(target.parent ?? null, target.collection);
    if (plan.kind === 'none') return { version: await this.store.currentVersion(projectId), documents: [] };
    if (plan.kind === 'where') options.where = [...options.where, ...plan.clauses];
    const filterEach = plan.kind === 'each';
    if (options.where.some(matchesNothing))
      return { version: await this.store.currentVersion(projectId), documents: [] };
    // Checked document by document, the limit counts allowed documents only: read them all, then cut.
    if (target.limit !== undefined && !filterEach) options.limit = target.limit;
    const snapshot = await this.store.querySnapshot(projectId, options);
    let documents = snapshot.documents.map(parseDocumentJson);
    if (filterEach) documents = documents.filter((document) => access.mayList(document));
    if (target.limit !== undefined) documents = documents.slice(0, target.limit);
    return { version: snapshot.version, documents };
  }

  /**
   * A commit as listeners see it: a document it leaves expired (§17) is absent after it, so a
   * listener holding it sees it \`removed\` and one that does not never sees it. The same commit
   * when the project has no TTL collection.
   */
  liveCommit<C extends { changes: readonly DocumentChangeEntry[] }>(projectId: number, commit: C): C {
    const ttls = this.ttl.latest(projectId);
    if (!ttls || ttls.size === 0) return commit;
    const now = this.ttl.now();
    let changes: DocumentChangeEntry[] | null = null;
    for (const [i, change] of commit.changes.entries()) {
      const field = ttls.get(collectionOf(change.path));
      if (!field || change.data === null || !isExpired(change.data, field, now)) continue;
      changes ??= [...commit.changes];
      changes[i] = { ...change, data: null };
    }
    return changes ? { ...commit, changes } : commit;
  }

  /** Where a feed of the project's document commits hears of them and reads the ones it missed. */
  commitSource(projectId: number): CommitSource<DocumentCommitRecord> {
    return {
      channel: documentChannel(projectId),
      origin: this.origin,
      decode: (message) => {
        const event = decodeDocumentCommits(message);
        return event && event.projectId === projectId ? event.commits : null;
      },
      currentVersion: () => this.currentVersion(projectId),
      changesSince: (version) => this.changesSince(projectId, version),
    };
  }

  /** The commits after `since`, or null when the log no longer covers them. */
  changesSince(projectId: number, since: number): Promise<DocumentHistory | null> {
    return this.store.changesSince(projectId, since);
  }

  currentVersion(projectId: number): Promise<number> {
    return this.store.currentVersion(projectId);
  }
}
