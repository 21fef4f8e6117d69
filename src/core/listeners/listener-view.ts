/**
 * The server's copy of one listener's result (§10): what the client holds after the messages
 * sent so far. A commit's changed documents are matched in memory (collection, parent, `where`,
 * the listening user's rules) and the difference becomes one `changes` message. With `limit`, the
 * result is a window: a document that enters it pushes the last one out; one that leaves an
 * incomplete window (more matches lie beyond it) asks for a re-read of the window.
 */

import type { DocumentChangeEntry, DocumentRecord } from '../documents/document-store.js';
import type { JsonObject } from '../json.js';
import { altersData, changedRecord, sameData } from './commit-texts.js';
import { compileMatcher, type DataPredicate, documentOrder } from './document-matcher.js';
import type { ListenerChange, ListenTarget } from './listen-request.js';

/** Whether the listening user may see a document (its `list` rule, §9). */
export type Visibility = (document: DocumentRecord) => boolean;

/** What a commit does to a view: the changes to send (maybe none), or a re-read of the window. */
export type ViewUpdate = { kind: 'changes'; changes: ListenerChange[] } | { kind: 'reload' };

/** Where a document path puts it: its collection (second-to-last segment) and parent document. */
export function locate(path: string): { collection: string; parent: string } {
  const last = path.lastIndexOf('/');
  const before = path.lastIndexOf('/', last - 1);
  return { collection: path.slice(before + 1, last), parent: before < 0 ? '' : path.slice(0, before) };
}

export class ListenerView {
  private readonly documents = new Map<string, DocumentRecord>();
  /** The window in query order (only with `limit`). */
  private window: DocumentRecord[] = [];
  /** With `limit`: true while the window holds every match (fewer than `limit` exist). */
  private complete = true;
  private readonly matches: DataPredicate;
  private readonly order: (a: DocumentRecord, b: DocumentRecord) => number;

  constructor(readonly target: ListenTarget) {
    this.matches = target.kind === 'query' ? compileMatcher(target.where) : () => true;
    this.order = documentOrder(target.kind === 'query' ? target.orderBy : undefined);
  }

  private get limit(): number | undefined {
    return this.target.kind === 'query' ? this.target.limit : undefined;
  }

  /** Whether a document with this path and data belongs to the result (rules aside). */
  matchesDocument(path: string, data: JsonObject | null): boolean {
    if (data === null) return false;
    const { target } = this;
    if (target.kind === 'document') return path === target.path;
    const where = locate(path);
    if (where.collection !== target.collection) return false;
    if (target.parent !== undefined && where.parent !== target.parent) return false;
    return this.matches(data);
  }

  /** The result in query order. */
  result(): DocumentRecord[] {
    if (this.limit !== undefined) return [...this.window];
    return [...this.documents.values()].sort(this.order);
  }

  /** Replaces the result with a fresh read (in query order) and returns the difference from the old one. */
  replace(documents: readonly DocumentRecord[]): ListenerChange[] {
    const before = new Map(this.documents);
    this.documents.clear();
    for (const document of documents) this.documents.set(document.path, document);
    const limit = this.limit;
    if (limit !== undefined) {
      this.window = [...documents];
      this.complete = documents.length < limit;
    }
    const paths = new Set([...before.keys(), ...this.documents.keys()]);
    return difference(before, this.documents, paths, (was, now) => !sameData(was.data, now.data));
  }

  /** Applies a commit's changed documents; `visible` says what the user may list. */
  apply(changes: readonly DocumentChangeEntry[], visible: Visibility): ViewUpdate {
    const before = new Map<string, DocumentRecord | undefined>();
    const touched = new Set<string>();
    const remember = (path: string) => {
      if (!touched.has(path)) {
        touched.add(path);
        before.set(path, this.documents.get(path));
      }
    };
    // A window may have to be read again: it goes back to what the client holds.
    const saved =
      this.limit === undefined
        ? null
        : { documents: new Map(this.documents), window: [...this.window], complete: this.complete };
    const known = new Map<string, boolean>();
    for (const change of changes) {
      if (!this.concerns(change.path)) continue;
      const document = changedRecord(change);
      const belongs = document !== null && this.matchesDocument(change.path, change.data) && visible(document);
      // The data before the commit is the change's `previous`: one comparison for every listener.
      if (change.previous !== null) known.set(change.path, altersData(change));
      remember(change.path);
      if (this.limit === undefined) {
        if (belongs) this.documents.set(change.path, document);
        else this.documents.delete(change.path);
      } else if (saved && !this.applyToWindow(change.path, belongs ? document : null, remember)) {
        this.restore(saved);
        return { kind: 'reload' };
      }
    }
    const after = new Map<string, DocumentRecord>();
    for (const path of touched) {
      const document = this.documents.get(path);
      if (document) after.set(path, document);
    }
    const altered = (was: DocumentRecord, now: DocumentRecord) => known.get(was.path) ?? !sameData(was.data, now.data);
    return { kind: 'changes', changes: difference(before, after, touched, altered) };
  }

