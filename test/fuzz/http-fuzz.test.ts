/**
 * Property-based fuzzing of every HTTP route (§0): each operation of the app's OpenAPI document
 * gets generated paths, query strings, headers and bodies, in process (`inject`), on each engine.
 * Invariants: never a 5xx, always §0's error shape, and a refused request changes nothing (the §8
 * export of both projects it may touch is identical before and after). Routes Fastify registered
 * outside the document must be named below, so a new route cannot escape the fuzzing.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOKUPS } from '../../src/core/where.js';
import { createAdmin, orgOf } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';
import { definition } from '../support/leaderboards.js';
import { contentType, hostileBodyAround, rawPath, rawSegment, segmentParam } from './inputs.js';
import { type Answer, contractProblem, FUZZ_SEED, fuzzRuns } from './invariants.js';
import { nearSchema, type Operation, operationsOf, registeredRoutes } from './operations.js';

/** Registered routes that are not in the OpenAPI document, and why they are not fuzzed here. */
const OUTSIDE_DOCUMENT: Record<string, string> = {
  'GET /docs': 'the Swagger UI page (static)',
  'GET /docs/static/index.html': 'the Swagger UI page (static)',
  'GET /docs/static/swagger-initializer.js': 'the Swagger UI page (static)',
  'GET /docs/{*}': 'the Swagger UI assets (static)',
  'GET /docs/json': 'the OpenAPI document (read by this suite)',
  'GET /docs/yaml': 'the OpenAPI document',
  'GET /asyncapi.json': 'the AsyncAPI document of the WebSocket (static, no input)',
  'GET /metrics': 'Prometheus text, no input',
  'GET /realtime/ws': 'the WebSocket upgrade: fuzzed by ws-fuzz.test.ts',
  'GET /admin/projects/{project_id}/realtime/ws':
    'the admin WebSocket upgrade (§13): tested by admin-realtime-ws.test.ts',
  'GET /documents/docs': 'the empty path of /documents/docs/{*} (generated paths include it)',
  'PUT /documents/docs': 'the empty path of /documents/docs/{*}',
  'PATCH /documents/docs': 'the empty path of /documents/docs/{*}',
  'DELETE /documents/docs': 'the empty path of /documents/docs/{*}',
  'GET /document-store/{org_id}/{project_id}/docs': 'the empty path of …/docs/{*}',
  'PUT /document-store/{org_id}/{project_id}/docs': 'the empty path of …/docs/{*}',
  'PATCH /document-store/{org_id}/{project_id}/docs': 'the empty path of …/docs/{*}',
  'DELETE /document-store/{org_id}/{project_id}/docs': 'the empty path of …/docs/{*}',
  'PUT /admin/projects/{project_id}/realtime/db': 'the root of …/realtime/db/{*} (generated paths include it)',
  'PATCH /admin/projects/{project_id}/realtime/db': 'the root of …/realtime/db/{*}',
  'DELETE /admin/projects/{project_id}/realtime/db': 'the root of …/realtime/db/{*}',
  'OPTIONS /{*}': 'CORS preflights (@fastify/cors): test/http/cors.test.ts',
  'GET /console': 'the web console page (static files)',
  'GET /console/{*}': 'the web console assets (static files)',
};

/**
 * Requests per operation: PostgreSQL's export costs more, so it gets half as many by default.
 * 12 × 94 operations on SQLite and 6 × 94 on PostgreSQL by default (`CDS_FUZZ_RUNS=200` for more).
 */
const RUNS = { sqlite: fuzzRuns(12), postgres: fuzzRuns(6) };

/** Every lookup of §2 and one that does not exist. */
const WHERE_LOOKUPS = [...LOOKUPS, 'x'];
const whereClause = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('age', 'a__b', 'name', '', '__', 'x'.repeat(300)),
      fc.constantFrom(...WHERE_LOOKUPS),
      rawSegment,
    )
    .map(([field, lookup, value]) => `${field}__${lookup}:${value}`),
  rawSegment,
);

interface Fixture {
  t: TestApp;
  operations: Operation[];
  resolve: (schema: Record<string, unknown>) => Record<string, unknown>;
  /** Headers of the route's usual caller. */
  callerOf: (op: Operation) => Record<string, string>;
  /** Other credentials: none, wrong, another project's, malformed. */
  strangers: Record<string, string>[];
  known: (name: string) => fc.Arbitrary<unknown> | null;
  exports: () => Promise<string>;
}

