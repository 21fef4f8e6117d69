/**
 * Server functions (§16): the shape of an operator's module, what a function receives, and how it
 * refuses. A module default-exports `defineFunctions({...})`; the loader (`src/functions/`) checks
 * what it found with `moduleProblem` before anything runs: RPCs, before hooks, after handlers and
 * schedules.
 */
import { EVENT_TYPES, type OutboxEvent } from '../events/outbox-events.js';
import type { JsonObject, JsonValue } from '../json.js';
import { cronProblem } from './cron.js';

/** Who called: a player (their id and roles), or a game server's key. */
export type FunctionCaller = { user_id: number; roles: string[] } | { server_key: number };

/** A function's log: its lines carry the function's name and the request id. */
export interface FunctionLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A structured logger as pino's: fields first, then the message. */
export interface FieldLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * A function's log written through a structured logger (the request's, or a socket call's); given
 * as a function, the logger is made at the first line written (most calls write none, and a
 * child logger costs a few microseconds per call).
 */
export function functionLog(logger: FieldLogger | (() => FieldLogger)): FunctionLog {
  let made = typeof logger === 'function' ? undefined : logger;
  const to = () => {
    made ??= (logger as () => FieldLogger)();
    return made;
  };
  return {
    info: (message, fields) => to().info(fields ?? {}, message),
    warn: (message, fields) => to().warn(fields ?? {}, message),
    error: (message, fields) => to().error(fields ?? {}, message),
  };
}

/** What every function receives first; `admin` is the server API (`AdminApi`), which bypasses access rules. */
export interface FunctionContext<Admin = unknown> {
  project_id: number;
  /** Null where nobody has signed in yet (the `auth.signup` hook). */
  caller: FunctionCaller | null;
  request_id: string;
  log: FunctionLog;
  /** The service's clock, in epoch milliseconds. */
  now(): number;
  admin: Admin;
}

/** An RPC: any JSON in (null when the request had none), any JSON value out (undefined answers null). */
export type RpcFunction<Admin = unknown> = (ctx: FunctionContext<Admin>, input: JsonValue) => unknown;

/** What a hook may return: a replacement, nothing (the write goes as asked), or either later. */
type HookResult<T> = T | undefined | Promise<T | undefined>;

/** The document as stored before the write, given to the `documents.write` hook. */
export interface StoredDocumentArgument {
  id: string;
  path: string;
  data: JsonObject;
  version: number;
}

/** A document write as the `documents.write` hook sees it (once per write of a batch). */
export interface DocumentWriteArgument {
  op: 'put' | 'create' | 'patch' | 'delete';
  path: string;
  /** What the write would store: PATCH's data merged into the stored document, transforms not yet applied; null for a delete. */
  data: JsonObject | null;
  /** The write's `transforms` as the request gave them (applied after the hook, to what it returns). */
  transforms: Record<string, unknown> | null;
  stored: StoredDocumentArgument | null;
}

/** A realtime tree write (REST or socket) as the `realtime.write` hook sees it. */
export interface RealtimeWriteArgument {
  op: 'set' | 'patch' | 'delete';
  path: string;
  /** PUT's value, PATCH's object of child values, null for a delete. */
  value: JsonValue;
}

/** A leaderboard submission (§5) as the `leaderboards.stat` hook sees it. */
export interface StatArgument {
  slug: string;
  user_id: number;
  value: number;
}

/** An account about to be made (sign-up, or a device's first guest login). */
export interface SignupArgument {
  username: string;
  nickname: string;
  device_id?: string;
}

/**
 * The before hooks (§16): each may return a replacement, return nothing (the write goes as asked),
 * or `reject(status, detail)` (nothing is written).
 */
export interface BeforeHooks<Admin = unknown> {
  /** May return the data to store instead (not for a delete); it is stored as its JSON. */
  'documents.write'?: (
    ctx: FunctionContext<Admin>,
    write: DocumentWriteArgument,
  ) => HookResult<Record<string, unknown>>;
  /** May return the value to write instead (PATCH: the object of child values; not for a delete); it is written as its JSON. */
  'realtime.write'?: (ctx: FunctionContext<Admin>, write: RealtimeWriteArgument) => unknown;
  /** May return the value to submit instead. */
  'leaderboards.stat'?: (ctx: FunctionContext<Admin>, stat: StatArgument) => HookResult<number>;
  /** May return the nickname to give the account. */
  'auth.signup'?: (ctx: FunctionContext<Admin>, account: SignupArgument) => HookResult<{ nickname: string }>;
}

/** The names of the before hooks. */
export type BeforeHookName = keyof BeforeHooks;
export const BEFORE_HOOK_NAMES: readonly BeforeHookName[] = [
  'documents.write',
  'realtime.write',
  'leaderboards.stat',
  'auth.signup',
];

/**
 * An after handler (§16): given each committed event of its type, at least once, in commit order
 * per project; a throw is retried with backoff, and later events wait behind it.
 */
export type AfterHandler<Admin = unknown> = (ctx: FunctionContext<Admin>, event: OutboxEvent) => unknown;

