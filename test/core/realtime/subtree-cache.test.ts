/**
 * `SubtreeJsonCache` over each engine: a kept subtree is served only while the database's change
 * log shows nothing written at, below or above it since. Writes go to the store directly, never
 * through the cache, as another instance's or worker's would.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, type JsonObject, type JsonValue } from '../../../src/core/json.js';
import type { Storage } from '../../../src/core/ports.js';
import { changeReaches, SubtreeJsonCache } from '../../../src/core/realtime/subtree-cache.js';
import { etagOfCanonicalJson } from '../../../src/core/realtime/tree-atomic.js';
import type { ChangeLogRetention, TreeStore } from '../../../src/core/realtime/tree-store.js';
import { planPatch, planSet } from '../../../src/core/realtime/tree-write.js';
import { engines } from '../../support/engines.js';

const KEEP: ChangeLogRetention = { maxWrites: 10_000, maxAgeMs: 600_000 };

/** A room of 400 leaves: about 6 KB of JSON, above the size the cache keeps. */
function room(seed: number): JsonObject {
  return Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`p${i}`, seed * 1000 + i]));
}

/** The real store, counting the leaf reads the cache makes. */
function counted(store: TreeStore) {
  const counter = { reads: 0 };
  const wrapped: TreeStore = Object.create(store);
  wrapped.packedLeaves = (projectId, path) => {
    counter.reads++;
    return store.packedLeaves(projectId, path);
  };
  return { store: wrapped, counter };
}

describe('changeReaches', () => {
  it('is true for a change at, below or above the path, false beside it', () => {
    expect(changeReaches('rooms/a', 'rooms/a')).toBe(true);
    expect(changeReaches('rooms/a/p1', 'rooms/a')).toBe(true);
    expect(changeReaches('rooms', 'rooms/a')).toBe(true);
    expect(changeReaches('', 'rooms/a')).toBe(true);
    expect(changeReaches('rooms/b', '')).toBe(true);
    expect(changeReaches('rooms/ab', 'rooms/a')).toBe(false);
    expect(changeReaches('rooms/b', 'rooms/a')).toBe(false);
    expect(changeReaches('room', 'rooms/a')).toBe(false);
  });
});

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`SubtreeJsonCache on ${engine.name}`, () => {
    let storage: Storage;
    let project = 0;
    beforeAll(async () => {
      storage = await engine.create();
    });
    afterAll(async () => {
      if (storage) await engine.destroy(storage);
    });
    beforeEach(() => {
      project += 1;
    });

    const set = (path: string, value: JsonValue, retention = KEEP) =>
      storage.tree.set(project, planSet(path, value), retention);
    /** The answer a fresh read gives: the JSON of the snapshot, as text. */
    const expected = async (path: string) => canonicalJson((await storage.tree.snapshot(project, path)).value);
    const text = (json: Uint8Array) => Buffer.from(json).toString();

    it('serves a kept subtree without reading its leaves while writes land elsewhere', async () => {
      const { store, counter } = counted(storage.tree);
      const cache = new SubtreeJsonCache(store, { maxBytes: 1 << 20 });
      await set('rooms/a', room(1));
      const first = await cache.read(project, 'rooms/a');
      await set('rooms/b', room(2));
      await set('rooms/ab', 'a sibling whose name starts with a');
      await storage.tree.patch(project, 'lobby', planPatch('lobby', { x: 1, y: 2 }), KEEP);
      const again = await cache.read(project, 'rooms/a');
      expect(counter.reads).toBe(1);
      expect(text(again.json)).toBe(await expected('rooms/a'));
      expect(again.etag).toBe(first.etag);
      expect(again.etag).toBe(etagOfCanonicalJson(again.json));
      // What is kept holds its own bytes, not the larger buffer the writer filled (the size counted).
      expect(again.json.buffer.byteLength).toBe(again.json.byteLength);
    });

    it('reads again after a write at, below or above the kept path', async () => {
      const { store, counter } = counted(storage.tree);
      const cache = new SubtreeJsonCache(store, { maxBytes: 1 << 20 });
      await set('rooms/a', room(1));
      const writes: [string, JsonValue][] = [
        ['rooms/a', room(2)],
        ['rooms/a/p7', 'changed below'],
        ['rooms/a/p8/deeper', true],
        ['rooms', { a: room(3), b: 1 }],
        ['', { rooms: { a: room(4) } }],
      ];
      await cache.read(project, 'rooms/a');
      for (const [path, value] of writes) {
        await set(path, value);
        expect(text((await cache.read(project, 'rooms/a')).json)).toBe(await expected('rooms/a'));
      }
      expect(counter.reads).toBe(1 + writes.length);
      await storage.tree.delete(project, 'rooms', KEEP);
      expect(text((await cache.read(project, 'rooms/a')).json)).toBe('null');
    });

    it('reads again when the change log no longer reaches back to the kept version', async () => {
      const { store, counter } = counted(storage.tree);
      const cache = new SubtreeJsonCache(store, { maxBytes: 1 << 20 });
      await set('rooms/a', room(1));
      await cache.read(project, 'rooms/a');
      for (let i = 0; i < 3; i++) await set('elsewhere', i, { maxWrites: 1, maxAgeMs: 600_000 });
      expect(text((await cache.read(project, 'rooms/a')).json)).toBe(await expected('rooms/a'));
      expect(counter.reads).toBe(2);
      // Kept again at the current version: the next read is served.
      await cache.read(project, 'rooms/a');
      expect(counter.reads).toBe(2);
    });

    it('reads again rather than check more commits than it is allowed to', async () => {
      const { store, counter } = counted(storage.tree);
      const cache = new SubtreeJsonCache(store, { maxBytes: 1 << 20, maxCommitsChecked: 2 });
      await set('rooms/a', room(1));
      await cache.read(project, 'rooms/a');
      await set('x', 1);
      await set('y', 1);
      await cache.read(project, 'rooms/a');
      expect(counter.reads).toBe(1);
      for (const path of ['x', 'y', 'z']) await set(path, 2);
      await cache.read(project, 'rooms/a');
      expect(counter.reads).toBe(2);
    });

    it('keeps neither small subtrees nor anything when given no bytes, and keeps projects apart', async () => {
      const small = counted(storage.tree);
      const cache = new SubtreeJsonCache(small.store, { maxBytes: 1 << 20 });
      await set('rooms/a', { tiny: 1 });
      await cache.read(project, 'rooms/a');
      await cache.read(project, 'rooms/a');
      expect(small.counter.reads).toBe(2);

      const none = counted(storage.tree);
      const off = new SubtreeJsonCache(none.store, { maxBytes: 0 });
      await set('rooms/b', room(1));
      await off.read(project, 'rooms/b');
      await off.read(project, 'rooms/b');
      expect(none.counter.reads).toBe(2);

      await cache.read(project, 'rooms/b');
      await storage.tree.set(project + 1000, planSet('rooms/b', room(5)), KEEP);
      expect(text((await cache.read(project + 1000, 'rooms/b')).json)).toBe(canonicalJson(room(5)));
      expect(text((await cache.read(project, 'rooms/b')).json)).toBe(canonicalJson(room(1)));
    });
  });
}
