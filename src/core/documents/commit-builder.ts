/**
 * A commit of documents as core builds it and the engines feed it (§10, §11): the versions a
 * group commit gives out (the writes the service commits together still get one version each,
 * in the order they apply, so an ETag names exactly one state and a listener receives one change
 * per version), what each call changed, and each mutation's decision. The engines only read the
 * stored documents and the project's version before the commit, and store what comes out.
 */
import type {
  AppliedMutation,
  DocumentChange,
  DocumentChangeEntry,
  DocumentCommit,
  DocumentCommitRecord,
  DocumentMutation,
  StoredDocument,
} from './document-store.js';

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

  /** Records the call that got `next` as accepted, with what it changed (`CallChanges.list`). */
  accept(changes: DocumentChangeEntry[]): DocumentCommitRecord {
    const record = { version: this.next, changes };
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

  /** The call's changes, each document once. */
  list(): DocumentChangeEntry[] {
    return [...this.byPath.values()].filter((change) => change.data !== null || change.previous !== null);
  }
}

/** A mutation decided inside a commit: what to store, the answer, and the document it leaves. */
export interface DecidedMutation {
  change: DocumentChange;
  applied: AppliedMutation;
  /** The document after the mutation (null when deleted), as the commit's next mutation of it sees it. */
  document: StoredDocument | null;
  /** What it changed, for the call's `CallChanges` (null: a delete of nothing). */
  entry: DocumentChangeEntry | null;
}

/**
 * Lets a mutation decide on `current`, the document as the commit has it so far (null when absent,
 * or not read because no mutation needed it: an engine that did not read fills the id the
 * database kept and the `previous` in afterwards), and notes its change in `changes`: the one
 * place that works out ids, `created` and the change log's `previous` for both engines. Without
 * `changes`, the caller notes `entry` itself once it has stored the change.
 */
export function decideMutation(
  mutation: DocumentMutation,
  stored: StoredDocument | null,
  commit: DocumentCommit,
  changes?: CallChanges,
): DecidedMutation {
  // An expired document (§17) is absent to the write: it is replaced as a new one.
  const current = stored && mutation.expired?.(stored) ? null : stored;
  const change = mutation.decide(mutation.readsStored ? current : null, commit);
  const path = mutation.path.path;
  const { version } = commit;
  if (change.kind === 'delete') {
    const entry = current ? { path, id: current.id, data: null, previous: current.data } : null;
    if (entry) changes?.add(entry);
    return { change, applied: { kind: 'deleted', path, version }, document: null, entry };
  }
  const id = current?.id ?? change.newId;
  const entry = { path, id, data: change.data, previous: current?.data ?? null };
  changes?.add(entry);
  const document = { id, path, data: change.data, version };
  return { change, applied: { kind: 'written', ...document, created: current === null }, document, entry };
}
