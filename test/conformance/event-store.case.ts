/**
 * The behaviour every engine's outbox must have (§16), run against each engine by
 * test/storage/event-store.test.ts: document and tree commits that ask for it record their events
 * in their own transaction, in commit order per project (a refused write records nothing); a
 * consumer starts at every kept event or at the head, holds a lease another owner cannot take
 * until it expires, moves past what it took, records failures; trimming drops what every consumer
 * took and what expired. Real databases, no mocks.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { putMutation } from '../../src/core/documents/document-writes.js';
import type { OutboxEvent } from '../../src/core/events/outbox-events.js';
import { parseDocumentPath } from '../../src/core/paths.js';
import type { Storage } from '../../src/core/ports.js';
import { planSet } from '../../src/core/realtime/tree-write.js';
import type { EngineFixture } from '../support/engines.js';

const PLAYER = { name: 'player', permissions: [] };
const KEEP = { maxWrites: 1000, maxAgeMs: 600_000 };
const lease = (owner: string, now = Date.now()) => ({ owner, now, leaseMs: 10_000 });

/** Registers the outbox suite for one engine. */
export function eventStoreCases(engine: EngineFixture): void {
  describe.skipIf(engine.unavailable)(`the events outbox on ${engine.name}`, () => {
    let storage: Storage;
    let projectId: number;
    let otherId: number;

    beforeEach(async () => {
      storage = await engine.create();
      const orgId = (await storage.accounts.ensureOrganisation('acme')).id;
      projectId = (await storage.accounts.createProject(orgId, 'game', PLAYER)).id;
      otherId = (await storage.accounts.createProject(orgId, 'other', PLAYER)).id;
    });
    afterEach(async () => {
      await engine.destroy(storage);
    });

    const putDocument = (project: number, path: string, data: Record<string, number>, record = true) =>
      storage.documents.apply(
        project,
        [putMutation(parseDocumentPath(path), data, crypto.randomUUID())],
        KEEP,
        record ? 'always' : 'if-webhook',
      );
    const setTree = (project: number, path: string, value: number, record = true) =>
      storage.tree.commit(
        [
          {
            projectId: project,
            sets: [planSet(path, value)],
            readBack: null,
            ...(record ? { event: { path, patch: false } } : {}),
          },
        ],
        KEEP,
      );
    const events = async (project: number, after = 0) =>
      (await storage.events.read(project, after, 100)).map((e) => ({
        seq: e.seq,
        event: JSON.parse(e.json) as OutboxEvent,
      }));

    it('records the events of the commits that ask, in commit order per project, and nothing for the others', async () => {
      await putDocument(projectId, 'a/1', { n: 1 });
      await setTree(projectId, 'r/x', 5);
      await putDocument(projectId, 'a/1', { n: 2 });
      await putDocument(projectId, 'a/quiet', { n: 0 }, false);
      await setTree(projectId, 'r/quiet', 0, false);
      await putDocument(otherId, 'b/1', { n: 9 });
      const mine = await events(projectId);
      expect(mine.map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(mine.map((e) => e.event.type)).toEqual(['document.written', 'realtime.written', 'document.written']);
      expect(mine[0]?.event).toMatchObject({
        project_id: projectId,
        data: { path: 'a/1', data: { n: 1 }, previous: null },
      });
      expect(mine[1]?.event.data).toMatchObject({ path: 'r/x', value: 5 });
      expect(mine[2]?.event.data).toMatchObject({ data: { n: 2 }, previous: { n: 1 } });
      expect((await events(otherId)).map((e) => e.seq)).toEqual([1]);
      expect(await storage.events.projects()).toEqual([projectId, otherId].sort((a, b) => a - b));
      expect((await events(projectId, 2)).map((e) => e.seq)).toEqual([3]);
    });

    it('records nothing for a write that is refused', async () => {
      const refused = {
        path: parseDocumentPath('a/no'),
        readsStored: true,
        decide: () => {
          throw new Error('refused');
        },
      };
      await expect(storage.documents.apply(projectId, [refused], KEEP, 'always')).rejects.toThrow('refused');
      const [outcome] = await storage.tree.commit(
        [
          {
            projectId,
            sets: [],
            readBack: null,
            event: { path: 'r/no', patch: false },
            hook: {
              reads: [],
              resolve: () => {
                throw new Error('refused');
              },
            },
          },
        ],
        KEEP,
      );
      expect(outcome?.ok).toBe(false);
      expect(await events(projectId)).toEqual([]);
    });

    it('gives a consumer a lease others wait for, its position, and its failures', async () => {
      await putDocument(projectId, 'a/1', { n: 1 });
      await putDocument(projectId, 'a/2', { n: 2 });
      const now = Date.now();
      const first = await storage.events.claim(projectId, 'after:x', lease('one', now), 'kept');
      expect(first).toEqual({ position: 0, attempts: 0, nextAttemptAt: 0 });
      expect(await storage.events.claim(projectId, 'after:x', lease('two', now + 1000), 'kept')).toBeNull();
      await storage.events.advance(projectId, 'after:x', 'one', 1);
      await storage.events.advance(projectId, 'after:x', 'two', 2);
      await storage.events.fail(projectId, 'after:x', 'one', { attempts: 1, at: now + 1000, error: 'boom' });
      // The lease ran out: another owner takes over where the first left off.
      const taken = await storage.events.claim(projectId, 'after:x', lease('two', now + 11_000), 'kept');
      expect(taken).toEqual({ position: 1, attempts: 1, nextAttemptAt: now + 1000 });
      await storage.events.release(projectId, 'after:x', 'two');
      expect(await storage.events.claim(projectId, 'after:x', lease('one', now + 11_001), 'kept')).not.toBeNull();
      // A consumer made now starts after the events already recorded.
      expect(await storage.events.claim(projectId, 'webhook:1', lease('one'), 'new')).toMatchObject({ position: 2 });
    });

    it('trims what every consumer took, and what expired whoever has not', async () => {
      for (let i = 1; i <= 4; i++) await putDocument(projectId, `a/${i}`, { n: i });
      await storage.events.trim(projectId, 0);
      expect(await events(projectId)).toHaveLength(4);
      await storage.events.claim(projectId, 'after:a', lease('one'), 'kept');
      await storage.events.claim(projectId, 'after:b', lease('one'), 'kept');
      await storage.events.advance(projectId, 'after:a', 'one', 3);
      await storage.events.advance(projectId, 'after:b', 'one', 2);
      await storage.events.trim(projectId, 0);
      expect((await events(projectId)).map((e) => e.seq)).toEqual([3, 4]);
      await storage.events.trim(projectId, Date.now() + 60_000);
      expect(await events(projectId)).toEqual([]);
      await putDocument(projectId, 'a/5', { n: 5 });
      expect((await events(projectId)).map((e) => e.seq)).toEqual([5]);
    });
  });
}
