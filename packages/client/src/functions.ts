import type { Http } from './http.js';

/** The answer of an RPC. */
interface FunctionResult<T> {
  result: T;
}

/** `functions`: the project's server functions, called by name. */
export class Functions {
  constructor(private readonly http: Http) {}

  /**
   * Calls a server function with `input` (any JSON; none is null) and resolves with what it
   * returned. A function's `reject(status, detail)` rejects with `CdsError` of that status and
   * detail; 404 `Function not found`, 500 `Function failed`, 504 `Function timed out` likewise.
   */
  async call<T = unknown>(name: string, input?: unknown): Promise<T> {
    const path = `/functions/${encodeURIComponent(name)}`;
    const answer = await this.http.request<FunctionResult<T>>('POST', path, input === undefined ? {} : { body: input });
    return answer.result;
  }
}
