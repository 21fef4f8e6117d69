/**
 * The user documentation in `docs/` describes everything the service offers: every route of the
 * OpenAPI document (`/docs/json`), and every address, client action and server event of the
 * AsyncAPI document (`/asyncapi.json`). The convention, stated in docs/README.md:
 *
 * - a route is described when `` `METHOD /path` `` appears on a heading line (`#`) or a table row
 *   (`|`) of some docs/*.md file; parameter names need not match (`{path}` stands for `{*}`);
 * - every such mention names a route of the OpenAPI document, or one it leaves out on purpose;
 * - every socket address appears as `` `GET <address>` `` the same way, and every action and event
 *   as `` `name` `` in the first cell of a table row of docs/websocket.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { sqliteEngine } from '../support/engines.js';

const DOCS = join(import.meta.dirname, '../../docs');
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
const ROUTE_MENTION = /`(GET|PUT|POST|PATCH|DELETE) (\/[^`\s]*)`/g;
const FIRST_CELL_NAME = /^\|\s*`([A-Za-z_]+)`\s*\|/;

/** Routes the OpenAPI document leaves out on purpose (besides the WebSocket upgrades). */
const OUTSIDE_OPENAPI = ['GET /metrics', 'GET /docs', 'GET /docs/json', 'GET /asyncapi.json', 'GET /console'];

/** `GET /documents/docs/{*}` and `GET /documents/docs/{path}` are one route: parameter names are free. */
function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}')}`;
}

/** The lines of Markdown `text` the convention reads: headings and table rows. */
function describingLines(text: string): string[] {
  return text.split('\n').filter((line) => /^\s*(#|\|)/.test(line));
}

/** Every `METHOD /path` on a heading or table row of the given Markdown texts, as route keys. */
function documentedRoutes(texts: readonly string[]): Set<string> {
  const found = new Set<string>();
  for (const text of texts) {
    for (const line of describingLines(text)) {
      for (const match of line.matchAll(ROUTE_MENTION)) found.add(routeKey(match[1] as string, match[2] as string));
    }
  }
  return found;
}

/** Every `` `name` `` in the first cell of a table row. */
function tableNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of describingLines(text)) {
    const match = FIRST_CELL_NAME.exec(line.trim());
    if (match) names.add(match[1] as string);
  }
  return names;
}

interface OpenApi {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], unknown>>>;
}

interface AsyncApi {
  /** A message is given whole, or as a `$ref` to one given whole (the admin socket's). */
  channels: Record<string, { address: string; messages: Record<string, { payload?: Payload }> }>;
}

interface Payload {
  anyOf?: Payload[];
  properties?: Record<string, { const?: string }>;
}

