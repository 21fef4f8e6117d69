import { CdsError, codeOf, socketError } from './errors.js';

/** A `result` or `error` event that may answer a call. */
interface CallReply {
  event?: string;
  id?: unknown;
  result?: unknown;
  status?: unknown;
  message?: string;
}

interface PendingCall {
  resolve: (result: unknown) => void;
  reject: (error: CdsError) => void;
}

/** Call ids: apart from writes (`w1`) and listeners (`l1`). */
const CALL_ID = /^c\d+$/;

/**
 * The server function calls (§16 `call`) waiting on one socket for their `result` or `error`.
 * A call is sent only on an open socket and never again: a function may not be safe to run twice,
 * so a call whose answer a dropped connection lost fails with `network` (it may or may not have run).
 */
export class SocketCalls {
  private readonly pending = new Map<string, PendingCall>();
  private next = 0;

  /** Sends the call with `send` (false: the socket was not open) and resolves with its result. */
  start(name: string, input: unknown, send: (text: string) => boolean): Promise<unknown> {
    this.next += 1;
    const id = `c${this.next}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (!send(JSON.stringify({ action: 'call', id, name, input }))) {
        this.fail(id, new CdsError(0, 'Not connected: the call was not sent', 'network'));
      }
    });
  }

  /** A `result` or `error` naming one of the calls settles it; returns whether it did. */
  settle(reply: CallReply): boolean {
    if (typeof reply.id !== 'string' || !CALL_ID.test(reply.id)) return false;
    const call = this.pending.get(reply.id);
    if (!call) return false;
    this.pending.delete(reply.id);
    if (reply.event === 'result') {
      call.resolve(reply.result ?? null);
      return true;
    }
    const message = reply.message ?? 'error';
    // The status the REST route would have answered, so both paths raise the same CdsError.
    call.reject(
      typeof reply.status === 'number'
        ? new CdsError(reply.status, message, codeOf(reply.status))
        : socketError(message),
    );
    return true;
  }

  /** The connection closed: no waiting call will be answered. */
  failAll(error: CdsError): void {
    for (const id of [...this.pending.keys()]) this.fail(id, error);
  }

  private fail(id: string, error: CdsError): void {
    const call = this.pending.get(id);
    this.pending.delete(id);
    call?.reject(error);
  }
}
