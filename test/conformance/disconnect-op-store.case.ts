/**
 * The behaviour every engine's on-disconnect op store must have (§17), run against each engine by
 * test/storage/disconnect-op-store.test.ts: an op is stored only under a held lease and listed by
 * connection and order; a lapsed lease is claimed by exactly one of the instances racing for it,
 * its ops moving with it, while held and fresh leases stay; a tree write that runs an op deletes
 * the op's row in its transaction and is refused, writing nothing, when the row is gone (so two
 * instances running one op at once write it once). Real databases, no mocks.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/ports.js';
import { type DisconnectOp, DisconnectOpGone } from '../../src/core/realtime/disconnect-op-store.js';
import type { ChangeLogRetention, TreeWrite } from '../../src/core/realtime/tree-store.js';
import { planSet } from '../../src/core/realtime/tree-write.js';
import type { EngineFixture } from '../support/engines.js';

const KEEP: ChangeLogRetention = { maxWrites: 10_000, maxAgeMs: 600_000 };
const NOW = 1_800_000_000_000;
let nextId = 0;

function op(instanceId: string, connectionId: string, seq: number, fields: Partial<DisconnectOp> = {}): DisconnectOp {
  nextId += 1;
  return {
    id: `op-${nextId}`,
    instanceId,
    connectionId,
    seq,
    projectId: 7,
    op: 'set',
    path: `rooms/r/${connectionId}`,
    value: { online: true, since: { '.sv': 'timestamp' } },
    userId: 3,
    auth: { uid: '3', username: 'ann', roles: ['player'] },
    createdAt: NOW,
    ...fields,
  };
}

/** Registers the on-disconnect op store suite for one engine. */
export function disconnectOpStoreCases(engine: EngineFixture): void {
  describe.skipIf(engine.unavailable)(`the on-disconnect op store on ${engine.name}`, () => {
    let storage: Storage;

    beforeEach(async () => {
      storage = await engine.create();
    });
    afterEach(async () => {
      await engine.destroy(storage);
    });

    it('stores ops only under a held lease and lists them by connection and order', async () => {
      const store = storage.disconnectOps;
      expect(await store.add(op('a', 'c1', 1))).toBe(false);
      await store.startLease('a', NOW + 10_000);
      const later = op('a', 'c1', 2, { op: 'delete', value: null, userId: null, auth: null });
      const first = op('a', 'c1', 1);
      const other = op('a', 'c0', 1, { op: 'patch', value: { 'x/y': 1 } });
      for (const each of [later, first, other]) expect(await store.add(each)).toBe(true);
      expect(await store.add(op('b', 'c9', 1))).toBe(false);
      expect(await store.ofInstance('a')).toEqual([other, first, later]);
      await store.remove([first.id, 'no-such-op']);
      expect((await store.ofInstance('a')).map((each) => each.id)).toEqual([other.id, later.id]);
      expect(await store.ofInstance('b')).toEqual([]);
    });

    it('renews a held lease, and not one that ended or was claimed', async () => {
      const store = storage.disconnectOps;
      expect(await store.renewLease('a', NOW)).toBe(false);
      await store.startLease('a', NOW);
      expect(await store.renewLease('a', NOW + 5_000)).toBe(true);
      await store.endLease('a');
      expect(await store.renewLease('a', NOW + 5_000)).toBe(false);
      await store.startLease('b', NOW);
      expect(await store.claimLapsed('c', NOW + 1)).toBe(0);
      expect(await store.renewLease('b', NOW + 5_000)).toBe(false);
    });

    it('moves the ops of lapsed leases to the claimer, and leaves its own and fresh ones', async () => {
      const store = storage.disconnectOps;
      for (const [instance, expiry] of [
        ['dead', NOW - 1],
        ['alive', NOW + 10_000],
        ['me', NOW - 1],
      ] as const) {
        await store.startLease(instance, expiry);
        await store.add(op(instance, `${instance}-c`, 1));
        await store.add(op(instance, `${instance}-c`, 2));
      }
      expect(await store.claimLapsed('me', NOW)).toBe(2);
      const mine = await store.ofInstance('me');
      expect(mine.map((each) => each.connectionId)).toEqual(['dead-c', 'dead-c', 'me-c', 'me-c']);
      expect(mine.every((each) => each.instanceId === 'me')).toBe(true);
      expect(await store.ofInstance('dead')).toEqual([]);
      expect(await store.ofInstance('alive')).toHaveLength(2);
      expect(await store.claimLapsed('me', NOW)).toBe(0);
      expect(await store.renewLease('dead', NOW + 10_000)).toBe(false);
      expect(await store.renewLease('alive', NOW + 10_000)).toBe(true);
    });

    it('gives a lapsed lease to exactly one of the instances claiming it at once', async () => {
      const store = storage.disconnectOps;
      await store.startLease('dead', NOW - 1);
      for (let seq = 1; seq <= 20; seq += 1) await store.add(op('dead', `c${seq % 4}`, seq));
      for (const claimer of ['x', 'y', 'z']) await store.startLease(claimer, NOW + 10_000);
      const moved = await Promise.all(['x', 'y', 'z'].map((claimer) => store.claimLapsed(claimer, NOW)));
      expect(moved.filter((count) => count > 0)).toEqual([20]);
    });

    it('runs an op as a tree write once: the write deletes its row, a second one is refused and writes nothing', async () => {
      const { disconnectOps: store, tree } = storage;
      await store.startLease('a', NOW + 10_000);
      const stored = op('a', 'c1', 1, { projectId: 41 });
      await store.add(stored);
      const write = (value: string): TreeWrite => ({
        projectId: 41,
        sets: [planSet('rooms/r/c1', value)],
        readBack: null,
        consumes: stored.id,
      });
      const outcomes = await Promise.all([tree.commit([write('first')], KEEP), tree.commit([write('second')], KEEP)]);
      const ok = outcomes.flat().filter((outcome) => outcome.ok);
      expect(ok).toHaveLength(1);
      const refused = outcomes.flat().find((outcome) => !outcome.ok);
      expect(refused && !refused.ok && refused.error).toBeInstanceOf(DisconnectOpGone);
      expect(await tree.currentVersion(41)).toBe(1);
      expect(await store.ofInstance('a')).toEqual([]);
      // A refused write of a batch is left out alone: the others commit.
      const plain: TreeWrite = { projectId: 41, sets: [planSet('other', 1)], readBack: null };
      const [again, other] = await tree.commit([write('third'), plain], KEEP);
      expect(again?.ok).toBe(false);
      expect(other?.ok).toBe(true);
      expect((await tree.snapshot(41, '')).value).toEqual({ other: 1, rooms: { r: { c1: expect.any(String) } } });
    });
  });
}
