/**
 * The types of `client-data-service/functions/testing` (§16): what an operator's tests see of the
 * in-memory service `testing.ts` starts. They name only what `client-data-service/functions`
 * already exports, so an operator's type checker never reads the service itself (its HTTP
 * framework, its database drivers); `testing.ts` is checked against this declaration.
 */
import type { AdminApi, Functions, JsonObject, JsonValue } from './index.js';

/** A signed-in player of the test project. */
export interface TestPlayer {
  user_id: number;
  username: string;
  access_token: string;
}

/** Who makes a client request: a player (default: the service's `player`). */
export interface AsPlayer {
  as?: TestPlayer;
}

/** Who calls an RPC: a player (default: the service's `player`), or `'server'` for a server key alone. */
export interface AsCaller {
  as?: TestPlayer | 'server';
}

/** A document as the client routes answer it. */
export interface ClientDocument {
  id: string;
  path: string;
  data: JsonObject;
  created?: boolean;
}

/** What `startFunctionsTestService` may be given. */
export interface FunctionsTestOptions {
  /** The modules under test: each module's default export (`defineFunctions({...})`). */
  modules: Functions[];
  /** The service's clock in epoch milliseconds (`ctx.now()`, leaderboard periods); default `Date.now`. */
  now?: () => number;
  /** Further settings, as environment variables (`CDS_FUNCTION_TIMEOUT_MS`, `CDS_HOOK_TIMEOUT_MS`, …). */
  env?: Record<string, string>;
}

/**
 * The service under test: one project with one player, the client requests that call RPCs and
 * run before hooks, and the server API to arrange and inspect data. A refused request throws
 * `HttpError` with the status and detail a client would have been answered.
 */
export interface FunctionsTestService {
  project_id: number;
  /** A player signed up when the service started (before any `auth.signup` hook could run). */
  player: TestPlayer;
  /** `ctx.admin` of the project: reads and writes past the access rules, running no hook. */
  admin: AdminApi;
  /** `POST /functions/{name}`: the function's result (`null` for nothing). */
  call(name: string, input?: JsonValue, options?: AsCaller): Promise<JsonValue>;
  /** A player's document writes (`documents.write` hooks run). */
  documents: {
    put(path: string, data: JsonObject, options?: AsPlayer & { transforms?: JsonObject }): Promise<ClientDocument>;
    patch(path: string, data: JsonObject, options?: AsPlayer & { transforms?: JsonObject }): Promise<ClientDocument>;
    delete(path: string, options?: AsPlayer): Promise<{ deleted: string }>;
  };
  /** A player's realtime writes (`realtime.write` hooks run). */
  realtime: {
    set(path: string, value: JsonValue, options?: AsPlayer): Promise<{ path: string; value: JsonValue }>;
  };
  leaderboards: {
    /** Creates a board as the admin API does (`POST /admin/projects/{id}/leaderboards`; the body's other fields default). */
    create(slug: string, settings?: JsonObject): Promise<void>;
    /** A player's stat submission (`leaderboards.stat` hooks run): the player's standing. */
    submit(slug: string, value: number, options?: AsPlayer): Promise<JsonObject>;
    /** Ends the board's period now as the admin API does (`POST /admin/projects/{id}/leaderboards/{slug}/reset`). */
    reset(slug: string): Promise<void>;
  };
  /** `POST /auth/signup` (`auth.signup` hooks run): the new player, signed in. */
  signup(
    username: string,
    options?: { nickname?: string; password?: string },
  ): Promise<TestPlayer & { nickname: string }>;
  /**
   * Runs the schedules whose tick came due on the service's clock (move `now` past a tick first;
   * ticks before the service started do not run), resolving once their runs ended. The service
   * also looks for due ticks each second on its own.
   */
  runSchedules(): Promise<void>;
  /**
   * Resolves once the after handlers have been handed every event committed so far (a handler that
   * failed and waits for its retry is not waited for). The service also hands them events on its own.
   */
  afterHandlers(): Promise<void>;
  /** Stops the service and removes its data. */
  close(): Promise<void>;
}

/** Starts the service in memory (requests are injected, no port is opened) over SQLite in a temporary folder. */
export declare function startFunctionsTestService(options: FunctionsTestOptions): Promise<FunctionsTestService>;