async function fixture(t: TestApp): Promise<Fixture> {
  const document = (await t.app.http.inject({ url: '/docs/json' })).json();
  const { operations, resolve } = operationsOf(document);
  // Player routes act on project A (the test app's), admin routes on project B of another
  // organisation, so that no generated admin call can lock the player out.
  const b = await t.otherProject();
  const orgA = await orgOf(t, t.project.projectId);
  const orgB = await orgOf(t, b.project.projectId);
  const admin = await createAdmin(t, orgB, 'owner');
  const { leaderboards, accounts } = t.app.services;
  await leaderboards.create(t.project.projectId, definition('score'));
  await leaderboards.create(b.project.projectId, definition('score'));
  const bUser = (await accounts.createUser(b.project.projectId, { username: 'b_user', password: 'password-123' })).id;
  const client = { 'x-client-id': t.project.clientId, 'x-client-secret': t.project.clientSecret };
  const knownValues: Record<string, unknown[]> = {
    project_id: [b.project.projectId, t.project.projectId],
    org_id: [orgB, orgA],
    slug: ['score', 'missing'],
    collection: ['c', 'users'],
    user_id: [bUser, t.userId],
    client_id: [b.project.clientId],
    name: ['player', 'new_role'],
    path: ['c/d', 'c', 'a/b/c/d'],
    parent_path: ['c/d', 'c'],
    league: ['global'],
    where: [],
    username: ['player_main', 'someone_new'],
    password: ['password-123'],
    data: [{ a: 1 }, {}],
    value: [1, { a: { b: 2 } }, null],
  };
  return {
    t,
    operations,
    resolve,
    callerOf: (op) => {
      if (op.path.startsWith('/admin/auth')) return {};
      if (op.path.startsWith('/admin') || op.path.startsWith('/document-store')) return admin.headers;
      if (op.path.startsWith('/auth/') && op.path !== '/auth/me') return client;
      return t.headers;
    },
    strangers: [
      {},
      client,
      { ...client, 'x-client-secret': 'wrong' },
      { ...t.headers, authorization: 'Bearer not.a.jwt' },
      { ...t.headers, authorization: 'Basic eDp5' },
      { ...t.headers, authorization: b.headers.authorization as string },
      b.headers,
      admin.headers,
      { ...admin.headers, authorization: t.headers.authorization as string },
    ],
    known: (name) => {
      if (name === 'where') return fc.oneof(whereClause, fc.array(whereClause, { maxLength: 22 }));
      const values = knownValues[name];
      return values && values.length > 0 ? fc.constantFrom(...values) : null;
    },
    exports: async () => {
      const { transfer } = t.app.services;
      return JSON.stringify([
        await transfer.exportProject(t.project.projectId),
        await transfer.exportProject(b.project.projectId),
      ]);
    },
  };
}

/** A query parameter's value as raw URL text. */
function queryValue(f: Fixture, name: string, schema: Record<string, unknown>): fc.Arbitrary<string> {
  const known = f.known(name);
  const typed = nearSchema(schema, f.resolve, () => null).map((v) =>
    typeof v === 'string' ? encodeURIComponent(v) : encodeURIComponent(JSON.stringify(v) ?? ''),
  );
  const arbs = [typed, rawSegment];
  if (known) arbs.push(known.map((v) => encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))));
  return fc.oneof(...arbs);
}

/** A request to `op`: URL, headers and body. */
function requestTo(f: Fixture, op: Operation) {
  const params = op.pathParams.map((name) =>
    name === '*' ? rawPath : segmentParam((knownList(f, name) ?? []).map(String)),
  );
  const declared = op.query.map(({ name, schema }) =>
    fc.option(
      fc.array(queryValue(f, name, schema), { minLength: 1, maxLength: 2 }).map((vs) => vs.map((v) => `${name}=${v}`)),
      {
        freq: 2,
      },
    ),
  );
  const extra = fc.array(
    fc.tuple(rawSegment, rawSegment).map(([k, v]) => `${k}=${v}`),
    { maxLength: 2 },
  );
  const headers = fc.oneof(
    { arbitrary: fc.constant(f.callerOf(op)), weight: 8 },
    { arbitrary: fc.constantFrom(...f.strangers), weight: 2 },
  );
  const requestId = fc.option(fc.string({ unit: 'grapheme-ascii', maxLength: 80 }), { freq: 4 });
  const bodyKnown = op.body ? nearSchema(op.body, f.resolve, f.known) : fc.jsonValue({ maxDepth: 2 });
  const fields = Object.keys((f.resolve(op.body ?? {}).properties ?? {}) as object);
  const body = fc.option(fc.tuple(hostileBodyAround(bodyKnown, fields), contentType), { freq: op.body ? 12 : 3 });
  return fc.record({ params: fc.tuple(...params), query: fc.tuple(...declared), extra, headers, requestId, body });
}

