import { CdsError, socketError } from './errors.js';
import { below, replaceAt } from './tree.js';
import type { OnDisconnectMessage } from './types.js';
import { holdsIncrement, type WriteMessage } from './write-queue.js';

/** A §17 on-disconnect op as the SDK keeps it (`cancel` is sent, never kept). */
export interface DisconnectOp {
  op: 'set' | 'patch' | 'delete';
  path: string;
  value?: unknown;
}

interface KeptOp extends DisconnectOp {
  /** Acknowledged on some connection: after a drop it has run, and the value it overwrote is restored. */
  armed: boolean;
  /** The callers of `set`/`update`/`remove` awaiting the first acknowledgement. */
  waiters: Settle[];
  timer: ReturnType<typeof setTimeout> | null;
}

interface Settle {
  resolve: () => void;
  reject: (error: CdsError) => void;
}

/** A message of this connection awaiting its `ack` or `error`. */
interface Sent {
  op?: KeptOp;
  settle?: Settle;
}

interface Reply {
  event?: string;
  id?: unknown;
  message?: string;
}

/** Ids of on-disconnect messages and of the writes the SDK makes on its own: apart from `w1`, `l1`, `c1`. */
const OWN_ID = /^o\d+$/;

/** Sends a message on the open socket; false when it is not open. */
export type Send = (message: Record<string, unknown> | OnDisconnectMessage) => boolean;

/**
 * The on-disconnect ops of one client (§17): sent as `on_disconnect` messages, kept, and armed
 * again in order on every new connection (the server runs a connection's ops when it ends, so each
 * connection needs its own). For each armed path it also keeps the last value this client wrote
 * there (a `set`, the `update`s after it, or a `remove`): after a drop the op has replaced it, and
 * the new connection writes it back. Also carries the SDK's own writes (presence), which are sent
 * once per connection and never queued.
 */
export class DisconnectOps {
  private kept: KeptOp[] = [];
  private readonly restores = new Map<string, WriteMessage>();
  private readonly sent = new Map<string, Sent>();
  private next = 0;

  constructor(
    private readonly timeoutMs: number,
    private readonly onError: (error: CdsError) => void,
  ) {}

  get size(): number {
    return this.kept.length;
  }

  /** Keeps `op` and sends it now when `send` can; resolves on its first acknowledgement. */
  arm(op: DisconnectOp, send: Send): Promise<void> {
    return new Promise((resolve, reject) => {
      const kept: KeptOp = { ...op, armed: false, waiters: [{ resolve, reject }], timer: null };
      this.kept.push(kept);
      if (this.sendOp(kept, send)) return;
      // Made while disconnected: it waits for a connection, as a write does, then fails and is forgotten.
      kept.timer = setTimeout(() => {
        this.kept = this.kept.filter((k) => k !== kept);
        this.failWaiters(kept, new CdsError(0, 'Offline for too long: the on-disconnect op was not armed', 'network'));
      }, this.timeoutMs);
    });
  }

  /** Forgets the kept ops at or below `path` and cancels them on the server (resolves at once when disconnected). */
  cancel(path: string, send: Send): Promise<void> {
    for (const op of this.kept.filter((k) => below(path, k.path) !== null)) {
      if (op.timer) clearTimeout(op.timer);
      // Whether or not the server had it, the op is gone once the cancel is through: its caller is done.
      for (const waiter of op.waiters.splice(0)) waiter.resolve();
    }
    this.kept = this.kept.filter((k) => below(path, k.path) === null);
    for (const key of [...this.restores.keys()]) if (below(path, key) !== null) this.restores.delete(key);
    // Not connected, or dropped before the answer: the connection that held the ops has ended.
    return this.track({ action: 'on_disconnect', op: 'cancel', path }, send).catch((error: CdsError) => {
      if (error.status !== 0) throw error;
    });
  }

