import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

/** Sends `path` byte for byte over a real socket (listening on a free port on first use). */
async function rawRequest(t: TestApp, method: string, path: string, body: string) {
  if (!t.app.http.server.listening) await t.app.http.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.http.server.address() as AddressInfo;
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, headers: { ...t.headers, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`§0 conventions on ${engine.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(engine, { CDS_BODY_LIMIT: '2048', CDS_MAX_PATH_LENGTH: '40', CDS_MAX_PATH_SEGMENTS: '6' });
      await t.app.http.inject({
        method: 'PUT',
        url: '/documents/docs/keep/k1',
        headers: t.headers,
        payload: { data: { original: true } },
      });
    });
    afterAll(async () => {
      await t?.close();
    });

    const stored = async () =>
      (await t.app.http.inject({ method: 'GET', url: '/documents/docs/keep/k1', headers: t.headers })).json().data;

    it('answers a body over the limit with 413 and changes nothing', async () => {
      const res = await t.app.http.inject({
        method: 'PUT',
        url: '/documents/docs/keep/k1',
        headers: { ...t.headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ data: { big: 'x'.repeat(4096) } }),
      });
      expect(res.statusCode).toBe(413);
      expect(typeof res.json().detail).toBe('string');
      expect(await stored()).toEqual({ original: true });
    });

    it('answers a body that is not application/json with 415 and changes nothing', async () => {
      const res = await t.app.http.inject({
        method: 'PUT',
        url: '/documents/docs/keep/k1',
        headers: { ...t.headers, 'content-type': 'text/plain' },
        payload: '{"data":{"changed":true}}',
      });
      expect(res.statusCode).toBe(415);
      expect(typeof res.json().detail).toBe('string');
      expect(await stored()).toEqual({ original: true });
    });

    it('answers malformed JSON with 422 located in the body and changes nothing', async () => {
      const res = await t.app.http.inject({
        method: 'PUT',
        url: '/documents/docs/keep/k1',
        headers: { ...t.headers, 'content-type': 'application/json' },
        payload: '{"data": {"changed": tru',
      });
      expect(res.statusCode).toBe(422);
      const [issue] = res.json().detail;
      expect(issue.loc[0]).toBe('body');
      expect(typeof issue.msg).toBe('string');
      expect(typeof issue.type).toBe('string');
      expect(await stored()).toEqual({ original: true });
    });

    it('lists one 422 item per problem', async () => {
      const res = await t.app.http.inject({
        method: 'GET',
        url: '/documents/query/keep?limit=0&offset=-1',
        headers: t.headers,
      });
      expect(res.statusCode).toBe(422);
      const locs = res.json().detail.map((item: { loc: string[] }) => item.loc.join('.'));
      expect(locs.sort()).toEqual(['query.limit', 'query.offset']);
    });

    it('ignores unknown body fields', async () => {
      const res = await t.app.http.inject({
        method: 'PUT',
        url: '/documents/docs/extra/e1',
        headers: t.headers,
        payload: { data: { a: 1 }, unknown: 'ignored' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual({ a: 1 });
    });

    it.each([
      ['/documents/docs/a/../b/c', 'Invalid path segment'],
      ['/documents/docs/a/./b/c', 'Invalid path segment'],
      ['/documents/docs/a/%2E%2E', 'Invalid path segment'],
    ])('rejects %s with 400 (sent as is, over a socket)', async (path, detail) => {
      // URL parsers (fetch, inject) resolve dot segments before sending; a raw request does not.
      const res = await rawRequest(t, 'PUT', path, JSON.stringify({ data: {} }));
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ detail });
    });

    it.each([
      [`/documents/docs/${'x'.repeat(30)}/${'y'.repeat(11)}`, 'Path too long'],
      ['/documents/docs/a/b/c/d/e/f/g/h', 'Path too long'],
    ])('rejects %s with 400', async (url, detail) => {
      const res = await t.app.http.inject({ method: 'PUT', url, headers: t.headers, payload: { data: {} } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ detail });
    });

    it('rejects a NUL character in a path with 400', async () => {
      const res = await t.app.http.inject({
        method: 'PUT',
        url: '/documents/docs/a/b%00c',
        headers: t.headers,
        payload: {},
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ detail: 'Invalid path segment' });
    });

    it.each([
      ['a NUL character', '{"data":{"text":"a\\u0000b"}}'],
      ['a NUL character in a key', '{"data":{"a\\u0000":1}}'],
      ['a lone surrogate', '{"data":{"text":"\\ud800"}}'],
    ])('rejects data holding %s with 422 and changes nothing', async (_name, payload) => {
      const res = await t.app.http.inject({
        method: 'PUT',
        url: '/documents/docs/keep/k1',
        headers: { ...t.headers, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['body', 'data']);
      expect(await stored()).toEqual({ original: true });
    });

    it('checks the path limits on the normalized path', async () => {
      const res = await t.app.http.inject({
        method: 'PUT',
        url: `/documents/docs/////${'x'.repeat(18)}///${'y'.repeat(18)}////`,
        headers: t.headers,
        payload: { data: {} },
      });
      expect(res.statusCode).toBe(200);
    });

    it('echoes x-request-id, or makes one', async () => {
      const echoed = await t.app.http.inject({
        method: 'GET',
        url: '/healthz',
        headers: { 'x-request-id': 'abc-123' },
      });
      expect(echoed.headers['x-request-id']).toBe('abc-123');
      const made = await t.app.http.inject({ method: 'GET', url: '/healthz' });
      expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const failed = await t.app.http.inject({ method: 'GET', url: '/documents/docs/a/b' });
      expect(failed.statusCode).toBe(401);
      expect(failed.headers['x-request-id']).toBeTruthy();
    });

    it('answers JSON with a detail for unknown routes', async () => {
      const res = await t.app.http.inject({ method: 'GET', url: '/nope' });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual({ detail: 'Not Found' });
    });

    it('serves /healthz and /readyz without auth', async () => {
      const health = await t.app.http.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      expect(health.json()).toEqual({ status: 'ok' });
      const ready = await t.app.http.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'ok', checks: { database: 'ok' } });
    });

    it('checks credentials before parsing the body', async () => {
      const res = await t.app.http.inject({
        method: 'PUT',
        url: '/documents/docs/keep/k1',
        headers: { 'content-type': 'application/json' },
        payload: '{not json',
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ detail: 'Invalid client credentials' });
    });
  });
}
