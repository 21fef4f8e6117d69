import { CdsError } from './errors.js';
import { encodePath, type Http } from './http.js';
import type { RealtimeSocket } from './socket.js';
import { jsonEqual, normalizePath } from './tree.js';
import type { ValueListener } from './value-copies.js';
import type { WriteState } from './write-queue.js';

/** `{".sv": "timestamp"}`: the commit time in epoch milliseconds (§11), anywhere in a realtime value. */
export const serverTimestamp = (): { '.sv': 'timestamp' } => ({ '.sv': 'timestamp' });
/** `{".sv": {"increment": n}}`: the number stored at that path plus `n` (§11). */
export const serverIncrement = (n: number): { '.sv': { increment: number } } => ({ '.sv': { increment: n } });

/** What `transaction` resolves to: whether `fn`'s value was written, and the value at the path. */
export interface TransactionResult {
  committed: boolean;
  value: unknown;
}

const MAX_TRANSACTION_ATTEMPTS = 25;
const FIRST_RETRY_CEILING_MS = 4;
const RETRY_CEILING_MS = 250;

/**
 * A random pause before a lost transaction tries again, its ceiling doubling with each loss: clients
 * racing on one path spread out instead of colliding in lockstep, and a slow one is not starved.
 */
function pauseAfterLoss(losses: number): Promise<void> {
  const ceiling = Math.min(RETRY_CEILING_MS, FIRST_RETRY_CEILING_MS * 2 ** (losses - 1));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

/**
 * `ref(path).onDisconnect()` (§17): writes the server makes at the path when this client's connection
 * ends. The client arms them again, in order, on every new connection, and writes back the value a
 * dropped connection's op replaced (the last `set`/`update`/`remove` this client made at exactly
 * that path while the op was kept), so "while connected" values survive reconnects.
 */
export class OnDisconnect {
  constructor(
    private readonly socket: () => RealtimeSocket,
    private readonly path: string,
  ) {}

  /** Stores `value` at the path when the connection ends; resolves once the server acknowledged it. */
  set(value: unknown): Promise<void> {
    return this.socket().life.arm({ op: 'set', path: this.path, value });
  }

  /** Sets each key (a child path; null deletes) when the connection ends. */
  update(values: Record<string, unknown>): Promise<void> {
    return this.socket().life.arm({ op: 'patch', path: this.path, value: values });
  }

  /** Deletes the path when the connection ends. */
  remove(): Promise<void> {
    return this.socket().life.arm({ op: 'delete', path: this.path });
  }

  /** Forgets every op at or below the path, here and on the server. */
  cancel(): Promise<void> {
    return this.socket().life.cancel(this.path);
  }
}

/** `ref(path)`: a node of the realtime tree (§3, §4). Writes go over the client's one socket. */
export class RealtimeRef {
  readonly path: string;

  constructor(
    private readonly http: Http,
    private readonly socket: () => RealtimeSocket,
    path: string,
  ) {
    this.path = normalizePath(path);
  }

  private get url(): string {
    return this.path === '' ? '/realtime/db' : `/realtime/db/${encodePath(this.path)}`;
  }

  /** The value at the path (null when nothing is there), over REST. */
  async get(): Promise<unknown> {
    return (await this.http.request<{ value: unknown }>('GET', this.url)).value;
  }

  /**
   * Replaces the subtree (null or {} deletes); resolves once the server committed it. Made while
   * disconnected, it waits and is sent in order after reconnecting (or fails after
   * `offlineWriteTimeoutMs`).
   */
  set(value: unknown): Promise<void> {
    return this.socket().write({ action: 'set', path: this.path, value });
  }

  /** Sets each key as a child path (keys may hold `/`; null deletes), atomically. */
  update(values: Record<string, unknown>): Promise<void> {
    return this.socket().write({ action: 'patch', path: this.path, value: values });
  }

  remove(): Promise<void> {
    return this.socket().write({ action: 'delete', path: this.path });
  }

  /** The writes the server makes at this path when the client's connection ends (§17). */
  onDisconnect(): OnDisconnect {
    return new OnDisconnect(this.socket, this.path);
  }

  /** A child ref. */
  child(path: string): RealtimeRef {
    return new RealtimeRef(this.http, this.socket, `${this.path}/${path}`);
  }

  /**
   * Calls `cb(value, {version})` with the current value, then once per version that touches the
   * path, in commit order, across reconnects. Returns the unsubscribe function.
   */
  onValue(cb: ValueListener): () => void {
    return this.socket().subscribe(this.path, cb);
  }

  /**
   * Writes `fn(current)` only while the path still holds `current` (§11 `if_match`), calling `fn`
   * again with the newer value, after a short random pause, until it wins. `fn` returning
   * `undefined` aborts (`committed: false`). Resolves to the value written (or found, when aborted).
   */
  async transaction(fn: (current: unknown) => unknown): Promise<TransactionResult> {
    const read = await this.http.tagged<{ value: unknown }>('GET', this.url);
    let current: unknown = read.body.value ?? null;
    let etag = read.etag ?? '*';
    for (let attempt = 0; attempt < MAX_TRANSACTION_ATTEMPTS; attempt++) {
      const next = fn(current);
      if (next === undefined) return { committed: false, value: current };
      const state: WriteState = { resent: false };
      try {
        await this.socket().write({ action: 'set', path: this.path, value: next, if_match: etag }, state);
        return { committed: true, value: next };
      } catch (error) {
        if (!(error instanceof CdsError) || !error.current) throw error;
        // Sent twice after a lost acknowledgement: the first one may be what now stands there.
        if (state.resent && jsonEqual(error.current.value, next)) return { committed: true, value: next };
        current = error.current.value;
        etag = error.current.etag;
        await pauseAfterLoss(attempt + 1);
      }
    }
    throw new CdsError(409, `Transaction gave up after ${MAX_TRANSACTION_ATTEMPTS} attempts`, 'precondition-failed');
  }
}
