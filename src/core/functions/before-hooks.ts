/**
 * Before hooks (§16): the write services ask here for their project's hook and run it with its
 * context under `CDS_HOOK_TIMEOUT_MS`. A hook's `reject` passes through as it is (the write is
 * answered with its status); a hook past its time is `503 Hook timed out`; any other throw, or a
 * replacement the write cannot use, is `500 Function failed`, the error going to the log with the
 * request id. What a hook returns is checked by the service that asked (it knows what it writes).
 */
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { AdminApi } from './admin-api.js';
import { type FunctionObserver, type FunctionOutcome, outcomeOf } from './function-observer.js';
import type { FunctionRegistry } from './function-registry.js';
import {
  type BeforeHookName,
  type BeforeHooks,
  type FieldLogger,
  type FunctionCaller,
  type FunctionLog,
  FunctionRejection,
  functionLog,
} from './functions-module.js';
import { isThenable, TIMED_OUT, withinTime } from './time-limit.js';

/** A logger that makes loggers carrying more fields (pino's, Fastify's request log). */
export interface ChildLogger {
  child(bindings: Record<string, unknown>): FieldLogger;
}

const quiet = { info() {}, warn() {}, error() {} };
/** A logger that writes nothing. */
export const silentLogger: ChildLogger = { child: () => quiet };

/** Who asked for the write a hook runs for: what its context tells. */
export interface HookOrigin {
  /** The player, or null where nobody has signed in yet (sign-up). */
  userId: number | null;
  requestId: string;
  log: ChildLogger;
}

/** The argument of the hook `Name`. */
export type HookArgument<Name extends BeforeHookName> = Parameters<NonNullable<BeforeHooks[Name]>>[1];

/**
 * A project's hook, ready to run: resolves to what it returned (undefined: write as asked),
 * unchecked, since an operator's module may return anything.
 */
export type RunHook<Name extends BeforeHookName> = (
  origin: HookOrigin,
  argument: HookArgument<Name>,
) => Promise<unknown>;

/**
 * A hook bound to its caller, for a place where nothing can be awaited (inside a commit): it
 * answers what the hook returned, as `RunHook` resolves, at once when the hook answered at once,
 * or a promise of it when the hook answered with one; a refusal or failure throws at once.
 */
export type BoundHook<Name extends BeforeHookName> = (argument: HookArgument<Name>) => unknown;

/** Where the write services find the hooks of a project. */
export interface WriteHooks {
  /** The project's hook `name`, or undefined when it has none (the write then costs what it did without functions). */
  find<Name extends BeforeHookName>(projectId: number, name: Name): RunHook<Name> | undefined;
  /**
   * The project's hook `name` bound to the caller of `origin`, when it is a plain function (an
   * `async` one always answers with a promise): undefined when there is none or it is `async`.
   */
  bind?<Name extends BeforeHookName>(
    projectId: number,
    name: Name,
    origin: HookOrigin,
  ): Promise<BoundHook<Name>> | undefined;
}

/** No hooks: the services' default. */
export const noHooks: WriteHooks = { find: () => undefined };

const isAsyncFunction = (fn: unknown): boolean => Object.prototype.toString.call(fn) === '[object AsyncFunction]';

/** What running hooks needs. */
export interface BeforeHookDeps {
  registry: FunctionRegistry;
  admin: (projectId: number) => AdminApi;
  clock: Clock;
  timeoutMs: number;
  /** A player's roles, for `ctx.caller`. */
  rolesOf(projectId: number, userId: number): Promise<string[]>;
  /** Told of each run, as `before:<hook>` (§16 metrics). */
  observer?: FunctionObserver;
}

/** A hook that ran past `CDS_HOOK_TIMEOUT_MS`: `503 Hook timed out`. */
export class HookTimedOut extends AppError {
  constructor() {
    super('unavailable', 'Hook timed out');
  }
}

/** A hook's outcome for the metrics: its own time-out is `503 Hook timed out`. */
const hookOutcome = (error: unknown): FunctionOutcome =>
  error instanceof HookTimedOut ? 'timed_out' : outcomeOf(error);

/** The failure of a hook whose return the write cannot use: `500 Function failed`, its reason logged. */
export function unusableReplacement(origin: HookOrigin, name: BeforeHookName, why: string): AppError {
  origin.log.child({ hook: name }).error({ reason: why }, 'hook returned what the write cannot use');
  return new AppError('failed', 'Function failed');
}

/** The before hooks of the loaded modules. */
export class BeforeHookRunner implements WriteHooks {
  private readonly context: SharedContext;

  constructor(private readonly deps: BeforeHookDeps) {
    const { clock, admin } = deps;
    this.context = { now: () => clock.now(), admin };
  }

  find<Name extends BeforeHookName>(projectId: number, name: Name): RunHook<Name> | undefined {
    const hook = this.deps.registry.before(projectId, name) as HookFunction | undefined;
    if (!hook) return undefined;
    return async (origin, argument) =>
      this.call(projectId, name, hook, await this.callerOf(projectId, origin), origin, argument);
  }

