import type { Http } from './http.js';
import type { RealtimeSocket } from './socket.js';

/** The answer of an RPC. */
interface FunctionResult<T> {
  result: T;
}

/**
 * Inputs longer than this (in characters) go over REST even when the socket is open: past the
 * server's message limit a socket message closes the shared connection (1009), where a body is
 * only refused (413).
 */
const SOCKET_INPUT_LIMIT = 64 * 1024;

/** `functions`: the project's server functions, called by name. */
export class Functions {
  constructor(
    private readonly http: Http,
    /** The client's socket if it was made (it is never opened for a call). */
    private readonly socket: () => RealtimeSocket | undefined,
  ) {}

  /**
   * Calls a server function with `input` (any JSON; none is null) and resolves with what it
   * returned: over the client's socket when it is open, else over REST. A function's
   * `reject(status, detail)` rejects with `CdsError` of that status and detail; 404 `Function not
   * found`, 500 `Function failed`, 504 `Function timed out` likewise, the same either way. A call
   * on the socket whose connection drops before the answer rejects with `network` (status 0): it
   * may or may not have run, so it is not sent again.
   */
  async call<T = unknown>(name: string, input?: unknown): Promise<T> {
    const value = input === undefined ? null : input;
    const small = (JSON.stringify(value) ?? '').length <= SOCKET_INPUT_LIMIT;
    const overSocket = small ? this.socket()?.call(name, value) : null;
    if (overSocket) return (await overSocket) as T;
    const path = `/functions/${encodeURIComponent(name)}`;
    const answer = await this.http.request<FunctionResult<T>>('POST', path, input === undefined ? {} : { body: input });
    return answer.result;
  }
}
