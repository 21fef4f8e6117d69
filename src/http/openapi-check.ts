/**
 * Checks an OpenAPI document built from the route schemas: every operation must describe its
 * input and its answers, so clients can be generated from it and CI catches a route without
 * schemas (`npm run docs:check`, and a test in `npm test`).
 */

/** The parts of an OpenAPI 3.1 document the check reads. */
export interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation | unknown>>;
}

/** The parts of one operation the check reads. */
export interface OpenApiOperation {
  parameters?: { in: string; name: string; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  security?: unknown[];
}

/** One problem: which operation and what it lacks. */
export interface OpenApiProblem {
  operation: string;
  problem: string;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];
const BODY_METHODS = ['put', 'post', 'patch'];

function hasSchema(entry: { content?: Record<string, { schema?: unknown }> } | undefined): boolean {
  return Object.values(entry?.content ?? {}).some((media) => media.schema !== undefined);
}

/** The problems of one operation. */
function operationProblems(path: string, method: string, op: OpenApiOperation): string[] {
  const problems: string[] = [];
  const responses = op.responses ?? {};
  const statuses = Object.keys(responses);
  const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const declared = new Set((op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name));
  const query = (op.parameters ?? []).filter((p) => p.in === 'query');
  const body = BODY_METHODS.includes(method);

  for (const name of pathParams) {
    if (!declared.has(name as string)) problems.push(`no schema for path parameter '${name}'`);
  }
  if (body && !hasSchema(op.requestBody)) problems.push('no request body schema');
  const success = statuses.filter((s) => /^2\d\d$/.test(s));
  if (!success.some((s) => hasSchema(responses[s]))) problems.push('no success (2xx) response schema');
  for (const status of statuses) {
    // Fastify's swagger adds an empty `200` to a route without response schemas: reported above.
    if (!hasSchema(responses[status]) && success.some((s) => hasSchema(responses[s]))) {
      problems.push(`response ${status} has no schema`);
    }
  }
  const required = [
    ...(body ? ['413', '415', '422'] : []),
    ...(query.length > 0 ? ['422'] : []),
    ...(op.security && op.security.length > 0 ? ['401'] : []),
  ];
  const takesInput = body || query.length > 0 || pathParams.length > 0;
  // Rate limits (when configured) answer every route but the health checks, which take nothing.
  if (takesInput || (op.security && op.security.length > 0)) required.push('429');
  if (takesInput && !statuses.some((s) => /^4\d\d$/.test(s))) problems.push('takes input but documents no 4xx error');
  for (const status of new Set(required)) {
    if (!statuses.includes(status)) problems.push(`no ${status} error response schema`);
  }
  return problems;
}

/** Every operation of the document that lacks a request or response schema, in document order. */
export function openApiProblems(document: OpenApiDocument): OpenApiProblem[] {
  const problems: OpenApiProblem[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      for (const problem of operationProblems(path, method, op as OpenApiOperation)) {
        problems.push({ operation: `${method.toUpperCase()} ${path}`, problem });
      }
    }
  }
  return problems;
}
