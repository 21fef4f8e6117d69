/**
 * `client-data-service/functions`: what an operator's module of server functions imports (§16).
 *
 *   import { defineFunctions, reject } from 'client-data-service/functions';
 *   export default defineFunctions({ projects: '*', rpc: { echo: async (ctx, input) => input } });
 */
import type { AdminApi } from '../core/functions/admin-api.js';
import {
  type FunctionContext as Context,
  defineFunctions as define,
  type FunctionsDefinition,
  type RpcFunction,
  type ScheduledFunction,
} from '../core/functions/functions-module.js';

export type {
  AdminApi,
  AdminDocument,
  AdminHistoryOptions,
  AdminQueryOptions,
  AdminWriteOptions,
} from '../core/functions/admin-api.js';
export { HttpError } from '../core/functions/admin-api.js';
export type {
  DocumentWriteArgument,
  FunctionCaller,
  FunctionLog,
  StoredDocumentArgument,
} from '../core/functions/functions-module.js';
export { reject } from '../core/functions/functions-module.js';
export type { JsonObject, JsonValue } from '../core/json.js';

/** What every function receives first: project, caller, request id, log, clock and the server API. */
export type FunctionContext = Context<AdminApi>;
/** An RPC of a module. */
export type Rpc = RpcFunction<AdminApi>;
/** A schedule of a module: `{cron, run}`. */
export type Schedule = ScheduledFunction<AdminApi>;
/** A module's definition. */
export type Functions = FunctionsDefinition<AdminApi>;

/** The definition of a module of server functions: its default export. */
export function defineFunctions(definition: Functions): Functions {
  return define(definition);
}
