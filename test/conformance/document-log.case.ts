/**
 * The document change log of the `DocumentStore` port (§10): versions, what each commit logged,
 * retention, the commit listener and consistent snapshots. Run per engine by
 * test/storage/document-store.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseDocumentJson } from '../../src/core/documents/document-service.js';
import type { DocumentCommitRecord, DocumentMutation, DocumentStore } from '../../src/core/documents/document-store.js';
import { deleteMutation, putMutation } from '../../src/core/documents/document-writes.js';
import { AppError } from '../../src/core/errors.js';
import { parseDocumentPath } from '../../src/core/paths.js';
import type { Storage } from '../../src/core/ports.js';
import type { ChangeLogRetention } from '../../src/core/realtime/tree-store.js';
import type { EngineFixture } from '../support/engines.js';

const refused: DocumentMutation = {
  path: parseDocumentPath('refused/r'),
  readsStored: true,
  decide() {
    throw new AppError('forbidden', 'no');
  },
};

/** Registers the change log suite for one engine. */
export function documentLogCases(engine: EngineFixture): void {
  describe.skipIf(engine.unavailable)(`DocumentStore change log on ${engine.name}`, () => {
    let storage: Storage;
    let store: DocumentStore;
    let project = 5000;
    let retention: ChangeLogRetention = { maxWrites: 1000, maxAgeMs: 60_000 };
    /** The commits the store's `apply` calls reported, in the order they were answered. */
    const events: DocumentCommitRecord[] = [];

    beforeAll(async () => {
      storage = await engine.create();
      store = storage.documents;
    });
    afterAll(async () => {
      if (storage) await engine.destroy(storage);
    });
    beforeEach(() => {
      project += 10;
      events.length = 0;
      retention = { maxWrites: 1000, maxAgeMs: 60_000 };
    });

    const apply = async (mutations: DocumentMutation[]) => {
      const { applied, commit } = await store.apply(project, mutations, retention);
      events.push(commit);
      return applied;
    };
    const put = (path: string, data = {}) => apply([putMutation(parseDocumentPath(path), data, crypto.randomUUID())]);
    const del = (path: string) => apply([deleteMutation(parseDocumentPath(path))]);

    it('logs each commit with its version: written data, deletes as null, with the kept id', async () => {
      expect(await store.currentVersion(project)).toBe(0);
      const [first] = await put('rooms/a', { n: 1 });
      await put('rooms/a', { n: 2 });
      await del('rooms/a');
      expect(await store.currentVersion(project)).toBe(3);
      const id = first?.kind === 'written' ? first.id : '';
      const history = await store.changesSince(project, 0);
      expect(history).toEqual({
        version: 3,
        commits: [
          { version: 1, changes: [{ path: 'rooms/a', id, data: { n: 1 }, previous: null }] },
          { version: 2, changes: [{ path: 'rooms/a', id, data: { n: 2 }, previous: { n: 1 } }] },
          { version: 3, changes: [{ path: 'rooms/a', id, data: null, previous: { n: 2 } }] },
        ],
      });
      expect((await store.changesSince(project, 2))?.commits.map((c) => c.version)).toEqual([3]);
      expect(await store.changesSince(project, 3)).toEqual({ version: 3, commits: [] });
    });

    it('answers null for a since above the current version or negative', async () => {
      await put('rooms/a');
      expect(await store.changesSince(project, 2)).toBeNull();
      expect(await store.changesSince(project, -1)).toBeNull();
    });

    it('reports each commit; a refused write takes no version', async () => {
      await put('rooms/a', { x: 1 });
      await expect(apply([refused])).rejects.toThrow('no');
      await put('rooms/b', { x: 2 });
      expect(await store.currentVersion(project)).toBe(2);
      expect(events.map((c) => [c.version, c.changes.map((x) => x.path)])).toEqual([
        [1, ['rooms/a']],
        [2, ['rooms/b']],
      ]);
    });

    it('gives each write of a group commit its own version, in the order they apply (§10)', async () => {
      const paths = ['rooms/g', 'rooms/h', 'rooms/g', 'rooms/i', 'rooms/g'];
      // Handed over in one turn: the engines commit them together.
      const applied = await Promise.all([
        ...paths.map((path, n) => apply([putMutation(parseDocumentPath(path), { n }, crypto.randomUUID())])),
        apply([refused]).catch(() => null),
      ]);
      const versions = applied.slice(0, paths.length).map((result) => result?.[0]?.version);
      expect(versions).toEqual([1, 2, 3, 4, 5]);
      expect(await store.currentVersion(project)).toBe(5);
      expect(events.map((c) => c.version)).toEqual([1, 2, 3, 4, 5]);
      const history = await store.changesSince(project, 0);
      expect(history?.commits.map((c) => c.changes.map((x) => [x.path, x.data, x.previous]))).toEqual([
        [['rooms/g', { n: 0 }, null]],
        [['rooms/h', { n: 1 }, null]],
        [['rooms/g', { n: 2 }, { n: 0 }]],
        [['rooms/i', { n: 3 }, null]],
        [['rooms/g', { n: 4 }, { n: 2 }]],
      ]);
      expect(history?.commits).toEqual(events);
      const stored = await store.documentSnapshot(project, 'rooms/g');
      expect(stored.document?.data).toEqual({ n: 4 });
      expect((await store.getWithCollections(project, 'rooms/g'))?.version).toBe(5);
      expect((await store.getWithCollections(project, 'rooms/h'))?.version).toBe(2);
    });

    it('logs a batch writing one document twice as one change, and one created and deleted as none', async () => {
      await put('rooms/k', { n: 0 });
      const k = parseDocumentPath('rooms/k');
      const l = parseDocumentPath('rooms/l');
      await apply([
        putMutation(k, { n: 1 }, crypto.randomUUID()),
        putMutation(l, { n: 1 }, crypto.randomUUID()),
        putMutation(k, { n: 2 }, crypto.randomUUID()),
        deleteMutation(l),
      ]);
      const history = await store.changesSince(project, 1);
      expect(history?.commits).toEqual([
        { version: 2, changes: [{ path: 'rooms/k', id: expect.any(String), data: { n: 2 }, previous: { n: 0 } }] },
      ]);
      expect(events.at(-1)).toEqual(history?.commits[0]);
    });

    it('logs nothing of a refused batch (it takes no version) and everything of an accepted one in one commit', async () => {
      await expect(
        apply([putMutation(parseDocumentPath('rooms/x'), {}, crypto.randomUUID()), refused]),
      ).rejects.toThrow('no');
      await apply([
        putMutation(parseDocumentPath('rooms/y'), { y: 1 }, crypto.randomUUID()),
        putMutation(parseDocumentPath('rooms/z'), { z: 1 }, crypto.randomUUID()),
      ]);
      const history = await store.changesSince(project, 0);
      expect(history?.commits.map((c) => [c.version, c.changes.map((x) => x.path)])).toEqual([
        [1, ['rooms/y', 'rooms/z']],
      ]);
    });

    it('keeps only the last maxWrites commits; an older since is no longer covered', async () => {
      retention = { maxWrites: 3, maxAgeMs: 60_000 };
      for (let i = 0; i < 6; i++) await put(`rooms/r${i}`);
      expect(await store.changesSince(project, 2)).toBeNull();
      expect((await store.changesSince(project, 3))?.commits.map((c) => c.version)).toEqual([4, 5, 6]);
    });

    it('keeps at least the last maxWrites commits, dropping older ones a sixteenth of maxWrites at a time', async () => {
      retention = { maxWrites: 32, maxAgeMs: 60_000 };
      for (let i = 0; i < 33; i++) await put(`rooms/c${i}`);
      // 33 commits, one over: not yet a chunk of 2.
      expect((await store.changesSince(project, 0))?.commits).toHaveLength(33);
      await put('rooms/c33');
      expect(await store.changesSince(project, 1)).toBeNull();
      expect((await store.changesSince(project, 2))?.commits.map((c) => c.version)).toEqual(
        Array.from({ length: 32 }, (_, i) => i + 3),
      );
    });

    it('keeps no commit older than maxAgeMs', async () => {
      retention = { maxWrites: 1000, maxAgeMs: 1 };
      await put('rooms/a');
      await new Promise((resolve) => setTimeout(resolve, 20));
      await put('rooms/b');
      expect(await store.changesSince(project, 0)).toBeNull();
      expect((await store.changesSince(project, 1))?.commits.map((c) => c.version)).toEqual([2]);
    });

    it('reads a query and a document with the version they reflect', async () => {
      await put('rooms/a', { n: 1 });
      await put('rooms/b', { n: 2 });
      const query = await store.querySnapshot(project, { collection: 'rooms', where: [] });
      expect(query.version).toBe(2);
      expect(query.documents.map((json) => parseDocumentJson(json).path)).toEqual(['rooms/a', 'rooms/b']);
      const doc = await store.documentSnapshot(project, 'rooms/b');
      expect(doc).toEqual({ version: 2, document: { id: expect.any(String), path: 'rooms/b', data: { n: 2 } } });
      expect(await store.documentSnapshot(project, 'rooms/none')).toEqual({ version: 2, document: null });
    });

    it('keeps projects apart', async () => {
      await put('rooms/a');
      expect(await store.currentVersion(project + 1)).toBe(0);
      expect(await store.changesSince(project + 1, 0)).toEqual({ version: 0, commits: [] });
    });
  });
}
