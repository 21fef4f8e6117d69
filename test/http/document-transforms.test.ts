/** Field transforms and batches over HTTP (§11), on both engines, with concurrent clients. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`field transforms and batches (§11) on ${engine.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(engine);
    });
    afterAll(async () => {
      await t?.close();
    });

    const call = (method: string, url: string, payload?: unknown) =>
      t.app.http.inject({
        method: method as 'PUT',
        url,
        headers: t.headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const dataOf = async (path: string) => (await call('GET', `/documents/docs/${path}`)).json().data;

    it('applies every op after data, creating missing parents, on PATCH without data too', async () => {
      await call('PUT', '/documents/docs/t/a', {
        data: { coins: 5, best: 10, low: 3, tags: ['a', { k: 1 }], gone: true, text: 'x', stats: 7 },
      });
      const res = await call('PATCH', '/documents/docs/t/a', {
        transforms: {
          coins: { increment: 2.5 },
          text: { increment: 1 },
          best: { maximum: 8 },
          low: { minimum: 1 },
          fresh: { maximum: 4 },
          tags: { array_union: ['b', { k: 1 }, 'a', 'b'] },
          gone: 'delete',
          stats__level__xp: { increment: 3 },
          removed: { array_remove: [1] },
        },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual({
        coins: 7.5,
        best: 10,
        low: 1,
        fresh: 4,
        tags: ['a', { k: 1 }, 'b'],
        text: 1,
        stats: { level: { xp: 3 } },
        removed: [],
      });
      expect(await dataOf('t/a')).toEqual(res.json().data);
      const removed = await call('PATCH', '/documents/docs/t/a', {
        transforms: { tags: { array_remove: [{ k: 1 }, 'z'] } },
      });
      expect(removed.json().data.tags).toEqual(['a', 'b']);
    });

    it('PUT applies transforms to the data as data leaves it; server_time is the commit time in ISO 8601', async () => {
      await call('PUT', '/documents/docs/t/p', { data: { old: 1, n: 100 } });
      const before = Date.now();
      const res = await call('PUT', '/documents/docs/t/p', {
        data: { name: 'x' },
        transforms: { n: { increment: 1 }, at: 'server_time', meta__at: 'server_time' },
      });
      const data = res.json().data;
      expect(data).toMatchObject({ name: 'x', n: 1 });
      expect(data).not.toHaveProperty('old');
      expect(data.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(data.meta.at).toBe(data.at);
      expect(Date.parse(data.at)).toBeGreaterThanOrEqual(before - 1000);
    });

    it('refuses bad transforms with 422 and writes nothing', async () => {
      await call('PUT', '/documents/docs/t/bad', { data: { a: 1 } });
      for (const transforms of [
        { a: { increment: 1 } },
        { a__b: { increment: 1 } },
        { x: { increment: 'one' } },
        { x: { multiply: 2 } },
        { x: 'now' },
        { x: { array_union: 1 } },
        { x: { increment: 1, maximum: 2 } },
        { x: { increment: 1 }, x__y: 'delete' },
        { x____y: 'delete' },
        { [Array.from({ length: 70 }, (_, i) => `f${i}`).join('__')]: 'server_time' },
      ]) {
        const res = await call('PATCH', '/documents/docs/t/bad', { data: { a: 2 }, transforms });
        expect(res.statusCode, JSON.stringify(transforms)).toBe(422);
        expect(res.json().detail[0].loc.slice(0, 2)).toEqual(['body', 'transforms']);
      }
      expect((await call('PATCH', '/documents/docs/t/bad', {})).statusCode).toBe(422);
      expect(await dataOf('t/bad')).toEqual({ a: 1 });
    });

    it('50 clients × 100 increments of one field end at exactly 5,000, each answer with an ETag of its own', async () => {
      await call('PUT', '/documents/docs/counters/c', { data: { n: 0 } });
      const answers: { version: number; n: number }[] = [];
      const client = async () => {
        for (let i = 0; i < 100; i++) {
          const res = await call('PATCH', '/documents/docs/counters/c', { transforms: { n: { increment: 1 } } });
          if (res.statusCode !== 200) throw new Error(res.body);
          answers.push({ version: Number(JSON.parse(res.headers.etag as string)), n: res.json().data.n });
        }
      };
      await Promise.all(Array.from({ length: 50 }, client));
      expect(await dataOf('counters/c')).toEqual({ n: 5000 });
      // §10: writes committed together still get a version each, so an ETag names exactly one state.
      expect(new Set(answers.map((answer) => answer.version)).size).toBe(5000);
      answers.sort((a, b) => a.version - b.version);
      expect(answers.map((answer) => answer.n)).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
    }, 60_000);

    it('refuses an If-Match whose ETag a later write of the same group commit superseded (412)', async () => {
      const url = '/documents/docs/race/doc';
      await call('PUT', url, { data: { by: 'nobody' } });
      let superseded = 0;
      for (let pair = 0; pair < 20; pair++) {
        // Two PUTs handed over in one turn share a group commit.
        const [a, b] = await Promise.all([
          call('PUT', url, { data: { by: 'a' } }),
          call('PUT', url, { data: { by: 'b' } }),
        ]);
        expect(a.headers.etag).not.toBe(b.headers.etag);
        const [first, last] =
          Number(JSON.parse(a.headers.etag as string)) < Number(JSON.parse(b.headers.etag as string)) ? [a, b] : [b, a];
        const stale = await t.app.http.inject({
          method: 'PUT',
          url,
          headers: { ...t.headers, 'if-match': first.headers.etag as string },
          payload: { data: { by: 'stale' } },
        });
        expect(stale.statusCode).toBe(412);
        expect(stale.json()).toEqual({ detail: 'Precondition failed' });
        expect((await call('GET', url)).headers.etag).toBe(last.headers.etag);
        superseded++;
      }
      expect(superseded).toBe(20);
    });

    it('a batch commits its writes in order with one version; the same path twice sees the first', async () => {
      await call('PUT', '/documents/docs/b/old', { data: { v: 1 } });
      const etag = (await call('GET', '/documents/docs/b/old')).headers.etag as string;
      const res = await call('POST', '/documents/batch', {
        writes: [
          { op: 'put', path: 'b/x', data: { n: 1 } },
          { op: 'patch', path: 'b/x', transforms: { n: { increment: 2 } } },
          { op: 'create', path: 'b/x/items', data: { k: true } },
          { op: 'delete', path: 'b/old', if_match: etag.replaceAll('"', '') },
          { op: 'put', path: 'b/y', data: {}, if_absent: true },
        ],
      });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.results).toHaveLength(5);
      expect(body.results[0]).toEqual({ id: expect.any(String), path: 'b/x', version: body.version, created: true });
      expect(body.results[1]).toEqual({ id: body.results[0].id, path: 'b/x', version: body.version });
      expect(body.results[2]).toMatchObject({
        path: expect.stringMatching(/^b\/x\/items\/[0-9a-f-]{36}$/),
        created: true,
      });
      expect(body.results[3]).toEqual({ deleted: 'b/old' });
      expect(await dataOf('b/x')).toEqual({ n: 3 });
      expect((await call('GET', '/documents/docs/b/x')).headers.etag).toBe(`"${body.version}"`);
      expect((await call('GET', '/documents/docs/b/old')).statusCode).toBe(404);
    });

    it('a failing batch writes nothing and answers the first failure as writes[i]', async () => {
      const cases: [unknown[], number, unknown][] = [
        [
          [
            { op: 'put', path: 'f/a', data: {} },
            { op: 'delete', path: 'f/missing' },
          ],
          404,
          'writes[1]: Document not found',
        ],
        [
          [
            { op: 'put', path: 'f/a', data: {} },
            { op: 'patch', path: 'f/b', data: {}, if_match: 1 },
          ],
          412,
          'writes[1]: Precondition failed',
        ],
        [
          [
            { op: 'put', path: 'f/a', data: {} },
            { op: 'put', path: 'f', data: {} },
          ],
          400,
          'writes[1]: Path must point to a document (even number of segments)',
        ],
        [
          [{ op: 'create', path: 'f/a', data: {} }],
          400,
          'writes[0]: Path must point to a collection (odd number of segments)',
        ],
      ];
      for (const [writes, status, detail] of cases) {
        const res = await call('POST', '/documents/batch', { writes });
        expect(res.statusCode, JSON.stringify(writes)).toBe(status);
        expect(res.json()).toEqual({ detail });
      }
      const invalid = await call('POST', '/documents/batch', {
        writes: [
          { op: 'put', path: 'f/a' },
          { op: 'patch', path: 'f/a', transforms: { x: { increment: 'no' } } },
        ],
      });
      expect(invalid.statusCode).toBe(422);
      expect(invalid.json().detail[0].loc).toEqual(['body', 'writes', 1, 'transforms', 'x']);
      expect((await call('POST', '/documents/batch', { writes: [] })).statusCode).toBe(422);
      const tooMany = Array.from({ length: 501 }, (_, i) => ({ op: 'put', path: `f/${i}` }));
      expect((await call('POST', '/documents/batch', { writes: tooMany })).statusCode).toBe(422);
      expect((await call('GET', '/documents/docs/f/a')).statusCode).toBe(404);
    });

    it('a 500-write batch commits whole', async () => {
      const writes = Array.from({ length: 500 }, (_, i) => ({ op: 'put', path: `big/${i}`, data: { i } }));
      const res = await call('POST', '/documents/batch', { writes });
      expect(res.statusCode).toBe(200);
      expect(new Set(res.json().results.map((r: { version: number }) => r.version))).toEqual(
        new Set([res.json().version]),
      );
      expect(await dataOf('big/499')).toEqual({ i: 499 });
    });
  });
}
