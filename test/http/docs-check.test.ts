/**
 * `npm run docs:check` inside `npm test`: the service's OpenAPI document has a request schema for
 * every route that takes input and response schemas for every route; and the check, and the
 * response contract recorder, do catch a route that lacks them.
 */
import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenApiDocument, openApiProblems } from '../../src/http/openapi-check.js';
import { ErrorSchema } from '../../src/http/schemas/common.js';
import { createHttpApp } from '../../src/http/server.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { sqliteEngine } from '../support/engines.js';
import { ContractRecorder } from '../support/openapi-contract.js';

describe('docs check: the OpenAPI document of the service', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(sqliteEngine);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has request and response schemas for every route', () => {
    const document = t.app.http.swagger() as OpenApiDocument;
    expect(Object.keys(document.paths ?? {}).length).toBeGreaterThan(30);
    expect(openApiProblems(document)).toEqual([]);
  });

  it('lists the admin API and the admin document store', () => {
    const paths = Object.keys((t.app.http.swagger() as OpenApiDocument).paths ?? {});
    expect(paths).toEqual(
      expect.arrayContaining([
        '/admin/auth/login',
        '/admin/me',
        '/admin/orgs/{org_id}/projects',
        '/admin/projects/{project_id}',
        '/admin/projects/{project_id}/clients',
        '/admin/projects/{project_id}/clients/{client_id}/rotate',
        '/admin/projects/{project_id}/users',
        '/admin/projects/{project_id}/users/{user_id}',
        '/admin/projects/{project_id}/roles',
        '/admin/projects/{project_id}/roles/{name}',
        '/admin/projects/{project_id}/leaderboards',
        '/admin/projects/{project_id}/leaderboards/{slug}',
        '/admin/projects/{project_id}/leaderboards/{slug}/stats',
        '/admin/projects/{project_id}/leaderboards/{slug}/reset',
        '/document-store/{org_id}/{project_id}/collections',
        '/document-store/{org_id}/{project_id}/collections/{collection}',
        '/document-store/{org_id}/{project_id}/docs/{*}',
      ]),
    );
  });
});

describe('docs check: what it catches', () => {
  it('lists every route of a real app without request or response schemas', async () => {
    const app = await createHttpApp({
      bodyLimit: 1024,
      logLevel: 'silent',
      rateLimits: { perClient: 0, perIp: 0, windowMs: 60_000 },
    });
    app.get('/bare', async () => ({ ok: true }));
    app.post('/no-body/:id', { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => ({
      ok: true,
    }));
    app.put(
      '/complete/:id',
      {
        schema: {
          params: Type.Object({ id: Type.String() }),
          body: Type.Object({ x: Type.Number() }),
          response: {
            200: Type.Object({ ok: Type.Boolean() }),
            413: ErrorSchema,
            415: ErrorSchema,
            422: ErrorSchema,
            429: ErrorSchema,
          },
        },
      },
      async () => ({ ok: true }),
    );
    await app.ready();
    const problems = openApiProblems(app.swagger() as OpenApiDocument);
    await app.close();
    expect(problems).toEqual([
      { operation: 'GET /bare', problem: 'no success (2xx) response schema' },
      { operation: 'POST /no-body/{id}', problem: 'no request body schema' },
      { operation: 'POST /no-body/{id}', problem: 'takes input but documents no 4xx error' },
      { operation: 'POST /no-body/{id}', problem: 'no 413 error response schema' },
      { operation: 'POST /no-body/{id}', problem: 'no 415 error response schema' },
      { operation: 'POST /no-body/{id}', problem: 'no 422 error response schema' },
      { operation: 'POST /no-body/{id}', problem: 'no 429 error response schema' },
    ]);
  });

  it('the contract recorder fails an undocumented status, a body off its schema, and an unexercised route', () => {
    const recorder = new ContractRecorder({
      paths: {
        '/things/{id}': {
          get: {
            responses: {
              200: {
                content: {
                  'application/json': {
                    schema: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
                  },
                },
              },
              404: { content: { 'application/json': { schema: { type: 'object' } } } },
            },
          },
        },
        '/other': { get: { responses: { 200: { content: { 'application/json': { schema: {} } } } } } },
      },
    });
    recorder.record('GET', '/things/1', 200, 'application/json', { id: 1 });
    recorder.record('GET', '/things/2', 200, 'application/json', { id: 'two' });
    recorder.record('GET', '/things/3', 500, 'application/json', { detail: 'boom' });
    recorder.record('GET', '/nowhere', 200, 'application/json', {});
    expect(recorder.failures.map((f) => f.problem)).toEqual([
      expect.stringMatching(/^body does not match: .*id must be integer/),
      'GET /things/{id} has no response schema for 500',
      'no operation of the OpenAPI document matches',
    ]);
    expect(recorder.uncovered()).toEqual(['GET /things/{id}: no error', 'GET /other: no success']);
  });
});