/** The routes of an OpenAPI document, as `METHOD /path` with its own parameter names. */
function openApiRoutes(document: OpenApi): string[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    METHODS.filter((method) => operations[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** The `action` or `event` constants of every message of every channel. */
function asyncApiNames(document: AsyncApi, key: 'action' | 'event'): string[] {
  const names = new Set<string>();
  for (const channel of Object.values(document.channels)) {
    for (const message of Object.values(channel.messages)) {
      const payload = message.payload;
      if (!payload) continue;
      for (const each of payload.anyOf ?? [payload]) {
        const name = each.properties?.[key]?.const;
        if (name) names.add(name);
      }
    }
  }
  return [...names].sort();
}

/** What the docs leave undescribed, and what they describe that does not exist. */
function docsProblems(openapi: OpenApi, asyncapi: AsyncApi, docs: Record<string, string>) {
  const documented = documentedRoutes(Object.values(docs));
  const routes = openApiRoutes(openapi);
  const addresses = Object.values(asyncapi.channels).map((channel) => `GET ${channel.address}`);
  const known = new Set([...routes, ...addresses, ...OUTSIDE_OPENAPI].map((route) => routeKey(...splitRoute(route))));
  const websocket = tableNames(docs['websocket.md'] ?? '');
  const messages = [...asyncApiNames(asyncapi, 'action'), ...asyncApiNames(asyncapi, 'event')];
  return {
    undescribedRoutes: routes.filter((route) => !documented.has(routeKey(...splitRoute(route)))),
    undescribedAddresses: addresses.filter((route) => !documented.has(routeKey(...splitRoute(route)))),
    undescribedMessages: messages.filter((name) => !websocket.has(name)),
    unknownRoutes: [...documented].filter((route) => !known.has(route)).sort(),
  };
}

function splitRoute(route: string): [string, string] {
  const space = route.indexOf(' ');
  return [route.slice(0, space), route.slice(space + 1)];
}

/** docs/*.md by file name. */
function readDocs(): Record<string, string> {
  const files = readdirSync(DOCS).filter((file) => file.endsWith('.md'));
  return Object.fromEntries(files.map((file) => [file, readFileSync(join(DOCS, file), 'utf8')]));
}

describe('docs/ describes every route, socket and message of the service', () => {
  let t: TestApp;
  let openapi: OpenApi;
  let asyncapi: AsyncApi;
  const docs = readDocs();

  beforeAll(async () => {
    t = await startTestApp(sqliteEngine);
    const openApiAnswer = await t.app.http.inject({ method: 'GET', url: '/docs/json' });
    const asyncApiAnswer = await t.app.http.inject({ method: 'GET', url: '/asyncapi.json' });
    expect(openApiAnswer.statusCode).toBe(200);
    expect(asyncApiAnswer.statusCode).toBe(200);
    openapi = openApiAnswer.json();
    asyncapi = asyncApiAnswer.json();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has an index and a page for the WebSocket', () => {
    expect(Object.keys(docs)).toEqual(expect.arrayContaining(['README.md', 'websocket.md']));
  });

  it('describes every HTTP route of the OpenAPI document', () => {
    expect(openApiRoutes(openapi).length).toBeGreaterThan(50);
    expect(docsProblems(openapi, asyncapi, docs).undescribedRoutes).toEqual([]);
  });

  it('names no route the service does not have', () => {
    expect(docsProblems(openapi, asyncapi, docs).unknownRoutes).toEqual([]);
  });

  it('describes every WebSocket address, client action and server event of the AsyncAPI document', () => {
    const problems = docsProblems(openapi, asyncapi, docs);
    expect(asyncApiNames(asyncapi, 'action')).toContain('subscribe');
    expect(asyncApiNames(asyncapi, 'event')).toContain('changes');
    expect(problems.undescribedAddresses).toEqual([]);
    expect(problems.undescribedMessages).toEqual([]);
  });

  it('fails when one route, address or message loses its description', () => {
    const without = (text: string, pattern: RegExp) =>
      text
        .split('\n')
        .filter((line) => !pattern.test(line))
        .join('\n');
    const withoutBatch = Object.fromEntries(
      Object.entries(docs).map(([file, text]) => [file, without(text, /`POST \/documents\/batch`/)]),
    );
    expect(docsProblems(openapi, asyncapi, withoutBatch).undescribedRoutes).toContain('POST /documents/batch');

    const withoutAdminSocket = Object.fromEntries(
      Object.entries(docs).map(([file, text]) => [
        file,
        without(text, /`GET \/admin\/projects\/\{project_id\}\/realtime\/ws`/),
      ]),
    );
    expect(docsProblems(openapi, asyncapi, withoutAdminSocket).undescribedAddresses).toContain(
      'GET /admin/projects/{project_id}/realtime/ws',
    );

    const websocket = without(docs['websocket.md'] ?? '', /^\|\s*`unlisten`/);
    expect(docsProblems(openapi, asyncapi, { ...docs, 'websocket.md': websocket }).undescribedMessages).toContain(
      'unlisten',
    );

    const invented = { ...docs, 'extra.md': '## `DELETE /leaderboards/{slug}`\n' };
    expect(docsProblems(openapi, asyncapi, invented).unknownRoutes).toContain('DELETE /leaderboards/{}');
  });
});
