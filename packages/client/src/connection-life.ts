import { type DisconnectOp, DisconnectOps, type Send } from './disconnect-ops.js';
import type { CdsError } from './errors.js';
import { type PresenceHandle, type PresenceState, Presences } from './presence.js';
import { randomId } from './storage.js';
import type { WriteMessage } from './write-queue.js';

interface Reply {
  event?: string;
  id?: unknown;
  message?: string;
}

export interface ConnectionLifeOptions {
  /** Sends a message on the open socket (false when it is not open). */
  send: Send;
  /** Opens the socket when it is not open or opening. */
  connect: () => void;
  offlineTimeoutMs: number;
  onError: (error: CdsError) => void;
}

/**
 * What the client redoes on every connection of its socket and what a connection's end sets off
 * (§17): the on-disconnect ops (armed again each time), the presences (a node per connection), the
 * connection's id and the listeners of `connected`.
 */
export class ConnectionLife {
  private readonly ops: DisconnectOps;
  private readonly presences: Presences;
  private readonly listeners = new Set<(connected: boolean) => void>();
  /** The open connection's id (random, new on each connection; it names the presence nodes), or null. */
  connectionId: string | null = null;

  constructor(private readonly options: ConnectionLifeOptions) {
    this.ops = new DisconnectOps(options.offlineTimeoutMs, options.onError);
    this.presences = new Presences(this.ops, options.send);
  }

  /** Kept ops and presences: the socket reconnects for them as it does for subscriptions. */
  get size(): number {
    return this.ops.size + this.presences.size;
  }

  get connected(): boolean {
    return this.connectionId !== null;
  }

  /** Calls `listener(connected)` when the socket opens or closes; returns the function that stops it. */
  onChange(listener: (connected: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Keeps an on-disconnect op, armed again on every connection; resolves on its first `ack`. */
  arm(op: DisconnectOp): Promise<void> {
    const armed = this.ops.arm(op, this.options.send);
    this.options.connect();
    return armed;
  }

  /** Forgets the ops at or below `path` and cancels them on the server. */
  cancel(path: string): Promise<void> {
    return this.ops.cancel(path, this.options.send);
  }

  presence(path: string, state: PresenceState, userId: Promise<number>): PresenceHandle {
    const handle = this.presences.join(path, state, userId);
    this.options.connect();
    return handle;
  }

  /** A realtime write of the client was acknowledged (it may be a value to restore after a drop). */
  wrote(message: WriteMessage): void {
    this.ops.wrote(message);
  }

  /** An `ack` or `error` of an op or of the SDK's own writes; returns whether it was one. */
  settle(reply: Reply): boolean {
    return this.ops.settle(reply);
  }

  /** The socket opened: ops armed again, presences written under a new connection id. */
  opened(): void {
    this.ops.opened(this.options.send);
    this.connectionId = randomId().replace(/-/g, '').slice(0, 16);
    this.presences.opened(this.connectionId);
    this.changed(true);
  }

  /** The socket closed (or was closed by the client). */
  closed(): void {
    this.ops.dropped();
    this.presences.dropped();
    if (this.connectionId === null) return;
    this.connectionId = null;
    this.changed(false);
  }

  /** Forgets every op and presence (sign-out, another user): their connection ends, so the ops run. */
  clear(error: CdsError): void {
    this.ops.clear(error);
    this.presences.clear(error);
  }

  private changed(connected: boolean): void {
    for (const listener of [...this.listeners]) listener(connected);
  }
}
