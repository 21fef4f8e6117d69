import Type from 'typebox';

export const FunctionParams = Type.Object({
  name: Type.String({ description: 'The function’s name, as its module defines it under `rpc`' }),
});

export const FunctionBody = Type.Unknown({ description: 'Any JSON: the function’s input (no body: null)' });

export const FunctionResultSchema = Type.Object(
  { result: Type.Unknown({ description: 'What the function returned (null for nothing)' }) },
  { additionalProperties: false },
);

export const functionRouteDescription =
  'Calls a server function of the project: a player token with `client.functions` (the default `player` role has it) ' +
  'and client credentials, or a server key alone. The body is the input (any JSON; none is null); the answer is ' +
  '`{"result": …}`. Unknown name: 404 `Function not found` (the permission is checked first: 403 without it). A ' +
  'function’s `reject(status, detail)` answers that status (400–499) with `{"detail"}`; any other error answers 500 ' +
  '`Function failed` (the error goes to the service log with the request id); past `CDS_FUNCTION_TIMEOUT_MS` (default ' +
  '10000) 504 `Function timed out`.';

const names = (what: string) => Type.Array(Type.String(), { description: what });

/** One loaded module serving the project, as `cds functions list` shows it, without its `projects`. */
export const FunctionModuleSchema = Type.Object(
  {
    file: Type.String({ description: 'The module’s file name in `CDS_FUNCTIONS_DIR`' }),
    rpc: names('Its RPC names, sorted'),
    before: Type.Optional(names('Its before hooks (`documents.write`, …), sorted')),
    after: Type.Optional(names('Its event handlers, sorted')),
    schedule: Type.Optional(names('Its schedules, sorted')),
  },
  // What later versions add to a module's listing comes through as further lists of names.
  { additionalProperties: names('Other functions of the module, by kind') },
);

export const FunctionCallCountSchema = Type.Object(
  {
    name: Type.String({ description: 'The function’s name: an RPC’s is its name' }),
    outcome: Type.Union(
      [Type.Literal('ok'), Type.Literal('rejected'), Type.Literal('failed'), Type.Literal('timed_out')],
      {
        description: '`ok` (returned), `rejected` (`reject(…)`), `failed` (500), `timed_out` (504)',
      },
    ),
    count: Type.Integer({ minimum: 1, description: 'Runs with that outcome since this instance started' }),
  },
  { additionalProperties: false },
);

export const ProjectFunctionsSchema = Type.Object(
  {
    modules: Type.Array(FunctionModuleSchema, { description: 'The modules serving this project, in file order' }),
    calls: Type.Array(FunctionCallCountSchema, {
      description:
        'This project’s function runs counted by the instance that answers (since it started), by name then outcome; ' +
        'unknown names are not counted',
    }),
  },
  { additionalProperties: false },
);

export const projectFunctionsDescription =
  'The server functions (§16) loaded for the project: each module serving it (its file name, RPC names, hooks, …) and ' +
  'the calls counted for it by the instance that answers since it started, from the observations behind ' +
  '`cds_function_calls_total` (counts are per instance, not summed over a cluster). Any admin role, and the ' +
  'project’s server keys. A project of another organisation answers 404 `Project not found`.';