function knownList(f: Fixture, name: string): unknown[] | null {
  const values: unknown[] = [];
  const arb = f.known(name);
  if (!arb) return null;
  for (const v of fc.sample(arb, { numRuns: 8, seed: FUZZ_SEED })) if (!values.includes(v)) values.push(v);
  return values;
}

type Request = ReturnType<typeof requestTo> extends fc.Arbitrary<infer R> ? R : never;

function urlOf(op: Operation, request: Request): string {
  let i = 0;
  const path = op.path.replace(/\{[^}]+\}/g, () => request.params[i++] as string);
  const query = [...request.query.flatMap((q) => q ?? []), ...request.extra];
  return query.length > 0 ? `${path}?${query.join('&')}` : path;
}

/** The request in a failure message: method, URL, content type and the start of the body. */
function describeRequest(op: Operation, request: Request): string {
  const body = request.body ? ` [${request.body[1]}] ${request.body[0].slice(0, 160)}` : '';
  return `${op.method} ${urlOf(op, request).slice(0, 200)}${body}`;
}

async function send(f: Fixture, op: Operation, request: Request): Promise<Answer> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.requestId !== null) headers['x-request-id'] = request.requestId;
  let payload: string | undefined;
  if (request.body) {
    const [text, type] = request.body;
    payload = text;
    if (type !== null) headers['content-type'] = type;
  }
  const res = await f.t.app.http.inject({
    method: op.method as 'GET',
    url: urlOf(op, request),
    headers,
    ...(payload === undefined ? {} : { payload }),
  });
  return { statusCode: res.statusCode, headers: res.headers, body: res.body };
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`fuzzing every HTTP route on ${engine.name}`, () => {
    let f: Fixture;
    beforeAll(async () => {
      f = await fixture(await startTestApp(engine));
    });
    afterAll(async () => {
      await f?.t.close();
    });

    it('fuzzes every registered route: each is in the OpenAPI document or named as fuzzed elsewhere', () => {
      const documented = new Set(f.operations.map((op) => `${op.method} ${op.path}`));
      const missing = registeredRoutes(f.t.app.http).filter((r) => !documented.has(r) && !(r in OUTSIDE_DOCUMENT));
      expect(missing).toEqual([]);
      expect(f.operations.length).toBeGreaterThan(40);
    });

    it(`keeps §0 on ${RUNS[engine.name]} generated requests per operation (seed ${FUZZ_SEED})`, async () => {
      const failures: string[] = [];
      let baseline = await f.exports();
      let cases = 0;
      for (const op of f.operations) {
        const details = await fc.check(
          fc.asyncProperty(requestTo(f, op), async (request) => {
            cases += 1;
            const answer = await send(f, op, request);
            const problem = contractProblem(answer);
            if (problem) throw new Error(`${describeRequest(op, request)}: ${problem}`);
            const after = await f.exports();
            if (answer.statusCode >= 400 && after !== baseline) {
              baseline = after;
              throw new Error(
                `${describeRequest(op, request)}: refused with ${answer.statusCode} but changed the export`,
              );
            }
            baseline = after;
          }),
          { numRuns: RUNS[engine.name], seed: FUZZ_SEED, endOnFailure: true },
        );
        if (details.failed)
          failures.push(
            `${op.method} ${op.path}: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
          );
      }
      console.info(
        `[fuzz] ${engine.name}: ${f.operations.length} operations × ${RUNS[engine.name]} runs = ${cases} requests, seed ${FUZZ_SEED}`,
      );
      expect(failures).toEqual([]);
    }, 600_000);
  });
}
