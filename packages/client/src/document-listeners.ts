import { CdsError, socketError } from './errors.js';
import { jsonEqual } from './tree.js';
import type { Document, ListenerChangeWire } from './types.js';

/** One change of a listener's result; `removed` carries the document as the client last held it. */
export interface DocumentChange {
  type: 'added' | 'modified' | 'removed';
  document: Document;
}

/** What `onSnapshot` callbacks receive: the whole result in query order, what changed, and its version (§10). */
export interface DocumentSnapshot {
  documents: Document[];
  changes: DocumentChange[];
  version: number;
}

export type SnapshotListener = (snapshot: DocumentSnapshot) => void;
export type SnapshotErrorListener = (error: CdsError) => void;

/** A listener-related server message (§10): `snapshot`, `changes`, `resume`, `cancel` or `error`. */
export interface ListenerMessage {
  event?: string;
  id?: unknown;
  version?: number;
  documents?: Document[];
  changes?: ListenerChangeWire[];
  message?: string;
}

interface Listener {
  id: string;
  /** The `listen` message without `id` and `since`. */
  target: Record<string, unknown>;
  order: (a: Document, b: Document) => number;
  docs: Map<string, Document>;
  version: number;
  /** A snapshot has arrived (the next one is diffed against `docs`). */
  synced: boolean;
  /** The next listen may send `since` (false after the user changed: their rules may differ). */
  resumable: boolean;
  callback: SnapshotListener;
  onError: SnapshotErrorListener | undefined;
}

/** Listener ids: `l1`, `l2`… (writes use `w…`), unique for the client's lifetime. */
export const isListenerId = (id: unknown): id is string => typeof id === 'string' && /^l\d+$/.test(id);

/**
 * The local results of the document listeners (§10, §12): each `snapshot` diffed against the copy
 * and each `changes` applied in version order, so a callback reports each version once, with only
 * real changes, across reconnects.
 */
export class DocumentListeners {
  private readonly live = new Map<string, Listener>();
  private next = 0;

  get size(): number {
    return this.live.size;
  }

  /** The `listen` message of every listener, with `since` once it has a result (after a reconnect). */
  listenMessages(): Record<string, unknown>[] {
    return [...this.live.values()].map((l) => listenMessage(l));
  }

  /** Adds a listener; `send` carries its `listen` now and its `unlisten` when the returned function is called. */
  add(
    target: Record<string, unknown>,
    orderBy: string | undefined,
    callback: SnapshotListener,
    onError: SnapshotErrorListener | undefined,
    send: (message: Record<string, unknown>) => void,
  ): () => void {
    this.next += 1;
    const id = `l${this.next}`;
    const listener: Listener = {
      id,
      target,
      order: documentOrder(orderBy),
      docs: new Map(),
      version: 0,
      synced: false,
      resumable: false,
      callback,
      onError,
    };
    this.live.set(id, listener);
    send(listenMessage(listener));
    return () => {
      if (this.live.get(id) !== listener) return;
      this.live.delete(id);
      send({ action: 'unlisten', id });
    };
  }

  clear(): void {
    this.live.clear();
  }

  /** Another user will listen: the next listens ask for a snapshot (diffed against the results held). */
  forgetSince(): void {
    for (const listener of this.live.values()) listener.resumable = false;
  }

  /**
   * Handles a message naming a listener; an error or cancel ends it and goes to its error
   * callback, else to `fallback`.
   */
  receive(message: ListenerMessage, fallback: SnapshotErrorListener | undefined): void {
    const listener = this.live.get(String(message.id));
    // A listener already ended (an `unlisten` crossing its last messages): nothing to report.
    if (!listener) return;
    const version = message.version ?? 0;
    if (message.event === 'snapshot') this.snapshot(listener, message.documents ?? [], version);
    else if (message.event === 'changes') this.changes(listener, message.changes ?? [], version);
    else if (message.event === 'cancel' || message.event === 'error') {
      this.live.delete(listener.id);
      const text = message.message ?? 'Listener ended';
      const error = message.event === 'cancel' ? new CdsError(403, text, 'permission-denied') : socketError(text);
      (listener.onError ?? fallback)?.(error);
    }
    // `resume`: the changes after the listener's version follow.
  }

