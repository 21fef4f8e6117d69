/** Atomic tree writes (§11): ETags, If-Match, server values, over REST and the WebSocket, on every engine. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeEtag } from '../../src/core/realtime/tree-atomic.js';
import { engines } from '../support/engines.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`atomic realtime writes (§11) on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    beforeAll(async () => {
      t = await startRealtimeApp(engine);
    });
    afterAll(async () => {
      await t?.close();
    });

    const call = (method: string, path: string, payload?: unknown, extra: Record<string, string> = {}) =>
      t.app.http.inject({
        method: method as 'PUT',
        url: `/realtime/db/${path}`,
        headers: { ...t.headers, ...extra },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });

    it('ETags hash the canonical value: keys in any order give the same one; empty has the hash of null', async () => {
      const empty = await call('GET', 'etag/none');
      expect(empty.headers.etag).toBe(`"${treeEtag(null)}"`);
      const put = await call('PUT', 'etag/a', { value: { b: 1, a: [1, { y: 2, x: 1 }] } });
      expect(put.headers.etag).toBe(`"${treeEtag({ a: [1, { x: 1, y: 2 }], b: 1 })}"`);
      expect((await call('GET', 'etag/a')).headers.etag).toBe(put.headers.etag);
      const patch = await call('PATCH', 'etag/a', { value: { c: true } });
      expect(patch.headers.etag).toBe(`"${treeEtag({ a: [1, { x: 1, y: 2 }], b: 1, c: true })}"`);
      expect((await call('GET', 'etag/a?shallow=true')).headers.etag).toBeUndefined();
    });

    it('If-Match writes only while the value is unchanged; the ETag of null means "only while empty"', async () => {
      const emptyTag = (await call('GET', 'lock/x')).headers.etag as string;
      expect((await call('PUT', 'lock/x', { value: 'first' }, { 'if-match': emptyTag })).statusCode).toBe(200);
      const second = await call('PUT', 'lock/x', { value: 'second' }, { 'if-match': emptyTag });
      expect(second.statusCode).toBe(412);
      expect(second.json()).toEqual({ detail: 'Precondition failed' });
      expect((await call('GET', 'lock/x')).json().value).toBe('first');
      const tag = (await call('GET', 'lock/x')).headers.etag as string;
      expect((await call('PATCH', 'lock', { value: { x: 'p' } }, { 'if-match': tag })).statusCode).toBe(412);
      expect((await call('DELETE', 'lock/x', undefined, { 'if-match': '"nope", W/"x"' })).statusCode).toBe(412);
      expect((await call('DELETE', 'lock/x', undefined, { 'if-match': `"a", ${tag}` })).statusCode).toBe(200);
      expect((await call('PUT', 'lock/x', { value: 1 }, { 'if-match': '*' })).statusCode).toBe(412);
    });

    it('resolves server values in the transaction: timestamp, increment of a number, of missing or non-numbers', async () => {
      await call('PUT', 'sv', { value: { n: 5, s: 'text' } });
      const before = Date.now();
      const res = await call('PATCH', 'sv', {
        value: {
          n: { '.sv': { increment: 2 } },
          s: { '.sv': { increment: 1 } },
          'deep/m': { '.sv': { increment: -1.5 } },
          at: { '.sv': 'timestamp' },
        },
      });
      expect(res.statusCode).toBe(200);
      const value = res.json().value;
      expect(value).toMatchObject({ n: 7, s: 1, deep: { m: -1.5 } });
      expect(value.at).toBeGreaterThanOrEqual(before);
      const put = await call('PUT', 'sv/obj', {
        value: { at: { '.sv': 'timestamp' }, n: { '.sv': { increment: 1 } } },
      });
      expect(put.json().value).toEqual({ at: expect.any(Number), n: 1 });
      for (const bad of [{ '.sv': 'now' }, { '.sv': 'timestamp', x: 1 }, { '.sv': { increment: '1' } }]) {
        expect((await call('PUT', 'sv/bad', { value: bad })).statusCode).toBe(422);
      }
    });

    it('20 clients adding 1 fifty times with {".sv": {"increment": 1}} end at exactly 1,000', async () => {
      const client = async () => {
        for (let i = 0; i < 50; i++) {
          const res = await call('PUT', 'counter', { value: { '.sv': { increment: 1 } } });
          if (res.statusCode !== 200) throw new Error(res.body);
        }
      };
      await Promise.all(Array.from({ length: 20 }, client));
      expect((await call('GET', 'counter')).json().value).toBe(1000);
    }, 60_000);

    it('WebSocket: server values in set; a refused if_match answers error with the current etag and value', async () => {
      const ws = await t.socket();
      await ws.request({ action: 'subscribe', path: 'wsa', id: 's' });
      expect(
        await ws.request({ action: 'set', path: 'wsa/n', value: { '.sv': { increment: 3 } }, id: 1 }),
      ).toMatchObject({
        event: 'ack',
      });
      await ws.waitFor((m) => m.event === 'update' && m.value === 3);
      const refused = await ws.request({ action: 'set', path: 'wsa/n', value: 9, if_match: 'stale', id: 2 });
      expect(refused).toEqual({ event: 'error', message: 'Precondition failed', etag: treeEtag(3), value: 3, id: 2 });
      const ok = await ws.request({
        action: 'patch',
        path: 'wsa',
        value: { n: 9 },
        if_match: treeEtag({ n: 3 }),
        id: 3,
      });
      expect(ok).toMatchObject({ event: 'ack', id: 3 });
      expect(await ws.request({ action: 'delete', path: 'wsa', if_match: 7, id: 4 })).toMatchObject({
        event: 'error',
        message: 'if_match must be a string',
      });
      await ws.close();
    });
  });
}
