/** Declared indexes over HTTP (§15), the rows queries read, and a list rule served by an index (§9). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFixture } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';
import { MemoryRulesSource } from '../support/rules.js';

const RULES = {
  documents: [
    { match: 'posts/{post}', allow: { list: 'resource.data.owner == request.auth.uid', write: 'true' } },
    { match: 'items/{item}', allow: { read: 'true' } },
  ],
};

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`indexes (§15) on ${engine.name}`, () => {
    let t: TestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    const rules = new MemoryRulesSource();
    beforeAll(async () => {
      t = await startTestApp(engine, {}, { rules });
      f = await adminFixture(t);
      rules.set(t.project.projectId, RULES);
      const documents = t.app.services.documents;
      await Promise.all(
        Array.from({ length: 200 }, (_, i) => [
          documents.put(t.project.projectId, `items/i${i}`, { n: i, even: i % 2 === 0 }),
          documents.put(t.project.projectId, `posts/p${i}`, { owner: i % 20 === 0 ? String(t.userId) : 'other', n: i }),
        ]).flat(),
      );
    });
    afterAll(async () => {
      await t?.close();
    });

    const base = () => `/admin/projects/${f.projectId}/indexes`;
    const call = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, body?: object) =>
      t.app.http.inject({ method, url, headers, ...(body ? { payload: body } : {}) });
    /** The counter of `collection` in `/metrics`. */
    const scanned = async (collection: string) => {
      const text = (await t.app.http.inject({ method: 'GET', url: '/metrics' })).body;
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`cds_query_rows_scanned_total{collection="${collection}"}`));
      return Number(line?.split(' ')[1] ?? 0);
    };
    const query = (url: string) => t.app.http.inject({ method: 'GET', url, headers: t.headers });

    it('declares, builds, lists and drops an index; refuses duplicates, bad fields, viewers and strangers', async () => {
      const body = { collection: 'things', fields: [{ field: 'stats__level' }, { field: 'name', order: 'desc' }] };
      const created = await call('POST', base(), f.editor.headers, body);
      expect(created.statusCode).toBe(202);
      const index = created.json();
      expect(index).toEqual({
        id: expect.any(Number),
        collection: 'things',
        fields: [
          { field: 'stats__level', order: 'asc' },
          { field: 'name', order: 'desc' },
        ],
        state: 'building',
      });
      await t.app.services.indexes.whenBuilt();
      const listed = await call('GET', base(), f.viewer.headers);
      expect(listed.json().indexes).toEqual([{ ...index, state: 'ready' }]);
      const again = {
        collection: 'things',
        fields: [
          { field: 'stats__level', order: 'asc' },
          { field: 'name', order: 'desc' },
        ],
      };
      expect((await call('POST', base(), f.owner.headers, again)).json()).toEqual({ detail: 'Index already exists' });
      const five = Array.from({ length: 5 }, (_, i) => ({ field: `f${i}` }));
      for (const fields of [[], five, [{ field: 'a____b' }], [{ field: 'a' }, { field: 'a' }]]) {
        expect((await call('POST', base(), f.owner.headers, { collection: 'things', fields })).statusCode).toBe(422);
      }
      expect((await call('POST', base(), f.viewer.headers, body)).statusCode).toBe(403);
      expect((await call('GET', base(), f.stranger.headers)).json()).toEqual({ detail: 'Project not found' });
      expect((await call('DELETE', `${base()}/${index.id}`, f.viewer.headers)).statusCode).toBe(403);
      expect((await call('DELETE', `${base()}/${index.id}`, f.owner.headers)).json()).toEqual({ deleted: index.id });
      expect((await call('DELETE', `${base()}/${index.id}`, f.owner.headers)).json()).toEqual({
        detail: 'Index not found',
      });
      expect((await call('GET', base(), f.owner.headers)).json()).toEqual({ indexes: [] });
    });

    it('a query reads only what it returns once an index serves it, with the same answer; explain tells', async () => {
      const url = '/documents/query/items?where=n__gte:50&where=n__lt:60&limit=100';
      const explain = `${base()}/explain?collection=items&where=n__gte:50&where=n__lt:60`;
      let before = await scanned('items');
      const unindexed = await query(url);
      expect(unindexed.json().documents).toHaveLength(10);
      expect((await scanned('items')) - before).toBe(200);
      expect((await call('GET', explain, f.viewer.headers)).json()).toMatchObject({ index: null, sought: [] });

      const created = await call('POST', base(), f.owner.headers, { collection: 'items', fields: [{ field: 'n' }] });
      await t.app.services.indexes.whenBuilt();
      const described = (await call('GET', explain, f.viewer.headers)).json();
      expect(described).toMatchObject({ index: { id: created.json().id }, sought: ['n__gte:50', 'n__lt:60'] });
      expect(described.plan.join('\n')).toContain(`cds_index_${created.json().id}`);
      before = await scanned('items');
      const indexed = await query(url);
      expect(indexed.json()).toEqual(unindexed.json());
      expect((await scanned('items')) - before).toBe(10);
      // A clause the index does not serve is checked on the rows the seek reads.
      before = await scanned('items');
      const mixed = await query('/documents/query/items?where=n__lt:10&where=even__exact:true');
      expect(mixed.json().documents).toHaveLength(5);
      expect((await scanned('items')) - before).toBe(10);
    });

    it('a data-dependent list rule makes the counter grow only by the allowed matches with an index (§9)', async () => {
      let before = await scanned('posts');
      const list = await query('/documents/collections/posts?limit=100');
      expect(list.json().documents).toHaveLength(10);
      expect((await scanned('posts')) - before).toBe(200);
      await call('POST', base(), f.owner.headers, { collection: 'posts', fields: [{ field: 'owner' }] });
      await t.app.services.indexes.whenBuilt();
      before = await scanned('posts');
      expect((await query('/documents/collections/posts?limit=100')).json()).toEqual(list.json());
      expect((await scanned('posts')) - before).toBe(10);
    });
  });
}