  bind<Name extends BeforeHookName>(
    projectId: number,
    name: Name,
    origin: HookOrigin,
  ): Promise<BoundHook<Name>> | undefined {
    const hook = this.deps.registry.before(projectId, name) as HookFunction | undefined;
    if (!hook || isAsyncFunction(hook)) return undefined;
    return this.callerOf(projectId, origin).then(
      (caller) => (argument) => this.call(projectId, name, hook, caller, origin, argument),
    );
  }

  private async callerOf(projectId: number, origin: HookOrigin): Promise<FunctionCaller | null> {
    if (origin.userId === null) return null;
    return { user_id: origin.userId, roles: await this.deps.rolesOf(projectId, origin.userId) };
  }

  /** Runs the hook: its checked answer at once when it answered at once, else a promise of it (timed). */
  private call(
    projectId: number,
    name: BeforeHookName,
    hook: HookFunction,
    caller: FunctionCaller | null,
    origin: HookOrigin,
    argument: unknown,
  ): unknown {
    const run = new HookRun(projectId, name, caller, origin, this.context, this.deps.observer);
    let answer: unknown;
    try {
      answer = hook(run.ctx, argument);
    } catch (error) {
      throw run.failed(error);
    }
    return isThenable(answer) ? this.awaited(run, answer) : run.answered(answer);
  }

  private async awaited(run: HookRun, answer: PromiseLike<unknown>): Promise<unknown> {
    const { timeoutMs } = this.deps;
    let result: unknown;
    try {
      result = await withinTime(timeoutMs, () => answer);
    } catch (error) {
      throw run.failed(error);
    }
    if (result === TIMED_OUT) {
      run.ctx.logger().warn({ timeout_ms: timeoutMs }, 'hook timed out');
      throw run.failed(new HookTimedOut());
    }
    return run.answered(result);
  }
}

/** One run of a hook: its context, and its report to the metrics once it ends. */
class HookRun {
  readonly ctx: HookContext;
  private readonly started: number;

  constructor(
    private readonly projectId: number,
    private readonly name: BeforeHookName,
    caller: FunctionCaller | null,
    origin: HookOrigin,
    shared: SharedContext,
    private readonly observer: FunctionObserver | undefined,
  ) {
    this.ctx = new HookContext(projectId, caller, name, origin, shared);
    this.started = observer ? performance.now() : 0;
  }

  /** What the hook returned, as JSON: what a replacement holds beyond it (a Date, a class instance) is never stored. */
  answered(result: unknown): unknown {
    if (result === undefined) return this.report('ok', undefined);
    let copy: unknown;
    try {
      const text = JSON.stringify(result);
      if (text === undefined) throw new TypeError(`the hook returned ${typeof result}, which is not JSON`);
      copy = JSON.parse(text);
    } catch (error) {
      throw this.failed(error);
    }
    return this.report('ok', copy);
  }

  /** The error the write fails with: a `reject` or time-out as it is, any other throw `500 Function failed` (logged). */
  failed(error: unknown): Error {
    this.report(hookOutcome(error), undefined);
    if (error instanceof FunctionRejection || error instanceof HookTimedOut) return error;
    this.ctx.logger().error({ err: error }, 'hook failed');
    return new AppError('failed', 'Function failed', undefined, { cause: error });
  }

  private report<T>(outcome: FunctionOutcome, value: T): T {
    this.observer?.observe(this.projectId, `before:${this.name}`, outcome, (performance.now() - this.started) / 1000);
    return value;
  }
}

/** What every hook's context shares: the service's clock, and where the admin API comes from. */
interface SharedContext {
  now: () => number;
  admin: (projectId: number) => AdminApi;
}

/**
 * A hook's `ctx`, one object per call: its log and admin API are made when the hook first uses
 * them (most hooks use neither, and a write pays for every allocation of its hook).
 */
class HookContext {
  readonly request_id: string;
  readonly now: () => number;
  readonly #hook: BeforeHookName;
  readonly #origin: HookOrigin;
  readonly #shared: SharedContext;
  #logger: FieldLogger | undefined;
  #log: FunctionLog | undefined;
  #admin: AdminApi | undefined;

  constructor(
    readonly project_id: number,
    readonly caller: FunctionCaller | null,
    hook: BeforeHookName,
    origin: HookOrigin,
    shared: SharedContext,
  ) {
    this.request_id = origin.requestId;
    this.now = shared.now;
    this.#hook = hook;
    this.#origin = origin;
    this.#shared = shared;
  }

  get log(): FunctionLog {
    this.#log ??= functionLog(() => this.logger());
    return this.#log;
  }

  get admin(): AdminApi {
    this.#admin ??= this.#shared.admin(this.project_id);
    return this.#admin;
  }

  /** The request's logger, its lines naming the hook. */
  logger(): FieldLogger {
    this.#logger ??= this.#origin.log.child({ hook: this.#hook });
    return this.#logger;
  }
}

/** A hook as the runner calls it: its argument and result are checked by the service that asked. */
type HookFunction = (ctx: unknown, argument: unknown) => unknown;
