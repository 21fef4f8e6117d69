import { below, jsonEqual, replaceAt, valueAt } from './tree.js';

/** What `onValue` callbacks receive besides the value. */
export interface ValueMeta {
  version: number;
}

export type ValueListener = (value: unknown, meta: ValueMeta) => void;

interface Subscription {
  path: string;
  listeners: Set<ValueListener>;
  value: unknown;
  /** The version the copy reflects. */
  version: number;
  /** Updates at or below this version are already in the copy (the init or resume point). */
  base: number;
  /** An init has arrived at least once: later subscribes send `since`. */
  synced: boolean;
  /** The version of a call not yet made (updates of one write are delivered as one call). */
  pending: number | null;
}

/** How long the last updates wait for more messages of their version (quiet time, and at most). */
const COALESCE_MS = 20;
const COALESCE_MAX_MS = 100;

const afterIo: (fn: () => void) => void =
  (globalThis as { setImmediate?: (fn: () => void) => void }).setImmediate ?? ((fn) => setTimeout(fn, 0));

/**
 * The local copies of the subscribed subtrees (§4, §12): each `init` and `update` applied as the
 * server applies writes, one listener call per version, in commit order.
 */
export class ValueCopies {
  private readonly subs = new Map<string, Subscription>();
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private flushStarted: number | null = null;

  get size(): number {
    return this.subs.size;
  }

  /** The `subscribe` messages of every path, with `since` once a path has had its init (after a reconnect). */
  subscribeMessages(): Record<string, unknown>[] {
    return [...this.subs.values()].map((sub) => ({
      action: 'subscribe',
      path: sub.path,
      ...(sub.synced ? { since: sub.version } : {}),
    }));
  }

  /**
   * Adds `listener` at `path` (calling it with the copy when the path is already synced);
   * `send` carries the path's `subscribe`/`unsubscribe` when the first listener comes or the last goes.
   */
  add(path: string, listener: ValueListener, send: (message: Record<string, unknown>) => void): () => void {
    let sub = this.subs.get(path);
    if (!sub) {
      sub = { path, listeners: new Set(), value: null, version: 0, base: 0, synced: false, pending: null };
      this.subs.set(path, sub);
      send({ action: 'subscribe', path });
    } else if (sub.synced) {
      const current = sub;
      queueMicrotask(() => {
        if (current.listeners.has(listener)) listener(current.value, { version: current.version });
      });
    }
    sub.listeners.add(listener);
    const owner = sub;
    return () => {
      owner.listeners.delete(listener);
      if (owner.listeners.size > 0 || this.subs.get(path) !== owner) return;
      this.subs.delete(path);
      send({ action: 'unsubscribe', path });
    };
  }

  /** Ends every copy (no more calls). */
  clear(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.flushStarted = null;
    this.subs.clear();
  }

  /** A `resume`: updates up to `version` are already in the copy. */
  resume(path: string, version: number): void {
    const sub = this.subs.get(path);
    if (sub) sub.base = Math.max(sub.base, version);
  }

  init(path: string, value: unknown, version: number): void {
    const sub = this.subs.get(path);
    if (!sub) return;
    this.flush();
    const changed = !sub.synced || !jsonEqual(sub.value, value);
    sub.value = value ?? null;
    sub.version = version;
    sub.base = version;
    sub.synced = true;
    if (changed) this.emit(sub, version);
  }

  update(path: string, value: unknown, version: number): void {
    for (const sub of this.subs.values()) {
      if (!sub.synced || version <= sub.base || version < sub.version) continue;
      const rel = below(sub.path, path);
      const down = rel === null ? below(path, sub.path) : null;
      if (rel === null && down === null) continue;
      // A new version: the previous one gets its own call first (versions are never merged).
      if (sub.pending !== null && sub.pending !== version) this.emit(sub, sub.pending);
      sub.value = rel !== null ? replaceAt(sub.value, rel, value) : valueAt(value, down ?? '');
      sub.version = version;
      sub.pending = version;
    }
    // The updates of one write (a patch sends one per key) may arrive in separate reads: the call
    // waits until a message of the next version arrives or the socket is quiet for COALESCE_MS.
    // The server writes a commit's messages to the socket at once; a part the network delays beyond
    // that gets a second call with the same version and the completed copy.
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushStarted ??= Date.now();
    const wait = Math.max(0, Math.min(COALESCE_MS, this.flushStarted + COALESCE_MAX_MS - Date.now()));
    // Then one more I/O poll (setImmediate runs after it on Node): a timer may fire before the
    // poll reads data that arrived while the event loop was busy.
    this.flushTimer = setTimeout(() => afterIo(() => this.flush()), wait);
  }

  /** Makes the calls of updates received so far. */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.flushStarted = null;
    for (const sub of this.subs.values()) if (sub.pending !== null) this.emit(sub, sub.pending);
  }

  private emit(sub: Subscription, version: number): void {
    sub.pending = null;
    for (const listener of [...sub.listeners]) listener(sub.value, { version });
  }
}
