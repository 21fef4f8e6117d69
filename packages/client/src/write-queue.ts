import { CdsError, socketError } from './errors.js';

/** A realtime write as sent on the socket (§4, §11 `if_match`); the queue adds its `id`. */
export interface WriteMessage {
  action: 'set' | 'patch' | 'delete';
  path: string;
  value?: unknown;
  if_match?: string;
}

/** What a caller may learn about its write besides the outcome. */
export interface WriteState {
  /** The write was sent again after a reconnect (its first acknowledgement was lost). */
  resent: boolean;
}

interface PendingWrite {
  id: string;
  text: string;
  sent: boolean;
  /** Waited longer than the offline timeout: fails instead of waiting for another connection. */
  expired: boolean;
  /** Sending it again could apply it twice (a `.sv` increment without `if_match`). */
  once: boolean;
  state: WriteState;
  resolve: () => void;
  reject: (error: CdsError) => void;
  timer: ReturnType<typeof setTimeout>;
}

interface Reply {
  event?: string;
  id?: unknown;
  message?: string;
  etag?: string;
  value?: unknown;
}

/** True when `value` holds `{".sv": {"increment": n}}` somewhere. */
export function holdsIncrement(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const sv = (value as Record<string, unknown>)['.sv'];
  if (typeof sv === 'object' && sv !== null) return true;
  return Object.values(value).some(holdsIncrement);
}

/**
 * The writes of one socket, in order (§12): sent when connected, kept while disconnected and sent
 * in order after reconnecting, failed with `network` after `timeoutMs` offline. A write sent
 * before a drop and never acknowledged is sent again when that cannot apply it twice; otherwise
 * it fails with `network` (its outcome is unknown).
 */
export class WriteQueue {
  private readonly pending = new Map<string, PendingWrite>();
  private next = 0;

  constructor(private readonly timeoutMs: number) {}

  get size(): number {
    return this.pending.size;
  }

  /** Queues `message`; `send` sends now when the socket is open (returns false otherwise). */
  add(message: WriteMessage, send: (text: string) => boolean, state: WriteState = { resent: false }): Promise<void> {
    return new Promise((resolve, reject) => {
      this.next += 1;
      const id = `w${this.next}`;
      const write: PendingWrite = {
        id,
        text: JSON.stringify({ ...message, id }),
        sent: false,
        expired: false,
        once: message.if_match === undefined && holdsIncrement(message.value),
        state,
        resolve,
        reject,
        timer: setTimeout(() => {
          if (write.sent) write.expired = true;
          else this.fail(write, new CdsError(0, 'Offline for too long: the write was not sent', 'network'));
        }, this.timeoutMs),
      };
      this.pending.set(id, write);
      // Behind earlier unsent writes, a write waits its turn (they go out in order on reconnect).
      if ([...this.pending.values()].every((w) => w.sent || w === write)) write.sent = send(write.text);
    });
  }

  /** After (re)connecting: sends every unsent write, in order. */
  sendAll(send: (text: string) => boolean): void {
    for (const write of this.pending.values()) {
      if (write.sent) continue;
      if (!send(write.text)) return;
      write.sent = true;
    }
  }

  /** An `ack` or `error` naming one of the writes settles it; returns whether it did. */
  settle(reply: Reply): boolean {
    const write = typeof reply.id === 'string' ? this.pending.get(reply.id) : undefined;
    if (!write) return false;
    if (reply.event === 'ack') {
      this.pending.delete(write.id);
      clearTimeout(write.timer);
      write.resolve();
      return true;
    }
    const error = socketError(reply.message ?? 'error');
    if (reply.etag !== undefined) error.current = { etag: reply.etag, value: reply.value ?? null };
    this.fail(write, error);
    return true;
  }

  /** The socket dropped: writes awaiting an acknowledgement go again, or fail when that is unsafe. */
  dropped(): void {
    for (const write of [...this.pending.values()]) {
      if (!write.sent) continue;
      if (write.once || write.expired) {
        const reason = write.once ? 'it may or may not have been applied' : 'offline for too long';
        this.fail(write, new CdsError(0, `Connection lost before the write was acknowledged: ${reason}`, 'network'));
        continue;
      }
      write.sent = false;
      write.state.resent = true;
    }
  }

  /** Fails every write (the client closed or signed out). */
  failAll(error: CdsError): void {
    for (const write of [...this.pending.values()]) this.fail(write, error);
  }

  private fail(write: PendingWrite, error: CdsError): void {
    this.pending.delete(write.id);
    clearTimeout(write.timer);
    write.reject(error);
  }
}
