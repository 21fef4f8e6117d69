/** The admin document store (§6) on every engine: tenancy, permissions, pages, and the client store's data and rules. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFixture } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

type Method = 'GET' | 'PUT' | 'PATCH' | 'DELETE';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`admin document store (§6) on ${engine.name}`, () => {
    let t: TestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    let base = '';
    beforeAll(async () => {
      t = await startTestApp(engine);
      f = await adminFixture(t);
      base = `/document-store/${f.orgId}/${f.projectId}`;
    });
    afterAll(async () => {
      await t?.close();
    });

    const call = (method: Method, url: string, headers: Record<string, string>, payload?: unknown) =>
      t.app.http.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const client = (method: Method | 'POST', url: string, payload?: unknown) =>
      t.app.http.inject({
        method,
        url,
        headers: t.headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });

    /** Every admin document route, with a body where it takes one. */
    const routes = (prefix: string): [Method, string, unknown][] => [
      ['GET', `${prefix}/collections`, undefined],
      ['GET', `${prefix}/collections/users`, undefined],
      ['GET', `${prefix}/docs/users/u1`, undefined],
      ['PUT', `${prefix}/docs/users/u1`, { data: { hacked: true } }],
      ['PATCH', `${prefix}/docs/users/u1`, { data: { hacked: true } }],
      ['DELETE', `${prefix}/docs/users/u1`, undefined],
    ];

    it('shows exactly the documents the project’s clients see under /documents, and the other way round', async () => {
      const written = await client('PUT', '/documents/docs/users/u1', { data: { name: 'Ann' } });
      const viaAdmin = await call('GET', `${base}/docs/users/u1`, f.viewer.headers);
      expect(viaAdmin.statusCode).toBe(200);
      expect(viaAdmin.json()).toEqual({
        id: written.json().id,
        path: 'users/u1',
        data: { name: 'Ann' },
        collections: [],
      });
      expect(viaAdmin.json()).toEqual((await client('GET', '/documents/docs/users/u1')).json());

      const put = await call('PUT', `${base}/docs/users/u2`, f.editor.headers, { data: { name: 'Bob' } });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({ path: 'users/u2', data: { name: 'Bob' }, created: true });
      expect((await client('GET', '/documents/docs/users/u2')).json()).toEqual({
        id: put.json().id,
        path: 'users/u2',
        data: { name: 'Bob' },
        collections: [],
      });
      const patched = await call('PATCH', `${base}/docs/users/u2`, f.owner.headers, { data: { level: 2 } });
      expect(patched.json()).toEqual({ id: put.json().id, path: 'users/u2', data: { name: 'Bob', level: 2 } });
      expect((await client('GET', '/documents/docs/users/u2')).json().data).toEqual({ name: 'Bob', level: 2 });
      expect((await call('DELETE', `${base}/docs/users/u2`, f.editor.headers)).json()).toEqual({ deleted: 'users/u2' });
      expect((await client('GET', '/documents/docs/users/u2')).statusCode).toBe(404);

      const clientList = (await client('GET', '/documents/collections/users')).json().documents;
      const adminList = (await call('GET', `${base}/collections/users`, f.viewer.headers)).json().documents;
      expect(adminList).toEqual(clientList);
    });

    it('keeps the client store’s rules and messages (through DocumentService)', async () => {
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
        const body = method === 'PUT' || method === 'PATCH' ? { data: {} } : undefined;
        const mine = await call(method, `${base}/docs/users`, f.owner.headers, body);
        const theirs = await client(method, '/documents/docs/users', body);
        expect(mine.statusCode).toBe(400);
        expect(mine.json()).toEqual(theirs.json());
        expect(mine.json()).toEqual({ detail: 'Path must point to a document (even number of segments)' });
      }
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const res = await call(
          method,
          `${base}/docs/missing/m1`,
          f.owner.headers,
          method === 'PATCH' ? { data: {} } : undefined,
        );
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ detail: 'Document not found' });
      }
      const noData = await call('PATCH', `${base}/docs/users/u1`, f.owner.headers, {});
      expect(noData.statusCode).toBe(422);
      expect(noData.json().detail[0].loc).toEqual(['body', 'data']);
      const notObject = await call('PUT', `${base}/docs/users/u1`, f.owner.headers, { data: [1, 2] });
      expect(notObject.statusCode).toBe(422);
      const nul = await call('GET', `${base}/docs/users/%00`, f.owner.headers);
      expect(nul.statusCode).toBe(400);
      expect(nul.json()).toEqual((await client('GET', '/documents/docs/users/%00')).json());
      const normalized = await call('PUT', `${base}/docs//norm//n1/`, f.owner.headers, { data: {} });
      expect(normalized.json().path).toBe('norm/n1');
      const oddParent = await call('GET', `${base}/collections/posts?parent_path=users`, f.owner.headers);
      expect(oddParent.statusCode).toBe(400);
      expect(oddParent.json()).toEqual({ detail: 'parent_path must point to a document (even number of segments)' });
      const oddParentNames = await call('GET', `${base}/collections?parent_path=a/b/c`, f.owner.headers);
      expect(oddParentNames.json()).toEqual({
        detail: 'parent_path must point to a document (even number of segments)',
      });
    });

    it('lists collection names under parent_path, sorted, in pages with a total', async () => {
      for (const path of ['g/1/zeta/a', 'g/1/alpha/a', 'g/1/alpha/b', 'g/1/mid/x/deep/y', 'g/2/other/o', 'gx/1']) {
        await client('PUT', `/documents/docs/${path}`, { data: {} });
      }
      const all = await call('GET', `${base}/collections?parent_path=g/1`, f.viewer.headers);
      expect(all.json()).toEqual({ collections: ['alpha', 'mid', 'zeta'], page: 1, page_size: 20, total: 3 });
      const second = await call('GET', `${base}/collections?parent_path=/g//1/&page=2&page_size=2`, f.viewer.headers);
      expect(second.json()).toEqual({ collections: ['zeta'], page: 2, page_size: 2, total: 3 });
      const beyond = await call('GET', `${base}/collections?parent_path=g/1&page=5&page_size=2`, f.viewer.headers);
      expect(beyond.json()).toEqual({ collections: [], page: 5, page_size: 2, total: 3 });
      const root = await call('GET', `${base}/collections`, f.viewer.headers);
      expect(root.json().collections).toEqual(expect.arrayContaining(['g', 'gx', 'users']));
      expect(root.json().collections).toEqual([...root.json().collections].sort());
      expect(root.json().total).toBe(root.json().collections.length);
      const none = await call('GET', `${base}/collections?parent_path=g/9`, f.viewer.headers);
      expect(none.json()).toEqual({ collections: [], page: 1, page_size: 20, total: 0 });
    });

    it('lists the direct children of a collection by path, in pages with a total', async () => {
      for (let i = 0; i < 25; i++) {
        await client('PUT', `/documents/docs/shop/s1/items/i${String(i).padStart(2, '0')}`, { data: { i } });
      }
      await client('PUT', '/documents/docs/shop/s1/items/i00/parts/p1', { data: {} });
      await client('PUT', '/documents/docs/shop/s2/items/other', { data: {} });
      const url = `${base}/collections/items?parent_path=shop/s1`;
      const first = (await call('GET', url, f.viewer.headers)).json();
      expect(first).toMatchObject({ page: 1, page_size: 20, total: 25 });
      expect(first.documents.map((d: { path: string }) => d.path)).toEqual(
        Array.from({ length: 20 }, (_, i) => `shop/s1/items/i${String(i).padStart(2, '0')}`),
      );
      const last = (await call('GET', `${url}&page=3&page_size=10`, f.viewer.headers)).json();
      expect(last.documents.map((d: { data: { i: number } }) => d.data.i)).toEqual([20, 21, 22, 23, 24]);
      expect(last).toMatchObject({ page: 3, page_size: 10, total: 25 });
      const empty = (await call('GET', `${base}/collections/items?parent_path=shop/s9`, f.viewer.headers)).json();
      expect(empty).toEqual({ documents: [], page: 1, page_size: 20, total: 0 });
    });

    it.each([['page=0'], ['page=-1'], ['page=abc'], ['page_size=0'], ['page_size=101'], ['page_size=1.5']])(
      'answers 422 for %s',
      async (query) => {
        for (const path of ['collections', 'collections/users']) {
          const res = await call('GET', `${base}/${path}?${query}`, f.viewer.headers);
          expect(res.statusCode).toBe(422);
          expect(res.json().detail[0].loc[0]).toBe('query');
        }
      },
    );

    it('accepts page_size 1 and 100', async () => {
      for (const size of [1, 100]) {
        const res = await call('GET', `${base}/collections/users?page_size=${size}`, f.viewer.headers);
        expect(res.statusCode).toBe(200);
        expect(res.json().page_size).toBe(size);
      }
    });

    it('a viewer reads but every write answers 403 `document.manage` and changes nothing', async () => {
      for (const [method, url, body] of routes(base)) {
        const res = await call(method, url, f.viewer.headers, body);
        if (method === 'GET') {
          expect(res.statusCode).toBe(200);
        } else {
          expect(res.statusCode).toBe(403);
          expect(res.json()).toEqual({ detail: "Permission 'document.manage' required" });
        }
      }
      expect((await client('GET', '/documents/docs/users/u1')).json().data).toEqual({ name: 'Ann' });
    });

    it('a viewer’s invalid write still answers 403 (permission before validation)', async () => {
      const res = await call('PATCH', `${base}/docs/users/u1`, f.viewer.headers, { data: 'nope' });
      expect(res.statusCode).toBe(403);
    });

    it('an admin of another organisation gets 404 `Project not found` on every route, whatever the ids', async () => {
      const strangerPaths = [
        base,
        `/document-store/${f.other.orgId}/${f.projectId}`,
        `/document-store/${f.orgId}/${f.other.projectId}`,
      ];
      for (const prefix of strangerPaths) {
        for (const [method, url, body] of routes(prefix)) {
          const res = await call(method, url, f.stranger.headers, body);
          expect(res.statusCode, `${method} ${url}`).toBe(404);
          expect(res.json()).toEqual({ detail: 'Project not found' });
        }
      }
      // Invalid input does not reveal the project either: the tenant check runs first.
      const invalid = await call('GET', `${base}/collections?page=0`, f.stranger.headers);
      expect(invalid.statusCode).toBe(404);
      expect((await client('GET', '/documents/docs/users/u1')).json().data).toEqual({ name: 'Ann' });
    });

    it('the project must belong to the organisation in the URL, and ids must be numbers (404 otherwise)', async () => {
      const prefixes = [
        `/document-store/${f.other.orgId}/${f.projectId}`,
        `/document-store/${f.orgId}/${f.other.projectId}`,
        `/document-store/${f.orgId}/999999`,
        `/document-store/abc/${f.projectId}`,
        `/document-store/${f.orgId}/abc`,
        `/document-store/0${f.orgId}/${f.projectId}`,
        `/document-store/${f.orgId}/1e0`,
        `/document-store/-1/${f.projectId}`,
      ];
      for (const prefix of prefixes) {
        for (const [method, url, body] of routes(prefix)) {
          const res = await call(method, url, f.owner.headers, body);
          expect(res.statusCode, `${method} ${url}`).toBe(404);
          expect(res.json()).toEqual({ detail: 'Project not found' });
        }
      }
    });

    it('every route needs an admin token (401 before anything else)', async () => {
      for (const prefix of [base, '/document-store/abc/def']) {
        for (const [method, url, body] of routes(prefix)) {
          const res = await call(method, url, {}, body);
          expect(res.statusCode).toBe(401);
          expect(res.json()).toEqual({ detail: 'Invalid or expired token' });
        }
      }
    });

    it('an admin of the other organisation works on its own project only', async () => {
      const prefix = `/document-store/${f.other.orgId}/${f.other.projectId}`;
      const put = await call('PUT', `${prefix}/docs/users/u1`, f.stranger.headers, { data: { theirs: true } });
      expect(put.statusCode).toBe(200);
      const seen = await t.app.http.inject({
        method: 'GET',
        url: '/documents/docs/users/u1',
        headers: f.other.headers,
      });
      expect(seen.json().data).toEqual({ theirs: true });
      expect((await client('GET', '/documents/docs/users/u1')).json().data).toEqual({ name: 'Ann' });
    });
  });
}
