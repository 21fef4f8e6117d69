/**
 * What document listeners (§10) need from the domain: the result of a listener read with the
 * version it reflects, under the listening user's rules (§9), the change log for `since`, the
 * current version, and the rules a user is held to now.
 */

import type { CommitSource } from '../bus.js';
import type { DocumentCommits, LocalDocumentCommitListener } from '../documents/document-commits.js';
import { parseDocumentJson } from '../documents/document-service.js';
import type {
  DocumentCommitRecord,
  DocumentHistory,
  DocumentRecord,
  DocumentStore,
  QueryDocumentsOptions,
} from '../documents/document-store.js';
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
      const { version, document } = await this.store.documentSnapshot(projectId, target.path);
      return { version, documents: document ? [document] : [] };
    }
    const options: QueryDocumentsOptions = { collection: target.collection, where: target.where };
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
