/**
 * How a group commit of documents gives out versions (§10): the writes the service commits
 * together still get one version each, in the order they apply, so an ETag names exactly one
 * state and a listener receives one change per version. Both engines keep their part of a commit
 * here; they only read the project's version before it and store the last one after it.
 */
import type { DocumentChangeEntry, DocumentCommitRecord } from './document-store.js';

/**
 * One project's part of a group commit. Each `apply` call accepted takes the next version; a
 * refused call takes none, so versions stay consecutive and every one of them changed documents.
 */
export class ProjectCommits {
  private readonly records: DocumentCommitRecord[] = [];

  constructor(
    readonly projectId: number,
    /** The project's version before the commit. */
    readonly base: number,
  ) {}

  /** The version the next call gets when it is accepted. */
  get next(): number {
    return this.base + this.records.length + 1;
  }

  /** The project's version after the calls accepted so far. */
  get last(): number {
    return this.base + this.records.length;
  }

  /** The calls accepted so far, one commit each, in version order. */
  get commits(): readonly DocumentCommitRecord[] {
    return this.records;
  }

  /** Records the call that got `next` as accepted, with what it changed. */
  accept(changes: CallChanges): DocumentCommitRecord {
    const record = { version: this.next, changes: changes.list() };
    this.records.push(record);
    return record;
  }
}

/**
 * What one call (a write, or a §11 batch) changed: each document once, from its data before the
 * call to its data after it, in the order of its last change. A document created and deleted by
 * the same call changed nothing.
 */
export class CallChanges {
  private readonly byPath = new Map<string, DocumentChangeEntry>();

  /** Notes a change of one write of the call; a path changed before keeps its first `previous`. */
  add(change: DocumentChangeEntry): void {
    const first = this.byPath.get(change.path);
    this.byPath.delete(change.path);
    this.byPath.set(change.path, first ? { ...change, previous: first.previous } : change);
  }

  list(): DocumentChangeEntry[] {
    return [...this.byPath.values()].filter((change) => change.data !== null || change.previous !== null);
  }
}
