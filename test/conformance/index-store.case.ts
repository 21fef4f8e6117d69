/**
 * Behavioural tests of the `IndexStore` port (§15 declared indexes), run against every engine by
 * test/storage/index-store.test.ts. Each test uses its own project ids.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putMutation } from '../../src/core/documents/document-writes.js';
import type { IndexStore } from '../../src/core/documents/index-store.js';
import { chooseIndex, type IndexField, parseIndexFields } from '../../src/core/documents/indexes.js';
import { parseDocumentPath } from '../../src/core/paths.js';
import type { Storage } from '../../src/core/ports.js';
import { parseOrderBy, parseWhere } from '../../src/core/where.js';
import { upsert } from '../support/document-writes.js';
import type { EngineFixture } from '../support/engines.js';

const BY_LEVEL: IndexField[] = parseIndexFields([{ field: 'level' }]);
const BY_LEVEL_DESC: IndexField[] = parseIndexFields([{ field: 'level', order: 'desc' }]);

/** Registers the index store suite for one engine. */
export function indexStoreCases(engine: EngineFixture): void {
  describe.skipIf(engine.unavailable)(`IndexStore on ${engine.name}`, () => {
    let storage: Storage;
    let store: IndexStore;
    let project = 100;

    beforeAll(async () => {
      storage = await engine.create();
      store = storage.indexes;
    });
    afterAll(async () => {
      if (storage) await engine.destroy(storage);
    });

    const declare = async (projectId: number, collection: string, fields: IndexField[]) => {
      const index = await store.create(projectId, collection, fields);
      if (!index) throw new Error('declared twice');
      return index;
    };

    it('records declarations as building, unique per project, collection, fields and orders', async () => {
      const p = project++;
      const first = await declare(p, 'items', BY_LEVEL);
      expect(first).toEqual({
        id: expect.any(Number),
        projectId: p,
        collection: 'items',
        fields: BY_LEVEL,
        state: 'building',
      });
      expect(await store.create(p, 'items', parseIndexFields([{ field: 'level' }]))).toBeNull();
      const desc = await declare(p, 'items', BY_LEVEL_DESC);
      const other = await declare(p, 'posts', BY_LEVEL);
      const elsewhere = await declare(project++, 'items', BY_LEVEL);
      expect((await store.list(p)).map((index) => index.id)).toEqual([first.id, desc.id, other.id]);
      expect(elsewhere.id).not.toBe(first.id);
    });

    it('builds a declaration into an index queries seek on: they read what they return', async () => {
      const p = project++;
      for (let i = 0; i < 60; i++) {
        await upsert(storage.documents, p, parseDocumentPath(`items/i${i}`), { level: i % 30, name: `n${i}` });
      }
      const index = await declare(p, 'items', BY_LEVEL);
      expect(await store.building()).toContainEqual(index);
      expect(await store.build(index)).toBe('ready');
      const listed = await store.list(p);
      expect(listed.map((item) => item.state)).toEqual(['ready']);
      expect(await store.building()).not.toContainEqual(expect.objectContaining({ id: index.id }));
      const where = parseWhere(['level__exact:7']);
      const plan = chooseIndex(listed, where, undefined);
      expect(plan?.index.id).toBe(index.id);
      const result = await storage.documents.query(p, { collection: 'items', where, ...(plan ? { index: plan } : {}) });
      expect(result.documents).toHaveLength(2);
      expect(result.rowsScanned).toBe(2);
    });

    it('pages a range it must sort by path as the path indexes do, whether its matches are few or many', async () => {
      const p = project++;
      // Levels fall as paths rise, so the index yields the matches in the reverse of path order.
      const writes = Array.from({ length: 1500 }, (_, i) =>
        putMutation(parseDocumentPath(`items/i${String(i).padStart(4, '0')}`), { level: 1500 - i }, randomUUID()),
      );
      await storage.documents.apply(p, writes);
      const index = await declare(p, 'items', BY_LEVEL);
      expect(await store.build(index)).toBe('ready');
      const listed = await store.list(p);
      const cases = [
        { clauses: ['level__gt:1200'], matches: 300 },
        { clauses: ['level__gte:1'], matches: 1500 },
      ];
      for (const { clauses, matches } of cases) {
        const where = parseWhere(clauses);
        const plan = chooseIndex(listed, where, undefined);
        expect(plan?.ordered).toBe(false);
        for (const page of [{}, { limit: 10 }, { offset: 290, limit: 20 }, { offset: 1490, limit: 100 }]) {
          const options = { collection: 'items', where, ...page };
          const indexed = await storage.documents.query(p, { ...options, ...(plan ? { index: plan } : {}) });
          const unindexed = await storage.documents.query(p, options);
          expect(indexed.documents).toEqual(unindexed.documents);
          expect(indexed.documents).toHaveLength(
            Math.max(0, Math.min(page.limit ?? matches, matches - (page.offset ?? 0))),
          );
          // Sorted: every match was read, whatever the page.
          expect(indexed.rowsScanned).toBeGreaterThanOrEqual(matches);
          // The same inside the snapshot's read transaction (listeners, §10).
          const snapshot = await storage.documents.querySnapshot(p, { ...options, ...(plan ? { index: plan } : {}) });
          expect(snapshot.documents).toEqual(unindexed.documents);
        }
      }
    });

    it('counts the rows a query read when it returns none: every candidate without an index, the seek with one', async () => {
      const p = project++;
      const writes = Array.from({ length: 300 }, (_, i) =>
        putMutation(parseDocumentPath(`items/i${i}`), { level: i % 30, n: i }, randomUUID()),
      );
      await storage.documents.apply(p, writes);
      const index = await declare(p, 'items', BY_LEVEL);
      expect(await store.build(index)).toBe('ready');
      const listed = await store.list(p);
      const pages = [{}, { limit: 5 }, { orderBy: parseOrderBy('n') }, { orderBy: parseOrderBy('-n'), limit: 5 }];
      const cases = [
        // The seek finds nothing.
        { clauses: ['level__exact:99'], pages, seeks: 0 },
        // The seek reads the 10 documents of level 7; the clause it does not serve refuses them all.
        { clauses: ['level__exact:7', 'n__lt:0'], pages, seeks: 10 },
        // The 10 matches are all skipped by the offset.
        {
          clauses: ['level__exact:7'],
          pages: pages.map((page) => ({ ...page, offset: 10 })),
          seeks: 10,
        },
      ];
      for (const { clauses, pages, seeks } of cases) {
        const where = parseWhere(clauses);
        for (const page of pages) {
          const options = { collection: 'items', where, ...page };
          const plan = chooseIndex(listed, where, options.orderBy);
          expect(plan?.index.id).toBe(index.id);
          const what = `${clauses.join('&')} ${JSON.stringify(page)}`;
          expect(await storage.documents.query(p, options), what).toEqual({ documents: [], rowsScanned: 300 });
          const indexed = await storage.documents.query(p, { ...options, ...(plan ? { index: plan } : {}) });
          expect(indexed, what).toEqual({ documents: [], rowsScanned: seeks });
        }
      }
    });

    it('leaves a ready declaration as it is, and a dropped one dropped', async () => {
      const p = project++;
      const index = await declare(p, 'items', BY_LEVEL);
      expect(await store.build(index)).toBe('ready');
      expect(await store.build(index)).toBe('ready');
      const gone = await declare(p, 'items', BY_LEVEL_DESC);
      expect(await store.drop(p, gone.id)).toBe(true);
      expect(await store.build(gone)).toBeNull();
      expect((await store.list(p)).map((item) => item.id)).toEqual([index.id]);
    });

    it('drops a declaration of its project only, once', async () => {
      const p = project++;
      const index = await declare(p, 'items', BY_LEVEL);
      await store.build(index);
      expect(await store.drop(p + 1000, index.id)).toBe(false);
      expect(await store.drop(p, index.id)).toBe(true);
      expect(await store.drop(p, index.id)).toBe(false);
      expect(await store.list(p)).toEqual([]);
      // The same declaration again is a new index, built from nothing.
      const again = await declare(p, 'items', BY_LEVEL);
      expect(again.id).not.toBe(index.id);
      expect(await store.build(again)).toBe('ready');
    });

    it('answers a query planned with an index dropped since, as the path indexes do', async () => {
      const p = project++;
      for (let i = 0; i < 30; i++) {
        await upsert(storage.documents, p, parseDocumentPath(`items/i${i}`), { level: 30 - i });
      }
      const index = await declare(p, 'items', BY_LEVEL);
      expect(await store.build(index)).toBe('ready');
      for (const clauses of [['level__exact:7'], ['level__gte:10']]) {
        const where = parseWhere(clauses);
        const plan = chooseIndex(await store.list(p), where, undefined);
        expect(plan?.index.id).toBe(index.id);
        const unindexed = await storage.documents.query(p, { collection: 'items', where, limit: 5 });
        if (clauses[0] === 'level__gte:10') expect(await store.drop(p, index.id)).toBe(true);
        const stale = await storage.documents.query(p, {
          collection: 'items',
          where,
          limit: 5,
          ...(plan ? { index: plan } : {}),
        });
        expect(stale.documents).toEqual(unindexed.documents);
        expect(stale.documents.length).toBeGreaterThan(0);
      }
    });

    it('builds a declaration a process left building when it died before building it', async () => {
      const p = project++;
      await upsert(storage.documents, p, parseDocumentPath('items/a'), { level: 1 });
      const stuck = await declare(p, 'items', BY_LEVEL);
      // What a restarted process finds: the declaration, no builder.
      const [found] = (await store.building()).filter((index) => index.projectId === p);
      expect(found).toEqual(stuck);
      expect(await store.build(found ?? stuck)).toBe('ready');
      expect((await store.list(p))[0]?.state).toBe('ready');
    });
  });
}