/**
 * A schedule (§16): `run` once per tick of `cron` (five fields, UTC) for each project the module
 * serves, on one instance of the cluster; its context has no caller.
 */
export interface ScheduledFunction<Admin = unknown> {
  cron: string;
  run: (ctx: FunctionContext<Admin>) => unknown;
}

/** One module: the projects it serves and its functions. */
export interface FunctionsDefinition<Admin = unknown> {
  /** `'*'` for every project, or the ids of those it serves. */
  projects: '*' | number[];
  rpc?: Record<string, RpcFunction<Admin>>;
  before?: BeforeHooks<Admin>;
  /** By event type; `document.written` may be narrowed to one collection as `document.written:<collection>`. */
  after?: Record<string, AfterHandler<Admin>>;
  /** By name (as RPC names): each schedule's cron expression and function. */
  schedule?: Record<string, ScheduledFunction<Admin>>;
}

/** Whether `name` names events an after handler can take: a type, or `document.written:<collection>`. */
export function isAfterName(name: string): boolean {
  if ((EVENT_TYPES as readonly string[]).includes(name)) return true;
  const collection = name.startsWith('document.written:') ? name.slice('document.written:'.length) : null;
  return collection !== null && /^[^/]{1,256}$/.test(collection);
}

/** Set on what `defineFunctions` returns, so the loader can tell a definition from anything else. */
const DEFINITION = Symbol.for('client-data-service.functions');

/** The definition of a module of server functions: its default export. */
export function defineFunctions<Admin = unknown>(definition: FunctionsDefinition<Admin>): FunctionsDefinition<Admin> {
  return Object.assign(definition, { [DEFINITION]: true });
}

const REJECTION = Symbol.for('client-data-service.rejection');

/**
 * A refusal by a function: answered with its status (400–499) and `{detail}`. Recognised by a
 * brand, not by identity: a module may hold its own copy of this class (a bundled service).
 */
export class FunctionRejection extends Error {
  readonly [REJECTION] = true;

  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'FunctionRejection';
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && REJECTION in value;
  }
}

/** Refuses the call with a client error: `reject(403, 'Not yours')`. A status outside 400–499 is a programming error. */
export function reject(status: number, detail: string): never {
  if (!Number.isInteger(status) || status < 400 || status > 499) {
    throw new TypeError(`reject() takes a status from 400 to 499, not ${status}`);
  }
  throw new FunctionRejection(status, String(detail));
}

/** RPC names: what fits a URL path segment and a log line unquoted. */
export const RPC_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** What is wrong with a module's default export, or null when this service can load it. */
export function moduleProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || !(DEFINITION in value)) {
    return 'its default export is not defineFunctions({...})';
  }
  const definition = value as unknown as FunctionsDefinition;
  const { projects } = definition;
  if (projects !== '*' && !(Array.isArray(projects) && projects.every((id) => Number.isInteger(id) && id > 0))) {
    return "projects must be '*' or a list of project ids";
  }
  const rpc: unknown = definition.rpc ?? {};
  if (typeof rpc !== 'object' || rpc === null) return 'rpc must be an object of functions';
  for (const [name, fn] of Object.entries(rpc)) {
    if (!RPC_NAME.test(name)) return `rpc name '${name}' must match ${RPC_NAME.source}`;
    if (typeof fn !== 'function') return `rpc '${name}' is not a function`;
  }
  const before: unknown = definition.before ?? {};
  if (typeof before !== 'object' || before === null) return 'before must be an object of hooks';
  for (const [name, fn] of Object.entries(before)) {
    if (!(BEFORE_HOOK_NAMES as readonly string[]).includes(name)) {
      return `before hook '${name}' is not one of ${BEFORE_HOOK_NAMES.join(', ')}`;
    }
    if (typeof fn !== 'function') return `before hook '${name}' is not a function`;
  }
  const after: unknown = definition.after ?? {};
  if (typeof after !== 'object' || after === null) return 'after must be an object of handlers';
  for (const [name, fn] of Object.entries(after)) {
    if (!isAfterName(name)) {
      return `after handler '${name}' names no event type (${EVENT_TYPES.join(', ')}, or document.written:<collection>)`;
    }
    if (typeof fn !== 'function') return `after handler '${name}' is not a function`;
  }
  return scheduleProblem(definition.schedule ?? {});
}

/** What is wrong with a module's `schedule`, or null. */
function scheduleProblem(schedule: unknown): string | null {
  if (typeof schedule !== 'object' || schedule === null) return 'schedule must be an object of schedules';
  for (const [name, entry] of Object.entries(schedule)) {
    if (!RPC_NAME.test(name)) return `schedule name '${name}' must match ${RPC_NAME.source}`;
    if (typeof entry !== 'object' || entry === null) return `schedule '${name}' must be {cron, run}`;
    const { cron, run } = entry as { cron?: unknown; run?: unknown };
    const problem = cronProblem(cron);
    if (problem) return `schedule '${name}': ${problem}`;
    if (typeof run !== 'function') return `schedule '${name}' has no run function`;
  }
  return null;
}