  /** An acknowledged write of the client: when an op is kept at its path, it is the value to restore there. */
  wrote(message: WriteMessage): void {
    if (message.if_match !== undefined || !this.kept.some((k) => k.path === message.path)) return;
    // Its stored value is the server's sum, unknown here; written back, the increment would apply twice.
    if (message.action !== 'delete' && holdsIncrement(message.value)) {
      this.restores.delete(message.path);
      return;
    }
    if (message.action !== 'patch') {
      this.restores.set(message.path, message);
      return;
    }
    const base = this.restores.get(message.path);
    if (base?.action !== 'set') return;
    let value = base.value;
    for (const [key, child] of Object.entries(message.value as Record<string, unknown>)) {
      value = replaceAt(value, key, child);
    }
    this.restores.set(message.path, { action: 'set', path: message.path, value });
  }

  /** A new connection: arms every kept op again, in order, then writes back what the armed ones replaced. */
  opened(send: Send): void {
    const ran = new Set(this.kept.filter((k) => k.armed).map((k) => k.path));
    for (const op of this.kept) this.sendOp(op, send);
    for (const [path, write] of this.restores) {
      if (ran.has(path)) this.track({ ...write }, send).catch((error: CdsError) => this.reportRefusal(error));
    }
  }

  /** A refusal of a message no caller awaits goes to `onSocketError`; a drop does not (the next connection sends it again). */
  reportRefusal(error: CdsError): void {
    if (error.status !== 0) this.onError(error);
  }

  /** Sends `message` with an id of its own and resolves on its `ack`; rejects on an `error` or when the connection drops first. */
  track(message: Record<string, unknown>, send: Send): Promise<void> {
    return new Promise((resolve, reject) => {
      const id = this.nextId();
      this.sent.set(id, { settle: { resolve, reject } });
      if (!send({ ...message, id })) this.dropSent(id);
    });
  }

  /** An `ack` or `error` naming one of these messages settles it; returns whether it did. */
  settle(reply: Reply): boolean {
    if (typeof reply.id !== 'string' || !OWN_ID.test(reply.id)) return false;
    const sent = this.sent.get(reply.id);
    if (!sent) return true;
    this.sent.delete(reply.id);
    const { op, settle } = sent;
    if (reply.event === 'ack') {
      if (op) {
        op.armed = true;
        for (const waiter of op.waiters.splice(0)) waiter.resolve();
      }
      settle?.resolve();
      return true;
    }
    const error = socketError(reply.message ?? 'error');
    if (op) {
      // Refused (rules, the 64 limit): not kept, so not armed again on the next connection.
      this.kept = this.kept.filter((k) => k !== op);
      this.restores.delete(op.path);
      if (op.waiters.length === 0) this.onError(error);
      this.failWaiters(op, error);
    }
    settle?.reject(error);
    return true;
  }

  /** The connection closed: what it did not acknowledge is sent again by `opened` (ops) or fails with `network`. */
  dropped(): void {
    for (const id of [...this.sent.keys()]) this.dropSent(id);
  }

  /** Forgets every op (sign-out, another user): their connection ended, so they ran. */
  clear(error: CdsError): void {
    for (const op of this.kept) this.failWaiters(op, error);
    this.kept = [];
    this.restores.clear();
    this.dropped();
  }

  private sendOp(op: KeptOp, send: Send): boolean {
    const id = this.nextId();
    const message: OnDisconnectMessage = { action: 'on_disconnect', id, op: op.op, path: op.path, ...opValue(op) };
    this.sent.set(id, { op });
    if (!send(message)) {
      this.sent.delete(id);
      return false;
    }
    if (op.timer) clearTimeout(op.timer);
    op.timer = null;
    return true;
  }

  private dropSent(id: string): void {
    const sent = this.sent.get(id);
    this.sent.delete(id);
    sent?.settle?.reject(new CdsError(0, 'Connection lost before the server answered', 'network'));
  }

  private failWaiters(op: KeptOp, error: CdsError): void {
    if (op.timer) clearTimeout(op.timer);
    op.timer = null;
    for (const waiter of op.waiters.splice(0)) waiter.reject(error);
  }

  private nextId(): string {
    this.next += 1;
    return `o${this.next}`;
  }
}

const opValue = (op: DisconnectOp): { value?: unknown } => (op.op === 'delete' ? {} : { value: op.value });
