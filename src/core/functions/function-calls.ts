/**
 * RPCs (§16): finds the project's function by name, runs it with its context under the time
 * limit, and turns what it did into the §16 answers: its value (as JSON text), its `reject`, or
 * `Function failed` / `Function timed out` — the error itself goes to the log, never to the client.
 */
import type { Clock } from '../clock.js';
import { AppError, notFound } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { AdminApi } from './admin-api.js';
import { type FunctionObserver, observed } from './function-observer.js';
import type { FoundRpc, FunctionRegistry } from './function-registry.js';
import { type FunctionCaller, type FunctionLog, FunctionRejection } from './functions-module.js';
import { TIMED_OUT, withinTime } from './time-limit.js';

/** One call: who, which function of which project, with what input. */
export interface RpcCall {
  projectId: number;
  caller: FunctionCaller;
  name: string;
  input: JsonValue;
  requestId: string;
  /** The request's log; the function's lines are written through it. */
  log: FunctionLog;
}

/** What the calls need. */
export interface FunctionCallsDeps {
  registry: FunctionRegistry;
  admin: (projectId: number) => AdminApi;
  clock: Clock;
  /** How long a function may run before the call answers 504 (it is not stopped: JavaScript cannot be). */
  timeoutMs: number;
  /** Told each call's outcome and duration (the §16 metrics); none: not reported. */
  observer?: FunctionObserver;
}

/** Runs the RPCs of the loaded modules. */
export class FunctionCalls {
  constructor(private readonly deps: FunctionCallsDeps) {}

  /** The JSON text of the function's result (null for undefined); throws the §16 errors. */
  async call(call: RpcCall): Promise<string> {
    const rpc = this.deps.registry.rpc(call.projectId, call.name);
    // Unknown names are not reported: a caller could otherwise make any number of metric series.
    if (!rpc) throw notFound('Function not found');
    return observed(this.deps.observer, call.projectId, call.name, () => this.run(rpc, call));
  }

  private async run(rpc: FoundRpc, call: RpcCall): Promise<string> {
    const { clock, admin } = this.deps;
    let api: AdminApi | undefined;
    const ctx = {
      project_id: call.projectId,
      caller: call.caller,
      request_id: call.requestId,
      log: call.log,
      now: () => clock.now(),
      // Made when the function first uses it.
      get admin() {
        api ??= admin(call.projectId);
        return api;
      },
    };
    try {
      const result = await withinTime(this.deps.timeoutMs, () => rpc.run(ctx, call.input));
      if (result === TIMED_OUT) {
        call.log.warn('function timed out', { timeout_ms: this.deps.timeoutMs });
        throw new AppError('timed_out', 'Function timed out');
      }
      const text = JSON.stringify(result === undefined ? null : result);
      if (text === undefined) throw new TypeError(`the result (${typeof result}) is not JSON`);
      return text;
    } catch (error) {
      if (error instanceof FunctionRejection || (error instanceof AppError && error.code === 'timed_out')) throw error;
      call.log.error('function failed', { err: error });
      throw new AppError('failed', 'Function failed', undefined, { cause: error });
    }
  }
}
