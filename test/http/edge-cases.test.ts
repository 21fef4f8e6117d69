/**
 * Contract edges a new user found (issue 18): the empty document path, `iexact` on a non-string,
 * a 413 a streaming client can read, and values nested deeper than §0's 64 levels — refused with
 * 422 at any depth, on every route and action that takes one, never a 500.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmin, orgOf } from '../support/admin.js';
import { engines } from '../support/engines.js';
import { sendExpectingContinue } from '../support/expect-continue.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';
import { MemoryRulesSource } from '../support/rules.js';

/** `levels` arrays nested one in another around `1`, as JSON text (`[1]` is 1 level). */
const nestedArrays = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

const TOO_DEEP_ITEM = (field: string) => ({
  loc: ['body', field],
  msg: 'Values may nest at most 64 levels of objects and arrays',
  type: 'too_deep',
});

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`contract edges on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    let rules: MemoryRulesSource;
    let ruled: Record<string, string>;
    let base = '';
    beforeAll(async () => {
      rules = new MemoryRulesSource();
      t = await startRealtimeApp(engine, {}, { rules });
      const { port } = t.app.http.server.address() as AddressInfo;
      base = `http://127.0.0.1:${port}`;
      const other = await t.otherProject();
      ruled = other.headers;
      const open = { allow: { read: 'true', write: 'true' } };
      rules.set(other.project.projectId, {
        documents: [{ match: '{document=**}', allow: { read: 'true', write: 'request.resource.data.size() >= 0' } }],
        realtime: [{ match: '{path=**}', ...open }],
      });
    });
    afterAll(async () => {
      await t?.close();
    });

    const send = (method: string, url: string, body?: string, headers = t.headers) =>
      t.app.http.inject({
        method: method as 'GET',
        url,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { payload: body }),
      });

    it('answers the empty document path with the §2 400 on PUT, GET, PATCH and DELETE', async () => {
      const detail = 'Path must point to a document (even number of segments)';
      for (const url of ['/documents/docs/', '/documents/docs', '/documents/docs//']) {
        for (const method of ['PUT', 'GET', 'PATCH', 'DELETE']) {
          const body = method === 'PUT' || method === 'PATCH' ? '{"data":{}}' : undefined;
          const res = await send(method, url, body);
          expect([method, url, res.statusCode, res.json()]).toEqual([method, url, 400, { detail }]);
        }
      }
    });

    it('answers the empty path with the 400 on the admin document store too', async () => {
      const orgId = await orgOf(t, t.project.projectId);
      const owner = await createAdmin(t, orgId, 'owner');
      const res = await send('GET', `/document-store/${orgId}/${t.project.projectId}/docs/`, undefined, owner.headers);
      expect(res.statusCode).toBe(400);
    });

    it('matches iexact only when both sides are strings', async () => {
      await send('PUT', '/documents/docs/ages/text', '{"data":{"age":"30","name":"Ann"}}');
      await send('PUT', '/documents/docs/ages/number', '{"data":{"age":30,"name":"ann"}}');
      const paths = async (where: string) =>
        (await send('GET', `/documents/query/ages?where=${where}`))
          .json()
          .documents.map((d: { path: string }) => d.path);
      expect(await paths('age__iexact:30')).toEqual([]);
      expect(await paths('age__iexact:true')).toEqual([]);
      expect(await paths('name__iexact:ANN')).toEqual(['ages/number', 'ages/text']);
      expect(await paths('age__exact:30')).toEqual(['ages/number']);
      expect((await send('GET', '/documents/query/ages?where=age__iexact:30&parent_path=a')).statusCode).toBe(400);
    });

    // Reported as an EPIPE "sometimes"; not reproduced here (Node 20 reads and drops the rest of a
    // refused body before closing), so this guards the answer staying readable.
    it('lets a client streaming a body just over 1 MiB read the 413', async () => {
      const body = JSON.stringify({ data: { big: 'x'.repeat(1024 * 1024 + 10) } });
      for (let attempt = 0; attempt < 5; attempt++) {
        const res = await fetch(`${base}/documents/docs/big/b1`, {
          method: 'PUT',
          headers: { ...t.headers, 'content-type': 'application/json' },
          body,
        });
        expect(res.status).toBe(413);
        expect(await res.json()).toEqual({ detail: 'Request body is too large' });
      }
      // Without a content-length, the body is refused while it streams; the answer still arrives.
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 40; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)));
          controller.close();
        },
      });
      const streamed = await fetch(`${base}/documents/docs/big/b2`, {
        method: 'PUT',
        headers: { ...t.headers, 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(streamed.status).toBe(413);
      expect((await send('GET', '/documents/docs/big/b1')).statusCode).toBe(404);
    });

    const expecting = (url: string, body: string, headers = t.headers) =>
      sendExpectingContinue('PUT', `${base}${url}`, body, headers);

    it('answers a body over the limit sent with Expect: 100-continue with the 413 before any 100 Continue', async () => {
      const big = JSON.stringify({ data: { big: 'x'.repeat(1.5 * 1024 * 1024) } });
      for (let attempt = 0; attempt < 3; attempt++) {
        const refused = await expecting('/documents/docs/big/b3', big);
        expect(refused).toEqual({ continued: false, status: 413, body: '{"detail":"Request body is too large"}' });
      }
      // Credentials refused are answered before the body too.
      const stranger = await expecting('/documents/docs/big/b3', big, { ...t.headers, authorization: 'Bearer x' });
      expect([stranger.continued, stranger.status]).toEqual([false, 401]);
      // A body within the limit gets its 100 Continue, then is read and stored.
      const small = await expecting('/documents/docs/big/b3', '{"data":{"small":true}}');
      expect([small.continued, small.status]).toEqual([true, 200]);
      expect(JSON.parse(small.body)).toMatchObject({ path: 'big/b3', data: { small: true } });
    });

    it('stores document data of 64 levels and refuses 65 and 100,000 levels with 422, rules or not', async () => {
      const ok = await send('PUT', '/documents/docs/deep/d64', `{"data":{"a":${nestedArrays(63)}}}`);
      expect(ok.statusCode).toBe(200);
      for (const headers of [t.headers, ruled]) {
        for (const levels of [64, 1000, 100_000]) {
          const data = `{"a":${nestedArrays(levels)}}`;
          for (const [method, url, body] of [
            ['PUT', '/documents/docs/deep/d', `{"data":${data}}`],
            ['PATCH', '/documents/docs/deep/d64', `{"data":${data}}`],
            ['POST', '/documents/collections/deep', `{"data":${data}}`],
          ] as const) {
            const res = await send(method, url, body, headers);
            expect([method, levels, res.statusCode, res.json()]).toEqual([
              method,
              levels,
              422,
              { detail: [TOO_DEEP_ITEM('data')] },
            ]);
          }
        }
      }
      expect((await send('GET', '/documents/docs/deep/d')).statusCode).toBe(404);
    });

    it('stores realtime values of 64 levels and refuses deeper ones with 422 on PUT and PATCH', async () => {
      expect((await send('PUT', '/realtime/db/deep', `{"value":${nestedArrays(64)}}`)).statusCode).toBe(200);
      for (const headers of [t.headers, ruled]) {
        for (const levels of [65, 5000, 100_000]) {
          const put = await send('PUT', '/realtime/db/deep', `{"value":${nestedArrays(levels)}}`, headers);
          expect([levels, put.statusCode, put.json()]).toEqual([levels, 422, { detail: [TOO_DEEP_ITEM('value')] }]);
          const patch = await send('PATCH', '/realtime/db', `{"value":{"deep":${nestedArrays(levels - 1)}}}`, headers);
          expect([levels, patch.statusCode, patch.json()]).toEqual([levels, 422, { detail: [TOO_DEEP_ITEM('value')] }]);
        }
      }
      expect((await send('GET', '/realtime/db/deep')).json().value).toEqual(JSON.parse(nestedArrays(64)));
    });

    it('answers a deep WebSocket write with an error event and keeps the socket open', async () => {
      const socket = await t.socket();
      for (const [id, text] of [
        ['set', `{"action":"set","path":"ws","id":"set","value":${nestedArrays(100_000)}}`],
        ['patch', `{"action":"patch","path":"ws","id":"patch","value":{"a":${nestedArrays(64)}}}`],
      ]) {
        const from = socket.messages.length;
        socket.ws.send(text as string);
        const reply = await socket.waitFor((m) => m.id === id, { from });
        expect(reply.event).toBe('error');
      }
      expect((await socket.request({ action: 'set', path: 'ws', value: 1, id: 'ok' })).event).toBe('ack');
      await socket.close();
    });
  });
}