  private snapshot(listener: Listener, documents: Document[], version: number): void {
    const first = !listener.synced;
    const before = listener.docs;
    const after = new Map(documents.map((d) => [d.path, d]));
    const removed: DocumentChange[] = [];
    const added: DocumentChange[] = [];
    const modified: DocumentChange[] = [];
    for (const [path, document] of before) if (!after.has(path)) removed.push({ type: 'removed', document });
    for (const document of documents) {
      const was = before.get(document.path);
      if (!was) added.push({ type: 'added', document });
      else if (!jsonEqual(was.data, document.data)) modified.push({ type: 'modified', document });
    }
    listener.docs = after;
    listener.synced = listener.resumable = true;
    listener.version = Math.max(listener.version, version);
    const changes = [...removed, ...added, ...modified];
    if (first || changes.length > 0) this.emit(listener, changes, version);
  }

  private changes(listener: Listener, changes: ListenerChangeWire[], version: number): void {
    // An older version is already in the result. The same version may come twice: the server
    // re-reads a result after a rule change and sends the difference at the current version.
    // Changes the copy already holds are not reported, so a repeat makes no call.
    if (!listener.synced || version < listener.version) return;
    const reported: DocumentChange[] = [];
    for (const change of changes) {
      const { path } = change.document;
      if (change.type === 'removed') {
        const was = listener.docs.get(path);
        listener.docs.delete(path);
        if (was) reported.push({ type: 'removed', document: was });
      } else if ('data' in change.document) {
        const document: Document = change.document;
        const was = listener.docs.get(path);
        listener.docs.set(path, document);
        if (!was || !jsonEqual(was.data, document.data)) reported.push({ type: was ? 'modified' : 'added', document });
      }
    }
    listener.version = version;
    if (reported.length > 0) this.emit(listener, reported, version);
  }

  private emit(listener: Listener, changes: DocumentChange[], version: number): void {
    const documents = [...listener.docs.values()].sort(listener.order);
    // Keep the map in query order so the next snapshot's `removed` come in order too.
    listener.docs = new Map(documents.map((d) => [d.path, d]));
    listener.callback({ documents, changes, version });
  }
}

function listenMessage(listener: Listener): Record<string, unknown> {
  return {
    action: 'listen',
    id: listener.id,
    ...listener.target,
    ...(listener.synced && listener.resumable ? { since: listener.version } : {}),
  };
}

/** Code point order of strings (the server's order), not UTF-16 order. */
function compareText(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0) as number);
  const y = Array.from(b, (c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x.length - y.length;
}

/** §2's total order of field values: missing or null, booleans, numbers, strings, arrays, objects. */
function rank(v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'boolean') return 1;
  if (typeof v === 'number') return 2;
  if (typeof v === 'string') return 3;
  return Array.isArray(v) ? 4 : 5;
}

function compareValues(a: unknown, b: unknown): number {
  const byRank = rank(a) - rank(b);
  if (byRank !== 0) return byRank;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return compareText(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return 0;
}

function fieldValue(data: unknown, keys: string[]): unknown {
  let current = data;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The result's order (§10): by `order_by` (`-field` descending, nested with `__`), then by path. */
function documentOrder(orderBy: string | undefined): (a: Document, b: Document) => number {
  const descending = orderBy?.startsWith('-') ?? false;
  const field = orderBy ? (descending ? orderBy.slice(1) : orderBy).split('__') : null;
  return (a, b) => {
    const byValue = field ? compareValues(fieldValue(a.data, field), fieldValue(b.data, field)) : 0;
    if (byValue !== 0) return descending ? -byValue : byValue;
    return compareText(a.path, b.path);
  };
}