  /**
   * A logged commit as the listener would have seen it live (a `since` replay), from each
   * document's data before and after it; the view itself is not changed.
   */
  replay(changes: readonly DocumentChangeEntry[], visible: Visibility): ListenerChange[] {
    const before = new Map<string, DocumentRecord>();
    const after = new Map<string, DocumentRecord>();
    const altered = new Set<string>();
    for (const change of changes) {
      const { path, id, previous } = change;
      const was = previous === null ? null : { id, path, data: previous };
      const now = changedRecord(change);
      if (was && this.matchesDocument(path, previous) && visible(was)) before.set(path, was);
      if (now && this.matchesDocument(path, now.data) && visible(now)) after.set(path, now);
      if (altersData(change)) altered.add(path);
    }
    const paths = changes.map((change) => change.path);
    return difference(before, after, paths, (was) => altered.has(was.path));
  }

  private restore(saved: { documents: Map<string, DocumentRecord>; window: DocumentRecord[]; complete: boolean }) {
    this.documents.clear();
    for (const [path, document] of saved.documents) this.documents.set(path, document);
    this.window = saved.window;
    this.complete = saved.complete;
  }

  /** Quick test before matching: only documents of the listener's collection (or its document) concern it. */
  private concerns(path: string): boolean {
    const { target } = this;
    if (target.kind === 'document') return path === target.path;
    return locate(path).collection === target.collection;
  }

  /** Moves one document in the window; false when the window must be read again. */
  private applyToWindow(path: string, document: DocumentRecord | null, remember: (path: string) => void): boolean {
    const limit = this.limit as number;
    const held = this.documents.get(path);
    if (held) {
      const index = this.window.indexOf(held);
      this.window.splice(index, 1);
      this.documents.delete(path);
      if (!document) return this.complete;
      // A member moved toward the end of an incomplete window: a document beyond it may now come first.
      const last = this.window[this.window.length - 1];
      if (!this.complete && (!last || this.order(document, last) > 0)) return false;
      this.insert(document);
      return true;
    }
    if (!document) return true;
    const last = this.window[this.window.length - 1];
    if (!this.complete && (!last || this.order(document, last) > 0)) return true;
    this.insert(document);
    if (this.window.length > limit) {
      const pushed = this.window.pop() as DocumentRecord;
      remember(pushed.path);
      this.documents.delete(pushed.path);
      this.complete = false;
    }
    return true;
  }

  private insert(document: DocumentRecord): void {
    let low = 0;
    let high = this.window.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.order(this.window[mid] as DocumentRecord, document) < 0) low = mid + 1;
      else high = mid;
    }
    this.window.splice(low, 0, document);
    this.documents.set(document.path, document);
  }
}

/**
 * The changes from `before` to `after` over `paths`: removed, then added, then modified (a
 * document in both whose id changed or whose data `altered` says moved).
 */
function difference(
  before: ReadonlyMap<string, DocumentRecord | undefined>,
  after: ReadonlyMap<string, DocumentRecord>,
  paths: Iterable<string>,
  altered: (was: DocumentRecord, now: DocumentRecord) => boolean,
): ListenerChange[] {
  const removed: ListenerChange[] = [];
  const added: ListenerChange[] = [];
  const modified: ListenerChange[] = [];
  for (const path of paths) {
    const was = before.get(path);
    const now = after.get(path);
    if (was && !now) removed.push({ type: 'removed', document: { id: was.id, path } });
    else if (!was && now) added.push({ type: 'added', document: now });
    else if (was && now && (was.id !== now.id || altered(was, now))) {
      modified.push({ type: 'modified', document: now });
    }
  }
  return [...removed, ...added, ...modified];
}
