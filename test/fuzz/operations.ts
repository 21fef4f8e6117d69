/**
 * The routes to fuzz, read from the app itself: the operations of its OpenAPI document (with the
 * schemas of their parameters and bodies) and every route Fastify registered, so that a route
 * added later is fuzzed, or named here as fuzzed elsewhere, without editing the suite.
 */
import fc from 'fast-check';
import type { HttpApp } from '../../src/http/server.js';

type Schema = Record<string, unknown>;

/** One `METHOD path` of the OpenAPI document. */
export interface Operation {
  method: string;
  /** The template, as `/documents/docs/{*}`. */
  path: string;
  pathParams: string[];
  query: { name: string; schema: Schema }[];
  body: Schema | null;
}

interface OpenApiOperation {
  parameters?: { in: string; name: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

/** The document's operations, and a resolver of its `$ref`s. */
export function operationsOf(document: {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, Schema> };
}): { operations: Operation[]; resolve: (schema: Schema) => Schema } {
  const components = document.components?.schemas ?? {};
  const resolve = (schema: Schema): Schema => {
    const ref = schema.$ref;
    if (typeof ref !== 'string') return schema;
    return resolve(components[ref.split('/').pop() ?? ''] ?? {});
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const params = op.parameters ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
      });
    }
  }
  return { operations, resolve };
}

/**
 * `METHOD /path` of every route Fastify registered (HEAD left out: Fastify adds one per GET),
 * read from `printRoutes`: its tree is the only listing Fastify gives once routes are registered.
 */
export function registeredRoutes(http: HttpApp): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of http.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (.*?) \(([A-Z, ]+)\)$/u.exec(line);
    if (!match) continue;
    const depth = [...(match[1] as string)].length / 4;
    const segment = match[2] as string;
    stack.length = depth;
    const parent = stack[depth - 1] ?? '';
    const path = segment === '*' && !parent.endsWith('/') ? `${parent}/*` : `${parent}${segment}`;
    stack.push(path);
    const template = path.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\*$/, '{*}');
    for (const method of (match[3] as string).split(', ')) {
      if (method !== 'HEAD') routes.push(`${method} ${template}`);
    }
  }
  return routes;
}

/** Values near a JSON schema: mostly valid, each part sometimes of another type or out of range. */
export function nearSchema(
  schema: Schema,
  resolve: (schema: Schema) => Schema,
  known: (name: string) => fc.Arbitrary<unknown> | null,
  depth = 0,
): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  const wild = fc.jsonValue({ maxDepth: 2 });
  const near = (inner: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
    fc.oneof({ arbitrary: inner, weight: 9 }, { arbitrary: wild, weight: 1 });
  if (depth > 5) return wild;
  const variants = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (variants && variants.length > 0) {
    return fc.oneof(...variants.map((v) => nearSchema(v, resolve, known, depth + 1)));
  }
  if ('const' in s) return near(fc.constant(s.const));
  if (Array.isArray(s.enum) && s.enum.length > 0) return near(fc.constantFrom(...(s.enum as unknown[])));
  switch (Array.isArray(s.type) ? s.type[0] : s.type) {
    case 'string':
      return near(stringNear(s));
    case 'integer':
      return near(numberNear(s, true));
    case 'number':
      return near(numberNear(s, false));
    case 'boolean':
      return near(fc.boolean());
    case 'null':
      return near(fc.constant(null));
    case 'array': {
      const items = nearSchema((s.items as Schema) ?? {}, resolve, known, depth + 1);
      const max = Math.min(typeof s.maxItems === 'number' ? s.maxItems + 1 : 4, 4);
      return near(fc.array(items, { maxLength: max }));
    }
    case 'object':
      return near(objectNear(s, resolve, known, depth));
    default:
      return wild;
  }
}

function objectNear(
  s: Schema,
  resolve: (schema: Schema) => Schema,
  known: (name: string) => fc.Arbitrary<unknown> | null,
  depth: number,
): fc.Arbitrary<unknown> {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required ?? []) as string[]);
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    const own = known(name);
    const generated = nearSchema(property, resolve, known, depth + 1);
    fields[name] = own ? fc.oneof({ arbitrary: own, weight: 2 }, { arbitrary: generated, weight: 1 }) : generated;
  }
  const requiredKeys = Object.keys(fields).filter((k) => required.has(k));
  const record = fc.record(fields, { requiredKeys });
  // Required fields sometimes missing, unknown fields sometimes added.
  return fc.oneof(
    { arbitrary: record, weight: 8 },
    { arbitrary: fc.record(fields, { requiredKeys: [] }), weight: 1 },
    {
      arbitrary: fc
        .tuple(record, fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }))
        .map(([r, extra]) => ({ ...extra, ...(r as object) })),
      weight: 1,
    },
  );
}

function stringNear(s: Schema): fc.Arbitrary<string> {
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : 24;
  return fc.oneof(
    { arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, min + 24) }), weight: 6 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }), weight: 2 },
    { arbitrary: fc.constantFrom('', ' ', '\u0000', 'null', '..', '/', 'a/b', '%', 'x'.repeat(max + 1)), weight: 2 },
  );
}

function numberNear(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const edges = [0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 53), Number.MAX_VALUE, 1e-300];
  for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
    const bound = s[key];
    if (typeof bound === 'number') edges.push(bound - 1, bound, bound + 1);
  }
  return fc.oneof(
    { arbitrary: fc.integer({ min: -1000, max: 1000 }), weight: 4 },
    { arbitrary: fc.constantFrom(...edges), weight: 3 },
    { arbitrary: integer ? fc.constant(0.5) : fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 1 },
  );
}
