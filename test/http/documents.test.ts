import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`document routes (§2) on ${engine.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(engine);
    });
    afterAll(async () => {
      await t?.close();
    });

    const call = (
      method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE',
      url: string,
      payload?: unknown,
      headers = t.headers,
    ) => t.app.http.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

    it('PUT inserts then updates, keeping the server-chosen UUID', async () => {
      const first = await call('PUT', '/documents/docs/users/u1', { data: { name: 'Ann', level: 1 } });
      expect(first.statusCode).toBe(200);
      expect(first.headers['content-type']).toMatch(/^application\/json/);
      const created = first.json();
      expect(created).toMatchObject({ path: 'users/u1', data: { name: 'Ann', level: 1 }, created: true });
      expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.id).not.toBe('u1');
      expect(created).not.toHaveProperty('collections');

      const second = await call('PUT', '/documents/docs/users/u1', { data: { name: 'Bob' } });
      expect(second.json()).toEqual({ id: created.id, path: 'users/u1', data: { name: 'Bob' }, created: false });
    });

    it('PUT without data stores an empty object, also with no body at all', async () => {
      expect((await call('PUT', '/documents/docs/empty/e1', {})).json()).toMatchObject({ data: {}, created: true });
      const noBody = await t.app.http.inject({ method: 'PUT', url: '/documents/docs/empty/e2', headers: t.headers });
      expect(noBody.statusCode).toBe(200);
      expect(noBody.json()).toMatchObject({ path: 'empty/e2', data: {}, created: true });
    });

    it('normalizes paths: slashes stripped, empty segments collapsed', async () => {
      const res = await call('PUT', '/documents/docs//norm//n1/', { data: { x: 1 } });
      expect(res.json().path).toBe('norm/n1');
      expect((await call('GET', '/documents/docs/norm/n1')).json().data).toEqual({ x: 1 });
    });

    it('accepts a path of exactly 1024 characters and 64 segments, and refuses one more', async () => {
      expect((await call('PUT', `/documents/docs/c/${'a'.repeat(1022)}`, { data: {} })).statusCode).toBe(200);
      const tooLong = await call('PUT', `/documents/docs/c/${'a'.repeat(1023)}`, { data: {} });
      expect(tooLong.statusCode).toBe(400);
      expect(tooLong.json()).toEqual({ detail: 'Path too long' });
      const segments = Array.from({ length: 64 }, (_, i) => `s${i}`).join('/');
      expect((await call('PUT', `/documents/docs/${segments}`, { data: {} })).statusCode).toBe(200);
      expect((await call('PUT', `/documents/docs/${segments}/x/y`, { data: {} })).json()).toEqual({
        detail: 'Path too long',
      });
    });

    it('decodes URL-encoded segments once', async () => {
      const res = await call('PUT', '/documents/docs/enc/a%20b%2525', { data: {} });
      expect(res.json().path).toBe('enc/a b%25');
    });

    it.each([
      ['PUT', { data: {} }],
      ['GET', undefined],
      ['PATCH', { data: {} }],
      ['DELETE', undefined],
    ] as const)('%s on an odd path answers 400 with the §2 message', async (method, body) => {
      for (const url of ['/documents/docs/users', '/documents/docs/a/b/c']) {
        const res = await call(method, url, body);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ detail: 'Path must point to a document (even number of segments)' });
      }
    });

    it.each(['GET', 'PATCH', 'DELETE'] as const)('%s of a missing document answers 404', async (method) => {
      const res = await call(method, '/documents/docs/missing/m1', method === 'PATCH' ? { data: { a: 1 } } : undefined);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: 'Document not found' });
    });

    it('rejects a non-object data with 422 and changes nothing', async () => {
      await call('PUT', '/documents/docs/typed/t1', { data: { keep: true } });
      for (const data of [[1, 2], 'text', 5, null]) {
        const res = await call('PUT', '/documents/docs/typed/t1', { data });
        expect(res.statusCode).toBe(422);
        expect(res.json().detail[0].loc).toEqual(['body', 'data']);
        const patch = await call('PATCH', '/documents/docs/typed/t1', { data });
        expect(patch.statusCode).toBe(422);
      }
      expect((await call('GET', '/documents/docs/typed/t1')).json().data).toEqual({ keep: true });
    });

    it('PATCH requires data and merges shallowly', async () => {
      await call('PUT', '/documents/docs/merge/m1', { data: { a: 1, nested: { x: 1, y: 2 }, keep: 'k' } });
      const missing = await call('PATCH', '/documents/docs/merge/m1', {});
      expect(missing.statusCode).toBe(422);
      expect(missing.json().detail[0]).toMatchObject({ loc: ['body', 'data'] });
      const res = await call('PATCH', '/documents/docs/merge/m1', { data: { a: 2, nested: { z: 3 }, extra: null } });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.data).toEqual({ a: 2, nested: { z: 3 }, keep: 'k', extra: null });
      expect(Object.keys(body).sort()).toEqual(['data', 'id', 'path']);
    });

    it('POST creates a document whose last segment is its id, under an optional parent', async () => {
      const root = await call('POST', '/documents/collections/posts', { data: { title: 'hi' } });
      expect(root.statusCode).toBe(201);
      const doc = root.json();
      expect(doc.created).toBe(true);
      expect(doc.path).toBe(`posts/${doc.id}`);

      const nested = await call('POST', '/documents/collections/posts', { parent_path: '/users/u9/' });
      expect(nested.statusCode).toBe(201);
      expect(nested.json()).toMatchObject({ path: `users/u9/posts/${nested.json().id}`, data: {}, created: true });

      const empty = await t.app.http.inject({
        method: 'POST',
        url: '/documents/collections/posts',
        headers: t.headers,
      });
      expect(empty.statusCode).toBe(201);

      const odd = await call('POST', '/documents/collections/posts', { parent_path: 'users' });
      expect(odd.statusCode).toBe(400);
      expect(odd.json()).toEqual({ detail: 'parent_path must point to a document (even number of segments)' });
    });

    it('POST ids are time-ordered UUIDs (version 7): documents created later list later', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await call('POST', '/documents/collections/journal', { data: { i } })).json().id);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const listed = (await call('GET', '/documents/collections/journal')).json();
      expect(listed.documents.map((d: { data: { i: number } }) => d.data.i)).toEqual([0, 1, 2, 3, 4]);
    });

    it('GET lists child collections, including those holding only deeper descendants', async () => {
      await call('PUT', '/documents/docs/games/g1', { data: {} });
      await call('PUT', '/documents/docs/games/g1/scores/s1', { data: {} });
      await call('PUT', '/documents/docs/games/g1/scores/s2', { data: {} });
      await call('PUT', '/documents/docs/games/g1/players/p1/items/i1', { data: {} });
      await call('PUT', '/documents/docs/games/g1/a!/x', { data: {} });
      await call('PUT', '/documents/docs/games/g10/other/o1', { data: {} });
      const res = await call('GET', '/documents/docs/games/g1');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ path: 'games/g1', data: {}, collections: ['a!', 'players', 'scores'] });
      expect((await call('GET', '/documents/docs/games/g1/scores/s1')).json().collections).toEqual([]);
    });

    it('GET answers the stored document exactly, whatever its path and data hold', async () => {
      const path = 'odd"q/b\\s é😀';
      const data = {
        text: 'quote " backslash \\ tab \t newline \n é 😀 \u2028',
        'key "quoted"': [1, -2.5, 1e21, 0.1, null, true, { deep: [[], {}] }],
        empty: {},
      };
      const url = `/documents/docs/${path.split('/').map(encodeURIComponent).join('/')}`;
      const put = await call('PUT', url, { data });
      expect(put.statusCode).toBe(200);
      await call('PUT', `${url}/kids/k1`, { data: {} });
      const res = await call('GET', url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers.etag).toMatch(/^"\d+"$/);
      expect(res.json()).toEqual({ id: put.json().id, path, data, collections: ['kids'] });
    });

    it('DELETE removes only that document', async () => {
      await call('PUT', '/documents/docs/del/d1', { data: {} });
      await call('PUT', '/documents/docs/del/d1/kids/k1', { data: {} });
      const res = await call('DELETE', '/documents/docs/del/d1');
      expect(res.json()).toEqual({ deleted: 'del/d1' });
      expect((await call('GET', '/documents/docs/del/d1')).statusCode).toBe(404);
      expect((await call('GET', '/documents/docs/del/d1/kids/k1')).statusCode).toBe(200);
    });

    describe('list', () => {
      beforeAll(async () => {
        for (let i = 0; i < 25; i += 1) {
          await call('PUT', `/documents/docs/items/i${String(i).padStart(2, '0')}`, { data: { n: i } });
        }
        await call('PUT', '/documents/docs/items/i00/items/deep', { data: {} });
        await call('PUT', '/documents/docs/shelf/s1/items/x1', { data: {} });
      });

      it('returns the first 20 direct children by path, exactly the seed shape', async () => {
        const res = await call('GET', '/documents/collections/items');
        const body = res.json();
        expect(Object.keys(body)).toEqual(['documents']);
        expect(body.documents).toHaveLength(20);
        expect(body.documents[0]).toEqual({ id: expect.any(String), path: 'items/i00', data: { n: 0 } });
        expect(body.documents.map((d: { path: string }) => d.path)).toEqual(
          Array.from({ length: 20 }, (_, i) => `items/i${String(i).padStart(2, '0')}`),
        );
      });

      it('pages with limit and start_after (a last segment or a full path)', async () => {
        const bySegment = (await call('GET', '/documents/collections/items?limit=3&start_after=i20')).json();
        expect(bySegment.documents.map((d: { path: string }) => d.path)).toEqual([
          'items/i21',
          'items/i22',
          'items/i23',
        ]);
        const byPath = (await call('GET', '/documents/collections/items?limit=100&start_after=items/i23')).json();
        expect(byPath.documents.map((d: { path: string }) => d.path)).toEqual(['items/i24']);
      });

      it('scopes to parent_path and validates it', async () => {
        const nested = (await call('GET', '/documents/collections/items?parent_path=shelf/s1')).json();
        expect(nested.documents.map((d: { path: string }) => d.path)).toEqual(['shelf/s1/items/x1']);
        const odd = await call('GET', '/documents/collections/items?parent_path=shelf');
        expect(odd.statusCode).toBe(400);
        expect(odd.json()).toEqual({ detail: 'parent_path must point to a document (even number of segments)' });
      });

      it.each(['limit=0', 'limit=abc', 'limit=1001'])('rejects %s with 422 located in the query', async (q) => {
        const res = await call('GET', `/documents/collections/items?${q}`);
        expect(res.statusCode).toBe(422);
        expect(res.json().detail[0].loc).toEqual(['query', 'limit']);
      });
    });

    describe('query', () => {
      beforeAll(async () => {
        const docs: [string, object][] = [
          ['heroes/h1', { name: 'Ann', level: 5, tags: ['mage'], stats: { hp: 10 } }],
          ['heroes/h2', { name: 'bob', level: 12, tags: ['tank', 'mage'], stats: { hp: 30 } }],
          ['heroes/h3', { name: 'Annie%', level: 7.5, stats: { hp: 20 } }],
          ['heroes/h4', { name: 'carl_x', level: '9', active: true }],
          ['guilds/g1/heroes/h5', { name: 'Deep', level: 6 }],
          ['villains/v1', { name: 'Ann', level: 5 }],
        ];
        for (const [path, data] of docs) await call('PUT', `/documents/docs/${path}`, { data });
      });

      const paths = async (qs: string) => {
        const res = await call('GET', `/documents/query/heroes?${qs}`);
        expect(res.statusCode).toBe(200);
        return res.json().documents.map((d: { path: string }) => d.path);
      };

      it('returns the whole collection at any depth without where, by path', async () => {
        expect(await paths('')).toEqual(['guilds/g1/heroes/h5', 'heroes/h1', 'heroes/h2', 'heroes/h3', 'heroes/h4']);
      });

      it('combines clauses, coerces values and reads nested keys', async () => {
        expect(await paths('where=level__gte:6&where=level__lte:10')).toEqual(['guilds/g1/heroes/h5', 'heroes/h3']);
        expect(await paths('where=stats__hp__gt:15')).toEqual(['heroes/h2', 'heroes/h3']);
        expect(await paths('where=name__icontains:ANN')).toEqual(['heroes/h1', 'heroes/h3']);
        expect(await paths('where=level__exact:9')).toEqual([]);
        expect(await paths('where=active__exact:true')).toEqual(['heroes/h4']);
        expect(await paths('where=tags__contains:mage')).toEqual(['heroes/h1', 'heroes/h2']);
        expect(await paths('where=active__isnull:true')).toEqual([
          'guilds/g1/heroes/h5',
          'heroes/h1',
          'heroes/h2',
          'heroes/h3',
        ]);
      });

      it('treats % and _ as literal characters', async () => {
        expect(await paths('where=name__contains:%25')).toEqual(['heroes/h3']);
        expect(await paths('where=name__contains:_')).toEqual(['heroes/h4']);
        expect(await paths('where=name__startswith:A%25')).toEqual([]);
      });

      it('supports parent_path, order_by, limit and offset', async () => {
        expect(await paths('parent_path=guilds/g1')).toEqual(['guilds/g1/heroes/h5']);
        expect(await paths('order_by=-level')).toEqual([
          'heroes/h4',
          'heroes/h2',
          'heroes/h3',
          'guilds/g1/heroes/h5',
          'heroes/h1',
        ]);
        expect(await paths('order_by=stats__hp&limit=2&offset=2')).toEqual(['heroes/h1', 'heroes/h3']);
      });

      it.each([
        ['where=name:Ann', "Invalid where clause 'name:Ann': expected field__lookup:value"],
        ['where=name__exact', "Invalid where clause 'name__exact': expected field__lookup:value"],
        ['where=name__like:A', "Unsupported lookup 'like'"],
        [Array.from({ length: 21 }, (_, i) => `where=f${i}__exact:1`).join('&'), 'Too many where clauses (max 20)'],
        ['parent_path=guilds', 'parent_path must point to a document (even number of segments)'],
      ])('answers 400 for %s', async (qs, detail) => {
        const res = await call('GET', `/documents/query/heroes?${qs}`);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ detail });
      });

      it.each(['limit=0', 'limit=10001', 'offset=-1', 'limit=x'])('answers 422 for %s', async (qs) => {
        expect((await call('GET', `/documents/query/heroes?${qs}`)).statusCode).toBe(422);
      });
    });

    it('isolates projects on every route', async () => {
      const other = await t.otherProject();
      await call('PUT', '/documents/docs/secret/s1', { data: { mine: true } });
      await call('PUT', '/documents/docs/secret/s1/sub/x', { data: {} });
      const as = (method: 'GET' | 'PUT' | 'PATCH' | 'DELETE' | 'POST', url: string, payload?: object) =>
        call(method, url, payload, other.headers);

      expect((await as('GET', '/documents/docs/secret/s1')).statusCode).toBe(404);
      expect((await as('PATCH', '/documents/docs/secret/s1', { data: { stolen: true } })).statusCode).toBe(404);
      expect((await as('DELETE', '/documents/docs/secret/s1')).statusCode).toBe(404);
      expect((await as('GET', '/documents/collections/secret')).json()).toEqual({ documents: [] });
      expect((await as('GET', '/documents/query/secret')).json()).toEqual({ documents: [] });
      const theirs = await as('PUT', '/documents/docs/secret/s1', { data: { theirs: true } });
      expect(theirs.json()).toMatchObject({ created: true, data: { theirs: true } });
      expect((await as('GET', '/documents/docs/secret/s1')).json().collections).toEqual([]);

      const mine = (await call('GET', '/documents/docs/secret/s1')).json();
      expect(mine).toMatchObject({ data: { mine: true }, collections: ['sub'] });
    });
  });
}
