/**
 * Behavioural tests of the `DocumentStore` port (§2), run against every engine by
 * test/storage/document-store.test.ts. Each test writes into its own fresh project ids.
 */

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseDocumentJson } from '../../src/core/documents/document-service.js';
import type {
  DocumentJson,
  DocumentMutation,
  DocumentStore,
  DocumentWithCollections,
  QueryDocumentsOptions,
  StoredDocument,
} from '../../src/core/documents/document-store.js';
import { deleteMutation, patchMutation, putMutation } from '../../src/core/documents/document-writes.js';
import { AppError } from '../../src/core/errors.js';
import type { JsonObject } from '../../src/core/json.js';
import { parseDocumentPath } from '../../src/core/paths.js';
import type { Storage } from '../../src/core/ports.js';
import { parseOrderBy, parseWhere } from '../../src/core/where.js';
import { insert, merge, remove, upsert } from '../support/document-writes.js';
import type { EngineFixture } from '../support/engines.js';
import { compareCodePoints } from '../support/reference-where.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const pathsOf = (documents: DocumentJson[]) => documents.map((json) => parseDocumentJson(json).path);
const byCodePoints = (paths: string[]) => [...paths].sort(compareCodePoints);
/** A `getWithCollections` answer with its document text parsed, to compare with plain values. */
const parsedRead = (read: DocumentWithCollections | null) =>
  read && { ...parseDocumentJson(read.document), collections: read.collections, version: read.version };

