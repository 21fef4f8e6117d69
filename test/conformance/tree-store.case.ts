/**
 * Behavioural tests of the `TreeStore` port (§3 storage, §4 versions and change log), run against
 * every engine by test/storage/tree-store.test.ts. Each test writes into its own project ids.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, type JsonObject, type JsonValue } from '../../src/core/json.js';
import type { Storage } from '../../src/core/ports.js';
import { packedSubtreeJson } from '../../src/core/realtime/packed-subtree.js';
import { TreePreconditionFailed, treeEtag, treeWriteHook } from '../../src/core/realtime/tree-atomic.js';
import { unpackLeaves } from '../../src/core/realtime/tree-json.js';
import type { ChangeLogRetention, TreeStore, TreeWrite } from '../../src/core/realtime/tree-store.js';
import { planPatch, planSet } from '../../src/core/realtime/tree-write.js';
import type { EngineFixture } from '../support/engines.js';
import { randomInt, seededRandom } from '../support/prng.js';

const KEEP: ChangeLogRetention = { maxWrites: 10_000, maxAgeMs: 600_000 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the tree store suite for one engine. */
export function treeStoreCases(engine: EngineFixture): void {
  describe.skipIf(engine.unavailable)(`TreeStore on ${engine.name}`, () => {
    let storage: Storage;
    let store: TreeStore;
    let project = 0;

    beforeAll(async () => {
      storage = await engine.create();
      store = storage.tree;
    });
    afterAll(async () => {
      if (storage) await engine.destroy(storage);
    });
    // Fresh project ids per test: `project` holds the data, `project + 1` is the other tenant.
    beforeEach(() => {
      project += 10;
    });

    const set = (path: string, value: JsonValue, p = project, retention = KEEP) =>
      store.set(p, planSet(path, value), retention);
    const patch = (path: string, value: JsonObject, p = project) => store.patch(p, path, planPatch(path, value), KEEP);
    const read = async (path: string, p = project) => (await store.snapshot(p, path)).value;

    it('stores a value as leaves and assembles any subtree back', async () => {
      const value = { name: 'Ann', stats: { level: 3, tags: ['a', { b: 1 }] }, online: true, score: 2.5 };
      await set('users/ann', value);
      expect(await read('users/ann')).toEqual(value);
      expect(await read('users')).toEqual({ ann: value });
      expect(await read('')).toEqual({ users: { ann: value } });
      expect(await read('users/ann/stats/tags')).toEqual(['a', { b: 1 }]);
      expect(await read('users/ann/stats/tags/0')).toBeNull();
      expect(await read('users/bob')).toBeNull();
    });

    it('numbers every commit of a project with the next version and reports its changes', async () => {
      const first = await set('a', { b: 1, c: null });
      expect(first).toEqual({ version: 1, changes: [{ path: 'a', value: { b: 1 } }] });
      expect((await set('x', 'y')).version).toBe(2);
      expect(await store.delete(project, 'nothing/here', KEEP)).toEqual({
        version: 3,
        changes: [{ path: 'nothing/here', value: null }],
      });
      expect(await store.currentVersion(project)).toBe(3);
      expect(await store.snapshot(project, 'a')).toEqual({ value: { b: 1 }, version: 3 });
      expect(await store.currentVersion(project + 1)).toBe(0);
      expect(await store.snapshot(project + 1, '')).toEqual({ value: null, version: 0 });
    });

    it("gives a subtree's leaves as JSON text that serializes to its snapshot's canonical JSON", async () => {
      const value = { name: 'Ann', 'a-b': { z: 1.5, é: 'x"y' }, a: { tags: [2, { b: 1, a: null }], on: true } };
      await set('users/ann', value);
      await set('users/bob', 7);
      // Control characters: PostgreSQL's packing joins value texts with U+0001, which jsonb writes escaped.
      await set('other', 'out\u0001side\n');
      await set('users-x', 'a sibling between users and users/');
      for (const path of ['users/ann', 'users', '', 'users/bob', 'users/ann/a/tags', 'none']) {
        const { packed, version } = await store.packedLeaves(project, path);
        const snapshot = await store.snapshot(project, path);
        expect(version).toBe(snapshot.version);
        expect(Buffer.from(packedSubtreeJson(path, packed)).toString()).toBe(canonicalJson(snapshot.value));
        const leaves = unpackLeaves(packed);
        expect(leaves.every((leaf) => path === '' || leaf.path === path || leaf.path.startsWith(`${path}/`))).toBe(
          true,
        );
      }
      expect(unpackLeaves((await store.packedLeaves(project, 'users')).packed)).toHaveLength(6);
      expect(await store.packedLeaves(project + 1, '')).toEqual({ packed: new Uint8Array(0), version: 0 });
      expect((await store.packedLeaves(project, 'none')).packed).toHaveLength(0);
      // A leaf read alone, the root and a subtree each come with the version they reflect.
      expect((await store.packedLeaves(project, 'users/bob')).version).toBe(4);
      expect((await store.packedLeaves(project, '')).version).toBe(4);
      await set('users/bob', 8);
      expect((await store.packedLeaves(project, 'users')).version).toBe(5);
    });

    it('replaces a subtree whole', async () => {
      await set('a', { b: 1, c: { d: 2 } });
      await set('a', { e: 3 });
      expect(await read('a')).toEqual({ e: 3 });
      await set('a/c', { f: 4 });
      expect(await read('a')).toEqual({ e: 3, c: { f: 4 } });
    });

    it('turns ancestors that held a leaf into objects, and leaves them when only deleting below', async () => {
      await set('a', 5);
      await set('a/b/c', 1);
      expect(await read('a')).toEqual({ b: { c: 1 } });
      await set('', 'root leaf');
      expect(await read('')).toBe('root leaf');
      expect(await read('a')).toBeNull();
      await set('q/r', null);
      await store.delete(project, 'q', KEEP);
      expect(await read('')).toBe('root leaf');
      await set('q/r', true);
      expect(await read('')).toEqual({ q: { r: true } });
    });

    it('deletes with null, {} and objects of nothing', async () => {
      await set('a', { b: 1, c: 2 });
      await set('a/b', null);
      expect(await read('a')).toEqual({ c: 2 });
      await set('a/c', {});
      expect(await read('a')).toBeNull();
      await set('a', { x: { y: null } });
      expect(await read('')).toBeNull();
      await set('k', 1);
      await store.delete(project, 'k', KEEP);
      expect(await read('k')).toBeNull();
    });

    it('never touches siblings whose names extend the path', async () => {
      const siblings = { 'a!': 1, 'a.b': 2, a0: 3, ab: 4, 'a-': 5 };
      await set('', { ...siblings, a: { x: 1 } });
      expect(await read('a')).toEqual({ x: 1 });
      await set('a', { y: 2 });
      await store.delete(project, 'a/y', KEEP);
      expect(await read('')).toEqual(siblings);
    });

    it('applies a patch as child sets in one commit and returns the merged value', async () => {
      await set('p', { keep: 1, gone: 2, deep: { x: 1 } });
      const result = await patch('p', { 'deep/y': 2, gone: null, fresh: { z: [3] } });
      expect(result.version).toBe(2);
      expect(result.changes).toEqual([
        { path: 'p/deep/y', value: 2 },
        { path: 'p/gone', value: null },
        { path: 'p/fresh', value: { z: [3] } },
      ]);
      expect(result.value).toEqual({ keep: 1, deep: { x: 1, y: 2 }, fresh: { z: [3] } });
      expect(await read('p')).toEqual(result.value);
      const empty = await patch('p', {});
      expect(empty).toEqual({ version: 3, changes: [], value: result.value });
    });

    it('lists the children of a node one seek each (shallow reads)', async () => {
      await set('s', { k: { deep: { er: 1 } }, 'k!': 1, l: 2, 'émoji🎲': { x: 1 }, z: [1] });
      const { leaf, keys } = await store.children(project, 's');
      expect(leaf).toBeNull();
      expect([...keys].sort()).toEqual(['k', 'k!', 'l', 'z', 'émoji🎲'].sort());
      expect(await store.children(project, 's/l')).toEqual({ leaf: 2, keys: [] });
      expect(await store.children(project, 's/none')).toEqual({ leaf: null, keys: [] });
      await set('t', 1);
      const root = await store.children(project, '');
      expect([...root.keys].sort()).toEqual(['s', 't']);
      await set('', 9);
      expect(await store.children(project, '')).toEqual({ leaf: 9, keys: [] });
    });

    it('keeps projects apart', async () => {
      await set('shared', { a: 1 }, project);
      await set('shared', { b: 2 }, project + 1);
      await store.delete(project + 1, '', KEEP);
      expect(await read('shared', project)).toEqual({ a: 1 });
      expect(await read('', project + 1)).toBeNull();
      expect(await store.currentVersion(project + 1)).toBe(2);
      expect(await store.changesSince(project, 0)).toEqual({
        version: 1,
        commits: [{ version: 1, changes: [{ path: 'shared', value: { a: 1 } }] }],
      });
    });

    it('replays the commits after a version from the change log', async () => {
      await set('a', 1);
      await patch('', { b: 2, 'c/d': 3 });
      await patch('', {});
      await store.delete(project, 'a', KEEP);
      expect(await store.changesSince(project, 1)).toEqual({
        version: 4,
        commits: [
          {
            version: 2,
            changes: [
              { path: 'b', value: 2 },
              { path: 'c/d', value: 3 },
            ],
          },
          { version: 4, changes: [{ path: 'a', value: null }] },
        ],
      });
      expect(await store.changesSince(project, 4)).toEqual({ version: 4, commits: [] });
      expect(await store.changesSince(project, 5)).toBeNull();
      expect(await store.changesSince(project, -1)).toBeNull();
      expect(await store.changesSince(project + 1, 0)).toEqual({ version: 0, commits: [] });
    });

    it('lists the paths changed after a version, or null when the log cannot tell', async () => {
      await set('a', 1);
      await patch('', { b: 2, 'c/d': 3 });
      await store.delete(project, 'a', KEEP);
      const changed = async (since: number, maxCommits: number) => {
        const answer = await store.changedPathsSince(project, since, maxCommits);
        return answer && { version: answer.version, paths: [...answer.paths].sort() };
      };
      expect(await changed(0, 10)).toEqual({ version: 3, paths: ['a', 'a', 'b', 'c/d'] });
      expect(await changed(1, 10)).toEqual({ version: 3, paths: ['a', 'b', 'c/d'] });
      expect(await changed(2, 10)).toEqual({ version: 3, paths: ['a'] });
      expect(await changed(3, 10)).toEqual({ version: 3, paths: [] });
      // More commits than the caller checks: it reads again rather than checking them.
      expect(await changed(0, 2)).toBeNull();
      expect(await changed(1, 2)).toEqual({ version: 3, paths: ['a', 'b', 'c/d'] });
      expect(await changed(4, 10)).toBeNull();
      expect(await changed(-1, 10)).toBeNull();
      expect(await store.changedPathsSince(project + 1, 0, 10)).toEqual({ version: 0, paths: [] });
      // A trimmed log no longer covers the versions it dropped.
      for (let i = 0; i < 4; i++) await set('e', i, project, { maxWrites: 2, maxAgeMs: 600_000 });
      expect(await changed(4, 10)).toBeNull();
      expect(await changed(5, 10)).toEqual({ version: 7, paths: ['e', 'e'] });
      // The root's path is the empty one.
      await set('', { f: 1 });
      expect(await changed(7, 10)).toEqual({ version: 8, paths: [''] });
    });

    it('trims the log to the last N writes', async () => {
      const small = { maxWrites: 5, maxAgeMs: 600_000 };
      for (let i = 1; i <= 12; i++) await set(`n/${i % 3}`, i, project, small);
      expect(await store.changesSince(project, 6)).toBeNull();
      const history = await store.changesSince(project, 7);
      expect(history?.commits.map((c) => c.version)).toEqual([8, 9, 10, 11, 12]);
    });

    it('trims the log to a maximum age', async () => {
      await set('a', 1);
      await set('a', 2);
      await sleep(60);
      await set('a', 3, project, { maxWrites: 10_000, maxAgeMs: 30 });
      expect(await store.changesSince(project, 1)).toBeNull();
      expect((await store.changesSince(project, 2))?.commits.map((c) => c.version)).toEqual([3]);
    });

    it('serializes concurrent writes of a project: consecutive versions, nothing lost', async () => {
      const writes = Array.from({ length: 40 }, (_, i) => set(`c/${i % 4}`, { i }));
      const commits = await Promise.all(writes);
      const versions = commits.map((c) => c.version).sort((a, b) => a - b);
      expect(versions).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      const history = await store.changesSince(project, 0);
      expect(history?.commits.map((c) => c.version)).toEqual(versions);
      // The stored tree is the log replayed in version order.
      const expected: JsonObject = {};
      for (const commit of history?.commits ?? []) {
        for (const change of commit.changes) expected[change.path.split('/')[1] as string] = change.value;
      }
      expect(await read('c')).toEqual(expected);
    });

    describe('batches (commit)', () => {
      const put = (path: string, value: JsonValue, p = project): TreeWrite => ({
        projectId: p,
        sets: [planSet(path, value)],
        readBack: null,
      });
      const merge = (path: string, value: JsonObject, p = project): TreeWrite => ({
        projectId: p,
        sets: planPatch(path, value),
        readBack: path,
      });
      const guarded = (path: string, value: JsonValue, ifMatch?: string[]): TreeWrite => {
        const sets = [planSet(path, value)];
        const hook = treeWriteHook(path, sets, ifMatch);
        return { projectId: project, sets, readBack: null, ...(hook ? { hook } : {}) };
      };
      const versionsOf = (outcomes: Awaited<ReturnType<TreeStore['commit']>>) =>
        outcomes.map((outcome) => (outcome.ok ? outcome.commit.version : null));

      // With merges, writes that read back go one by one; PUTs and deletes alone are stored as their net effect.
      for (const merges of [true, false]) {
        it(`stores a batch as its writes one after another would, each at the next version (${merges ? 'with merges' : 'PUTs and deletes only'})`, async () => {
          // Seeded random writes over a small space of paths, so they overlap in every way.
          const paths = ['', 'a', 'a/b', 'a/b/c', 'a/d', 'e', 'e/f/g'];
          const values: JsonValue[] = [null, 1, 'x', [1, 2], { k: 1 }, { b: { c: 2 }, d: true }, {}];
          const writes = (p: number): TreeWrite[] => {
            const random = seededRandom(21);
            const pick = () => values[randomInt(random, values.length)] as JsonValue;
            return Array.from({ length: 40 }, (_, i) => {
              const path = paths[randomInt(random, paths.length)] as string;
              return merges && i % 5 === 4 ? merge(path, { b: pick(), 'x/y': pick() }, p) : put(path, pick(), p);
            });
          };
          await set('a', { b: 'stored', z: 1 });
          await set('a', { b: 'stored', z: 1 }, project + 1);
          const batch = await store.commit(writes(project), KEEP);
          const alone = [];
          for (const write of writes(project + 1)) alone.push(...(await store.commit([write], KEEP)));
          expect(versionsOf(batch)).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
          expect(batch).toEqual(alone);
          expect(await read('')).toEqual(await read('', project + 1));
          expect(await store.changesSince(project, 1)).toEqual(await store.changesSince(project + 1, 1));
          expect(await store.currentVersion(project)).toBe(41);
        });
      }

      it("turns stored leaves at the ancestors of a batch's writes into objects", async () => {
        await set('a', { b: 'stored', z: 1 });
        const outcomes = await store.commit([put('a/b/c', 1), put('e', 2), put('a/z/y', { x: true })], KEEP);
        expect(versionsOf(outcomes)).toEqual([2, 3, 4]);
        expect(await read('')).toEqual({ a: { b: { c: 1 }, z: { y: { x: true } } }, e: 2 });
        // Read at the paths themselves: a leaf left there would answer alone.
        expect(await read('a/b')).toEqual({ c: 1 });
        expect(await read('a/z')).toEqual({ y: { x: true } });
      });

      it('lets a hook see the writes before it, and leaves a refused write out alone', async () => {
        const increment = () => guarded('n', { '.sv': { increment: 1 } });
        const outcomes = await store.commit(
          [
            increment(),
            increment(),
            guarded('m', 1),
            guarded('m', 2, ['not-the-etag']),
            guarded('m', 3, [treeEtag(1)]),
            increment(),
          ],
          KEEP,
        );
        expect(versionsOf(outcomes)).toEqual([1, 2, 3, null, 4, 5]);
        const refused = outcomes[3];
        expect(refused?.ok).toBe(false);
        if (refused && !refused.ok) expect(refused.error).toEqual(new TreePreconditionFailed(treeEtag(1), 1));
        expect(await read('')).toEqual({ n: 3, m: 3 });
        expect((await store.changesSince(project, 0))?.commits.map((c) => c.version)).toEqual([1, 2, 3, 4, 5]);
      });

      it('numbers each project of a batch on its own and trims each log', async () => {
        const outcomes = await store.commit(
          [put('a', 1), put('a', 2, project + 1), put('b', 1), put('c', 1), put('b', 2, project + 1)],
          { maxWrites: 2, maxAgeMs: 600_000 },
        );
        expect(versionsOf(outcomes)).toEqual([1, 1, 2, 3, 2]);
        expect(await read('')).toEqual({ a: 1, b: 1, c: 1 });
        expect(await read('', project + 1)).toEqual({ a: 2, b: 2 });
        expect((await store.changesSince(project, 1))?.commits.map((c) => c.version)).toEqual([2, 3]);
        expect(await store.changesSince(project, 0)).toBeNull();
      });
    });
  });
}
