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