/** Registers the document store suite for one engine. */
export function documentStoreCases(engine: EngineFixture): void {
  describe.skipIf(engine.unavailable)(`DocumentStore on ${engine.name}`, () => {
    let storage: Storage;
    let store: DocumentStore;
    let project = 0;

    beforeAll(async () => {
      storage = await engine.create();
      store = storage.documents;
    });
    afterAll(async () => {
      if (storage) await engine.destroy(storage);
    });
    // Fresh project ids per test: `project` holds the data, `project + 1` is the other tenant.
    beforeEach(() => {
      project += 10;
    });

    const put = (path: string, data: JsonObject = {}, p = project) => upsert(store, p, parseDocumentPath(path), data);
    const query = (collection: string, where: string[] = [], extra: Partial<QueryDocumentsOptions> = {}) =>
      store
        .query(project, { collection, where: parseWhere(where), ...extra })
        .then((found) => pathsOf(found.documents));

    describe('writes', () => {
      it('upsert creates with a fresh UUID, then replaces the data and keeps the id', async () => {
        const first = await put('users/u1', { a: 1 });
        expect(first).toEqual({ id: expect.stringMatching(UUID), path: 'users/u1', data: { a: 1 }, created: true });
        const second = await put('users/u1', { b: 2 });
        expect(second).toEqual({ id: first.id, path: 'users/u1', data: { b: 2 }, created: false });
        const read = await store.get(project, 'users/u1');
        expect(read).toEqual({ id: first.id, path: 'users/u1', data: { b: 2 }, version: expect.any(Number) });
      });

      it('get answers the version of the document’s last write', async () => {
        const path = parseDocumentPath('versions/v1');
        const first = await store.apply(project, [putMutation(path, { n: 1 }, randomUUID())]);
        expect((await store.get(project, 'versions/v1'))?.version).toBe(first.applied[0]?.version);
        await put('versions/other', { n: 0 });
        const second = await store.apply(project, [putMutation(path, { n: 2 }, randomUUID())]);
        expect(second.applied[0]?.version).toBeGreaterThan(first.applied[0]?.version ?? Infinity);
        expect((await store.get(project, 'versions/v1'))?.version).toBe(second.applied[0]?.version);
      });

      it('round-trips data to a deep-equal object', async () => {
        const data: JsonObject = {
          int: 1,
          float: -2.5,
          big: 12345678901234567000,
          tiny: 1.5e-7,
          huge: 1e300,
          text: 'Äé 😀 "quoted" \\ % _ \n',
          flags: [true, false, null],
          nested: { empty: {}, list: [[1, { deep: 'x' }], []], 'key.with"odd\\chars': 0 },
          nothing: null,
          '': 'empty key',
        };
        await put('docs/d1', data);
        expect((await store.get(project, 'docs/d1'))?.data).toEqual(data);
      });

      it('insert stores the given id, and a second insert at the same path fails', async () => {
        const id = '7c0e5bd8-6d8f-4e43-9b52-3a8f1e2f1f4a';
        const record = await insert(store, project, parseDocumentPath(`posts/${id}`), id, { t: 'x' });
        expect(record).toEqual({ id, path: `posts/${id}`, data: { t: 'x' } });
        expect(await store.get(project, `posts/${id}`)).toEqual({ ...record, version: expect.any(Number) });
        await expect(insert(store, project, parseDocumentPath(`posts/${id}`), id, {})).rejects.toThrow();
      });

      it('get of a missing document is null', async () => {
        expect(await store.get(project, 'users/none')).toBeNull();
      });

      it('merge replaces top-level keys only, keeps nulls and the id', async () => {
        const { id } = await put('users/u1', { a: 1, nested: { x: 1, y: 2 }, keep: 'k', gone: 1 });
        const merged = await merge(store, project, 'users/u1', { a: 2, nested: { x: 9 }, gone: null, added: [1] });
        const data = { a: 2, nested: { x: 9 }, keep: 'k', gone: null, added: [1] };
        expect(merged).toEqual({ id, path: 'users/u1', data });
        expect(await store.get(project, 'users/u1')).toEqual({
          id,
          path: 'users/u1',
          data,
          version: expect.any(Number),
        });
      });

      it('merge of a missing document is null and creates nothing', async () => {
        expect(await merge(store, project, 'users/none', { a: 1 })).toBeNull();
        expect(await store.get(project, 'users/none')).toBeNull();
      });

      it('concurrent merges of distinct keys lose none', async () => {
        await put('counters/c', {});
        await Promise.all(Array.from({ length: 20 }, (_, i) => merge(store, project, 'counters/c', { [`k${i}`]: i })));
        const data = (await store.get(project, 'counters/c'))?.data ?? {};
        expect(Object.keys(data).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `k${i}`).sort());
      });

      it('delete removes only that document and reports whether it existed', async () => {
        for (const path of ['a/1', 'a/1/b/2', 'a/10', 'a/1!']) await put(path);
        expect(await remove(store, project, 'a/1')).toBe(true);
        expect(await store.get(project, 'a/1')).toBeNull();
        for (const path of ['a/1/b/2', 'a/10', 'a/1!']) expect(await store.get(project, path)).not.toBeNull();
        expect(await remove(store, project, 'a/1')).toBe(false);
      });

      it('NUL in strings: PostgreSQL refuses with the §0 validation error, SQLite stores it', async () => {
        const attempts = [
          () => put('n/1', { s: 'a\u0000b' }),
          () =>
            insert(store, project, parseDocumentPath('n/2'), '0d5b7c1e-8f7a-4c1b-9a53-0c9e1b2a3d4f', { 'k\u0000': 1 }),
          async () => {
            await put('n/3', {});
            return merge(store, project, 'n/3', { s: ['\u0000'] });
          },
        ];
        for (const attempt of attempts) {
          if (engine.name === 'postgres') {
            const error = await attempt().then(
              () => null,
              (e: unknown) => e,
            );
            expect(error).toBeInstanceOf(AppError);
            expect((error as AppError).code).toBe('validation');
            expect((error as AppError).issues).toEqual([
              { loc: ['body', 'data'], msg: 'Strings may not contain the NUL character', type: 'value_error' },
            ]);
          } else {
            await attempt();
          }
        }
        if (engine.name === 'sqlite') expect((await store.get(project, 'n/1'))?.data).toEqual({ s: 'a\u0000b' });
      });

      // Writes handed over together share a transaction (SQLite) or a statement (PostgreSQL).
      it('writes issued together each get their own answer; writes of one document apply in order', async () => {
        await put('w/m', { base: 0 });
        const [fresh, again, second, inserted, firstMerge, secondMerge, missing] = await Promise.all([
          put('w/a', { v: 1 }),
          put('w/a', { v: 2 }),
          put('w/b', { v: 3 }),
          insert(store, project, parseDocumentPath('w/c'), '0d5b7c1e-8f7a-4c1b-9a53-0c9e1b2a3d4f', { v: 4 }),
          merge(store, project, 'w/m', { first: 1, both: 'first' }),
          merge(store, project, 'w/m', { second: 2, both: 'second' }),
          merge(store, project, 'w/none', { x: 1 }),
        ]);
        expect(fresh).toEqual({ id: expect.stringMatching(UUID), path: 'w/a', data: { v: 1 }, created: true });
        expect(again).toEqual({ id: fresh.id, path: 'w/a', data: { v: 2 }, created: false });
        expect(second).toMatchObject({ path: 'w/b', data: { v: 3 }, created: true });
        expect(inserted).toEqual({ id: '0d5b7c1e-8f7a-4c1b-9a53-0c9e1b2a3d4f', path: 'w/c', data: { v: 4 } });
        expect(firstMerge?.data).toEqual({ base: 0, first: 1, both: 'first' });
        expect(secondMerge?.data).toEqual({ base: 0, first: 1, second: 2, both: 'second' });
        expect(missing).toBeNull();
        expect((await store.get(project, 'w/a'))?.data).toEqual({ v: 2 });
        expect((await store.get(project, 'w/c'))?.id).toBe('0d5b7c1e-8f7a-4c1b-9a53-0c9e1b2a3d4f');
      });

      it('reads issued together each get their own document, or null', async () => {
        await put('g/1', { n: 1 });
        await put('g/1/kids/k', {});
        await put('g/2', { n: 2 });
        await put('g/3', { n: 3 }, project + 1);
        const reads = await Promise.all(
          ['g/1', 'g/2', 'g/3', 'g/1', 'g/9'].map((p) => store.getWithCollections(project, p)),
        );
        expect(
          reads
            .map(parsedRead)
            .map((read) => read && { path: read.path, data: read.data, collections: read.collections }),
        ).toEqual([
          { path: 'g/1', data: { n: 1 }, collections: ['kids'] },
          { path: 'g/2', data: { n: 2 }, collections: [] },
          null,
          { path: 'g/1', data: { n: 1 }, collections: ['kids'] },
          null,
        ]);
        const stored = await Promise.all(['g/1', 'g/2', 'g/3', 'g/1', 'g/9'].map((p) => store.get(project, p)));
        expect(stored.map((read) => read && { path: read.path, data: read.data })).toEqual([
          { path: 'g/1', data: { n: 1 } },
          { path: 'g/2', data: { n: 2 } },
          null,
          { path: 'g/1', data: { n: 1 } },
          null,
        ]);
        expect(stored[0]?.version).toEqual(expect.any(Number));
      });

      it('a mutation carrying the document read before (`seen`) is decided on the document stored at the commit', async () => {
        const path = parseDocumentPath('seen/s1');
        await put('seen/s1', { n: 1 });
        const first = await store.get(project, 'seen/s1');
        const apply = (mutation: DocumentMutation, seen: StoredDocument | null) =>
          store.apply(project, [{ ...mutation, seen }]);
        // Still the stored one: its data is the change's `previous`.
        const current = await apply(patchMutation(path, { m: 1 }), first);
        expect(current.applied[0]).toMatchObject({ data: { n: 1, m: 1 }, created: false });
        expect(current.commit.changes[0]?.previous).toEqual({ n: 1 });
        // Changed since: decided on what is stored now, as without `seen`.
        const stale = await apply(patchMutation(path, { k: 2 }), first);
        expect(stale.applied[0]).toMatchObject({ id: first?.id, data: { n: 1, m: 1, k: 2 }, created: false });
        expect(stale.commit.changes[0]?.previous).toEqual({ n: 1, m: 1 });
        // Seen absent but written meanwhile: replaced, keeping its id.
        const replaced = await apply(putMutation(path, { p: 3 }, randomUUID()), null);
        expect(replaced.applied[0]).toMatchObject({ id: first?.id, data: { p: 3 }, created: false });
        // A refusal on the seen document is judged again on the stored one (If-Match of the current version).
        const latest = (await store.get(project, 'seen/s1')) as StoredDocument;
        const matched = putMutation(path, { q: 4 }, randomUUID(), { precondition: { ifMatch: [latest.version] } });
        expect((await apply(matched, first)).applied[0]).toMatchObject({ data: { q: 4 } });
        // Seen present but deleted meanwhile: a delete finds nothing, a new write creates.
        const before = await store.get(project, 'seen/s1');
        await remove(store, project, 'seen/s1');
        await expect(apply(deleteMutation(path), before)).rejects.toMatchObject({ code: 'not_found' });
        const created = await apply(putMutation(path, { r: 5 }, randomUUID()), before);
        expect(created.applied[0]).toMatchObject({ data: { r: 5 }, created: true });
        expect(created.commit.changes[0]?.previous).toBeNull();
        expect((await store.get(project, 'seen/s1'))?.data).toEqual({ r: 5 });
      });

      it('a write the engine refuses fails alone among writes issued together', async () => {
        const results = await Promise.allSettled([
          put('r/1', { ok: 1 }),
          put('r/2', { s: 'a\u0000b' }),
          put('r/3', { ok: 3 }),
          insert(store, project, parseDocumentPath('r/4'), '1d5b7c1e-8f7a-4c1b-9a53-0c9e1b2a3d4f', { k: '\u0000' }),
          insert(store, project, parseDocumentPath('r/5'), '2d5b7c1e-8f7a-4c1b-9a53-0c9e1b2a3d4f', { ok: 5 }),
        ]);
        const refused = engine.name === 'postgres' ? 'rejected' : 'fulfilled';
        expect(results.map((r) => r.status)).toEqual(['fulfilled', refused, 'fulfilled', refused, 'fulfilled']);
        for (const path of ['r/1', 'r/3', 'r/5']) expect(await store.get(project, path)).not.toBeNull();
      });
    });

    describe('list', () => {
      const names = ['b', 'B', 'a', 'é', '~', 'a!', 'a0', 'Z', '😀', '\uff21', '%', '_'];

      beforeEach(async () => {
        for (const name of names) await put(`g/1/c/${name}`);
        for (const path of ['g/1/c2/x', 'g/1/c/a/x/y', 'g/2/c/q', 'c/r', 'g/1!/c/z']) await put(path);
      });

      it('returns the direct children of parent/collection in byte order', async () => {
        const all = await store.list(project, { parent: 'g/1', collection: 'c', limit: 100 });
        const expected = byCodePoints(names.map((name) => `g/1/c/${name}`));
        expect(pathsOf(all)).toEqual(expected);
        expect(expected.slice(0, 4)).toEqual(['g/1/c/%', 'g/1/c/B', 'g/1/c/Z', 'g/1/c/_']);
        expect(expected.slice(-3)).toEqual(['g/1/c/é', 'g/1/c/\uff21', 'g/1/c/😀']);
      });

      it('honours limit and start_after', async () => {
        const expected = byCodePoints(names.map((name) => `g/1/c/${name}`));
        expect(pathsOf(await store.list(project, { parent: 'g/1', collection: 'c', limit: 3 }))).toEqual(
          expected.slice(0, 3),
        );
        const after = await store.list(project, { parent: 'g/1', collection: 'c', startAfter: 'g/1/c/a', limit: 4 });
        expect(pathsOf(after)).toEqual(expected.slice(expected.indexOf('g/1/c/a') + 1).slice(0, 4));
      });

      it('answers each document as the JSON text of exactly its {id, path, data}, in list and query', async () => {
        const data: JsonObject = {
          text: 'quote " backslash \\ tab \t é 😀 \u2028',
          nested: { list: [1, 2.5, -3e-7, true, null, { deep: 'x' }], empty: {} },
          big: 2 ** 53 + 2,
        };
        const stored = await put('g/1/c/"q\\', data);
        const expected = { id: stored.id, path: 'g/1/c/"q\\', data };
        const listed = await store.list(project, { parent: 'g/1', collection: 'c', startAfter: 'g/1/c/!', limit: 1 });
        const { documents: queried } = await store.query(project, {
          collection: 'c',
          where: parseWhere(['big__gt:1']),
        });
        expect(listed.map(parseDocumentJson)).toEqual([expected]);
        expect(queried.map(parseDocumentJson)).toEqual([expected]);
        expect(Object.keys(parseDocumentJson(listed[0] as DocumentJson))).toEqual(['id', 'path', 'data']);
      });

      it('lists root collections with an empty parent', async () => {
        expect(pathsOf(await store.list(project, { parent: '', collection: 'c', limit: 20 }))).toEqual(['c/r']);
      });
    });

    describe('childCollections', () => {
      it('names every collection below the document, also those with only deeper documents', async () => {
        const children = ['c/x', 'c!/x', 'c0/x', 'c/x/deep/y', 'only/a/deeper/b', 'é/x', 'Z/x', '😀/x', '\uff21/x'];
        for (const child of children) await put(`r/1/${child}`);
        for (const decoy of ['r/1', 'r/10/x/y', 'r/1!/x/y', 'r/0/w/y', 's/1/v/y', 'q/1']) await put(decoy);
        const expected = ['Z', 'c', 'c!', 'c0', 'only', 'é', '\uff21', '😀'];
        expect(await store.childCollections(project, 'r/1')).toEqual(expected);
        expect(await store.childCollections(project, 'r/1/c/x')).toEqual(['deep']);
        expect(await store.childCollections(project, 'r/1/only/a')).toEqual(['deeper']);
        expect(await store.childCollections(project, 'r/1/c/x/deep/y')).toEqual([]);
        expect(await store.childCollections(project, 'r/2')).toEqual([]);
      });

      it('lists the root collections for the empty path', async () => {
        for (const path of ['users/u1', 'users/u2/posts/p', 'users!/x', 'a/b/c/d', 'z/1']) await put(path);
        expect(await store.childCollections(project, '')).toEqual(['a', 'users', 'users!', 'z']);
      });
    });

    describe('getWithCollections', () => {
      it('is null for a missing document', async () => {
        await put('r/2');
        expect(await store.getWithCollections(project, 'r/1')).toBeNull();
        expect(await store.getWithCollections(project, 'r/1/c/x')).toBeNull();
      });

      it('is null for a missing document even when documents lie below it', async () => {
        await put('r/1/c/x');
        await put('r/1/c/x/deep/y');
        expect(await store.getWithCollections(project, 'r/1')).toBeNull();
        expect((await store.getWithCollections(project, 'r/1/c/x'))?.collections).toEqual(['deep']);
      });

      it('answers the document with no collections when nothing lies below it', async () => {
        const stored = await put('r/1', { a: [1, { b: null }] });
        for (const sibling of ['r/10/x/y', 'r/1!/x/y', 'r/0/w/y', 's/1/v/y', 'r/2']) await put(sibling);
        expect(parsedRead(await store.getWithCollections(project, 'r/1'))).toEqual({
          id: stored.id,
          path: 'r/1',
          data: { a: [1, { b: null }] },
          collections: [],
          version: expect.any(Number),
        });
      });

      it('names every child collection once, sorted by code point, whatever lies deeper', async () => {
        const stored = await put('r/1', { n: 1 });
        const children = [
          'c/x',
          'c/y',
          'c!/x',
          'c0/x',
          'é/x',
          'Z/x',
          '😀/x',
          'c/x/deep/y',
          'c/x/deep/y/deeper/z',
          'd/x/e/y',
        ];
        for (const child of children) await put(`r/1/${child}`);
        // Documents only deeper down still name their collection at this level (here 'only').
        await put('r/1/only/a/deeper/b');
        for (const decoy of ['r/10/x/y', 'r/1!/x/y', 'r/0/w/y', 's/1/v/y']) await put(decoy);
        const expected = ['Z', 'c', 'c!', 'c0', 'd', 'only', 'é', '😀'];
        expect(parsedRead(await store.getWithCollections(project, 'r/1'))).toEqual({
          id: stored.id,
          path: 'r/1',
          data: { n: 1 },
          collections: expected,
          version: expect.any(Number),
        });
        expect(await store.childCollections(project, 'r/1')).toEqual(expected);
        expect((await store.getWithCollections(project, 'r/1/c/x'))?.collections).toEqual(['deep']);
        expect((await store.getWithCollections(project, 'r/1/c/x/deep/y'))?.collections).toEqual(['deeper']);
        expect((await store.getWithCollections(project, 'r/1/c/x/deep/y/deeper/z'))?.collections).toEqual([]);
      });

      it('returns names with characters an array literal quotes exactly', async () => {
        await put('r/1');
        const names = ['NULL', 'null', 'a,b', '{x}', 'q"uote', 'back\\slash', ' space ', "it's", '(1)'];
        for (const name of names) await put(`r/1/${name}/x`);
        const expected = [...names].sort(compareCodePoints);
        expect((await store.getWithCollections(project, 'r/1'))?.collections).toEqual(expected);
      });

      it('sees only its own project', async () => {
        await put('r/1');
        await put('r/1/c/x');
        await put('r/1/d/x', {}, project + 1);
        expect((await store.getWithCollections(project, 'r/1'))?.collections).toEqual(['c']);
        expect(await store.getWithCollections(project + 1, 'r/1')).toBeNull();
      });
    });

    describe('query', () => {
      beforeEach(async () => {
        await put('items/1', { n: 1, s: 'Report 2024', b: true, tags: ['a', 1, null], stats: { level: 5 }, z: null });
        await put('items/2', { n: 1.5, s: 'report', b: false, tags: ['b', 'A'], stats: { level: '5' } });
        await put('items/3', { n: -3, s: '100%_\\done', tags: [1.5, [1]], stats: [{ level: 5 }] });
        await put('items/4', { n: '1', s: 'ÄÉ straße', tags: 'a, 1' });
        await put('items/5', {});
        await put('p/1/items/6', { n: 10, s: 'nested report' });
        await put('p/2/items/7', { n: 1e3, s: '' });
        await put('items/1/other/8', { n: 1 });
        await put('x/items', { n: 1 });
      });

      it('finds the collection at any depth, or only below parent_path, by path', async () => {
        const all = ['items/1', 'items/2', 'items/3', 'items/4', 'items/5', 'p/1/items/6', 'p/2/items/7'];
        expect(await query('items')).toEqual(all);
        expect(await query('items', [], { parent: 'p/1' })).toEqual(['p/1/items/6']);
        expect(await query('items', [], { parent: '' })).toEqual(all.slice(0, 5));
        expect(await query('other')).toEqual(['items/1/other/8']);
        expect(await query('nothing')).toEqual([]);
      });

      it.each([
        ['n__exact:1', ['items/1']],
        ['n__exact:1.0', ['items/1']],
        ['n__exact:1e3', ['p/2/items/7']],
        ['s__exact:report', ['items/2']],
        ['z__exact:null', ['items/1']],
        ['b__exact:false', ['items/2']],
        ['s__iexact:REPORT', ['items/2']],
        ['s__iexact:äé STRASSE', []],
        ['s__iexact:äé straße', ['items/4']],
        ['n__ne:1', ['items/2', 'items/3', 'items/4', 'items/5', 'p/1/items/6', 'p/2/items/7']],
        ['n__gt:1', ['items/2', 'p/1/items/6', 'p/2/items/7']],
        ['n__gte:1', ['items/1', 'items/2', 'p/1/items/6', 'p/2/items/7']],
        ['n__lt:0', ['items/3']],
        ['n__lte:-3', ['items/3']],
        ['s__gt:r', ['items/2', 'items/4']],
        ['s__lt:R', ['items/3', 'p/2/items/7']],
        ['b__gt:false', []],
        ['n__in:1,1e3,x', ['items/1', 'p/2/items/7']],
        ['n__in:-3,"1"', ['items/3']],
        ['s__contains:2024', ['items/1']],
        ['s__contains:%_\\', ['items/3']],
        ['s__contains:_', ['items/3']],
        ['s__contains:', ['items/1', 'items/2', 'items/3', 'items/4', 'p/1/items/6', 'p/2/items/7']],
        ['tags__contains:1', ['items/1', 'items/4']],
        ['tags__contains:a', ['items/1', 'items/4']],
        ['tags__contains:null', ['items/1']],
        ['tags__contains:1.5', ['items/3']],
        ['s__icontains:REPORT', ['items/1', 'items/2', 'p/1/items/6']],
        ['s__icontains:äé', ['items/4']],
        ['s__startswith:Rep', ['items/1']],
        ['s__istartswith:rep', ['items/1', 'items/2']],
        ['s__startswith:%', []],
        ['s__endswith:report', ['items/2', 'p/1/items/6']],
        ['s__iendswith:STRASSE', []],
        ['s__iendswith:STRAßE', ['items/4']],
        ['s__endswith:', ['items/1', 'items/2', 'items/3', 'items/4', 'p/1/items/6', 'p/2/items/7']],
        ['stats__level__exact:5', ['items/1']],
        ['stats__level__gte:5', ['items/1']],
        ['stats__level__isnull:true', ['items/3', 'items/4', 'items/5', 'p/1/items/6', 'p/2/items/7']],
        ['z__isnull:true', ['items/1', 'items/2', 'items/3', 'items/4', 'items/5', 'p/1/items/6', 'p/2/items/7']],
        ['z__isnull:false', []],
        ['tags__isnull:false', ['items/1', 'items/2', 'items/3', 'items/4']],
      ])('%s', async (clause, expected) => {
        expect(await query('items', [clause])).toEqual(expected);
      });

      it('combines clauses with AND', async () => {
        expect(await query('items', ['n__gte:1', 's__icontains:report'])).toEqual([
          'items/1',
          'items/2',
          'p/1/items/6',
        ]);
        expect(await query('items', ['n__gte:1', 's__icontains:report', 'b__exact:true'])).toEqual(['items/1']);
      });

      it('orders by a field across types, ties by path ascending in both directions', async () => {
        const asc = ['items/5', 'items/3', 'items/1', 'items/2', 'p/1/items/6', 'p/2/items/7', 'items/4'];
        expect(await query('items', [], { orderBy: parseOrderBy('n') })).toEqual(asc);
        const desc = ['items/4', 'p/2/items/7', 'p/1/items/6', 'items/2', 'items/1', 'items/3', 'items/5'];
        expect(await query('items', [], { orderBy: parseOrderBy('-n') })).toEqual(desc);
        // missing/null (5,6,7 have no tags), then strings, arrays; arrays tie among themselves.
        const tags = ['items/5', 'p/1/items/6', 'p/2/items/7', 'items/4', 'items/1', 'items/2', 'items/3'];
        expect(await query('items', [], { orderBy: parseOrderBy('tags') })).toEqual(tags);
        const tagsDesc = ['items/1', 'items/2', 'items/3', 'items/4', 'items/5', 'p/1/items/6', 'p/2/items/7'];
        expect(await query('items', [], { orderBy: parseOrderBy('-tags') })).toEqual(tagsDesc);
      });

      it('applies offset and limit after ordering', async () => {
        const options = { orderBy: parseOrderBy('-n'), offset: 2, limit: 3 };
        expect(await query('items', [], options)).toEqual(['p/1/items/6', 'items/2', 'items/1']);
        expect(await query('items', [], { offset: 6 })).toEqual(['p/2/items/7']);
        expect(await query('items', [], { limit: 1 })).toEqual(['items/1']);
      });

      it('reaches keys holding quotes, backslashes, dots and control characters, never array items', async () => {
        await put('keys/1', {
          'a"b': 1,
          'c\\d': 2,
          'e.f': 3,
          'g\nh': 4,
          é: 5,
          x: { 'y"z': 6, $: 7 },
          arr: [{ 0: 1 }],
          o: { 0: 8 },
        });
        const cases = [
          'a"b__exact:1',
          'c\\d__exact:2',
          'e.f__exact:3',
          'g\nh__exact:4',
          'é__exact:5',
          'x__y"z__exact:6',
        ];
        for (const clause of [...cases, 'x__$__exact:7', 'o__0__exact:8']) {
          expect(await query('keys', [clause]), clause).toEqual(['keys/1']);
        }
        expect(await query('keys', ['arr__0__0__exact:1'])).toEqual([]);
        expect(await query('keys', ['arr__0__isnull:true'])).toEqual(['keys/1']);
        expect(await query('keys', ['e__f__isnull:true'])).toEqual(['keys/1']);
      });

      it('answers clauses holding NUL characters without failing', async () => {
        expect(await query('items', ['s__contains:\u0000'])).toEqual([]);
        expect(await query('items', ['s__exact:report\u0000'])).toEqual([]);
        expect(await query('items', ['s__in:report\u0000,report'])).toEqual(['items/2']);
        expect(await query('items', ['s\u0000__isnull:true'])).toHaveLength(7);
        // No stored string holds NUL, so 'report' < 'report\0' < 'reportx'.
        expect(await query('items', ['s__gte:report\u0000', 's__lt:s'])).toEqual([]);
        expect(await query('items', ['s__lt:report\u0000', 's__gte:report'])).toEqual(['items/2']);
      });
    });

    describe('isolation between projects', () => {
      it('shows project 2 nothing of project 1, through every method', async () => {
        const other = project + 1;
        const original = await put('users/u1', { secret: 1 });
        await put('users/u1/posts/p1', { secret: 2 });
        expect(await store.get(other, 'users/u1')).toBeNull();
        expect(await store.childCollections(other, 'users/u1')).toEqual([]);
        expect(await store.childCollections(other, '')).toEqual([]);
        expect(await store.list(other, { parent: '', collection: 'users', limit: 10 })).toEqual([]);
        expect(await store.query(other, { collection: 'users', where: [] })).toEqual({ documents: [], rowsScanned: 0 });
        const filtered = { collection: 'users', where: parseWhere(['secret__exact:1']) };
        expect(await store.query(other, filtered)).toEqual({ documents: [], rowsScanned: 0 });
        expect(await merge(store, other, 'users/u1', { secret: 'x' })).toBeNull();
        expect(await remove(store, other, 'users/u1')).toBe(false);
        const copy = await put('users/u1', { mine: true }, other);
        expect(copy.created).toBe(true);
        expect(copy.id).not.toBe(original.id);
        const id = 'f2a7c2e0-1d4b-4a5e-8c3f-6b7d8e9f0a1b';
        await insert(store, other, parseDocumentPath('users/u1/posts/p1'), id, {});
        expect(await store.get(project, 'users/u1')).toEqual({
          id: original.id,
          path: 'users/u1',
          data: { secret: 1 },
          version: expect.any(Number),
        });
        expect((await store.get(project, 'users/u1/posts/p1'))?.data).toEqual({ secret: 2 });
        expect(await store.get(other, 'users/u1')).toMatchObject({
          id: copy.id,
          path: 'users/u1',
          data: { mine: true },
        });
      });
    });
  });
}
