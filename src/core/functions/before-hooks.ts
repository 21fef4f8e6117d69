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
import { type FunctionObserver, type FunctionOutcome, observed, outcomeOf } from './function-observer.js';
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
import { TIMED_OUT, withinTime } from './time-limit.js';

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

/** Where the write services find the hooks of a project. */
export interface WriteHooks {
  /** The project's hook `name`, or undefined when it has none (the write then costs what it did without functions). */
  find<Name extends BeforeHookName>(projectId: number, name: Name): RunHook<Name> | undefined;
}

/** No hooks: the services' default. */
export const noHooks: WriteHooks = { find: () => undefined };

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
    const hook = this.deps.registry.before(projectId, name);
    if (!hook) return undefined;
    const { observer } = this.deps;
    return (origin, argument) =>
      observed(
        observer,
        projectId,
        `before:${name}`,
        () => this.run(projectId, name, hook as HookFunction, origin, argument),
        hookOutcome,
      );
  }

  private async run(
    projectId: number,
    name: BeforeHookName,
    hook: HookFunction,
    origin: HookOrigin,
    argument: unknown,
  ): Promise<unknown> {
    const { timeoutMs } = this.deps;
    const caller =
      origin.userId === null
        ? null
        : { user_id: origin.userId, roles: await this.deps.rolesOf(projectId, origin.userId) };
    const ctx = new HookContext(projectId, caller, name, origin, this.context);
    try {
      const result = await withinTime(timeoutMs, () => hook(ctx, argument));
      if (result === TIMED_OUT) {
        ctx.logger().warn({ timeout_ms: timeoutMs }, 'hook timed out');
        throw new HookTimedOut();
      }
      if (result === undefined) return undefined;
      // As JSON: what a replacement holds beyond it (a Date, a class instance) is never stored.
      const text = JSON.stringify(result);
      if (text === undefined) throw new TypeError(`the hook returned ${typeof result}, which is not JSON`);
      return JSON.parse(text) as unknown;
    } catch (error) {
      if (error instanceof FunctionRejection || error instanceof HookTimedOut) throw error;
      ctx.logger().error({ err: error }, 'hook failed');
      throw new AppError('failed', 'Function failed', undefined, { cause: error });
    }
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
