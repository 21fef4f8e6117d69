import { describe, expect, it } from 'vitest';
import { MemoryRankCache } from '../../../src/core/leaderboards/memory-rank-cache.js';
import {
  compareRankKeys,
  FIRST_UNRANKED,
  type RankKey,
  unrankedKey,
} from '../../../src/core/leaderboards/rank-order.js';
import { RankedBlocks } from '../../../src/core/leaderboards/ranked-blocks.js';
import { randomInt, seededRandom } from '../../support/prng.js';

const key = (score: number, updatedAt: number, userId: number): RankKey => ({ score, updatedAt, userId });

describe('RankedBlocks', () => {
  it('is empty at first and answers on an empty tree', () => {
    const tree = new RankedBlocks();
    expect(tree.size).toBe(0);
    expect(tree.countBelow(key(1, 1, 1))).toBe(0);
    expect(tree.slice(0, 10)).toEqual([]);
    expect(tree.remove(key(1, 1, 1))).toBe(false);
  });

  it('orders by score, then the earlier time, then the lower user id', () => {
    const tree = new RankedBlocks(4);
    const keys = [
      key(5, 10, 3),
      key(5, 10, 1),
      key(5, 9, 7),
      key(-2, 50, 9),
      key(7, 1, 2),
      unrankedKey(4),
      unrankedKey(2),
    ];
    for (const k of keys) expect(tree.insert(k)).toBe(true);
    expect(tree.insert(key(5, 10, 1))).toBe(false);
    expect(tree.toArray()).toEqual([...keys].sort(compareRankKeys));
    expect(tree.toArray().map((k) => k.userId)).toEqual([9, 7, 1, 3, 2, 2, 4]);
    expect(tree.countBelow(FIRST_UNRANKED)).toBe(5);
    expect(tree.countBelow(key(5, 10, 3))).toBe(3);
    expect(tree.slice(2, 3).map((k) => k.userId)).toEqual([1, 3, 2]);
    expect(tree.slice(6, 10).map((k) => k.userId)).toEqual([4]);
    expect(tree.slice(7, 10)).toEqual([]);
  });

  it('builds from sorted keys and keeps working after inserts and removals', () => {
    const tree = new RankedBlocks(8);
    const keys = Array.from({ length: 1000 }, (_, i) => key(i, 0, i));
    tree.build(keys);
    expect(tree.size).toBe(1000);
    expect(tree.slice(500, 2)).toEqual([key(500, 0, 500), key(501, 0, 501)]);
    for (let i = 0; i < 1000; i += 2) expect(tree.remove(key(i, 0, i))).toBe(true);
    expect(tree.size).toBe(500);
    expect(tree.countBelow(key(501, 0, 501))).toBe(250);
    tree.insert(key(-1, 0, 5000));
    expect(tree.slice(0, 1)).toEqual([key(-1, 0, 5000)]);
  });

  it('matches a plain sorted array after thousands of random operations (seeded property test)', () => {
    for (const [seed, capacity] of [
      [11, 4],
      [12, 16],
      [13, 256],
    ] as const) {
      const random = seededRandom(seed);
      const tree = new RankedBlocks(capacity);
      const reference: RankKey[] = [];
      const users = new Map<number, RankKey>();
      for (let step = 0; step < 5000; step++) {
        const userId = randomInt(random, 800);
        const old = users.get(userId);
        if (old && random() < 0.2) {
          tree.remove(old);
          reference.splice(
            reference.findIndex((k) => compareRankKeys(k, old) === 0),
            1,
          );
          users.delete(userId);
          continue;
        }
        // Few distinct scores and times: ties are the common case.
        const next =
          random() < 0.1 ? unrankedKey(userId) : key(randomInt(random, 20) - 10, randomInt(random, 5), userId);
        if (old) {
          tree.remove(old);
          reference.splice(
            reference.findIndex((k) => compareRankKeys(k, old) === 0),
            1,
          );
        }
        tree.insert(next);
        reference.push(next);
        users.set(userId, next);
        if (step % 250 === 0) {
          reference.sort(compareRankKeys);
          expect(tree.toArray()).toEqual(reference);
        }
      }
      reference.sort(compareRankKeys);
      expect(tree.size).toBe(reference.length);
      for (const [i, k] of reference.entries()) {
        expect(tree.countBelow(k)).toBe(i);
      }
      for (let offset = 0; offset < reference.length; offset += 37) {
        expect(tree.slice(offset, 13)).toEqual(reference.slice(offset, offset + 13));
      }
      // Each user's key and place are found by user id, and a removed user's are gone.
      for (let userId = 0; userId < 800; userId++) {
        const held = users.get(userId);
        expect(tree.placeOfUser(userId)).toEqual(held && { key: held, below: tree.countBelow(held) });
      }
    }
  });

  it('splits and merges blocks through 20,000 sorted inserts and removals, ranks intact', () => {
    const tree = new RankedBlocks(16);
    for (let i = 0; i < 20_000; i++) tree.insert(key(i, 0, i));
    expect(tree.size).toBe(20_000);
    expect(tree.countBelow(key(12_345, 0, 12_345))).toBe(12_345);
    // Removing three of every four from the front merges blocks; the rest keep their order and places.
    for (let i = 0; i < 20_000; i++) if (i % 4 !== 0) expect(tree.remove(key(i, 0, i))).toBe(true);
    expect(tree.size).toBe(5_000);
    expect(tree.placeOfUser(12_344)).toEqual({ key: key(12_344, 0, 12_344), below: 3_086 });
    expect(tree.slice(4_998, 5)).toEqual([key(19_992, 0, 19_992), key(19_996, 0, 19_996)]);
    for (let i = 0; i < 20_000; i += 4) tree.remove(key(i, 0, i));
    expect(tree.size).toBe(0);
    expect(tree.toArray()).toEqual([]);
    expect(tree.insert(key(1, 1, 1))).toBe(true);
    expect(tree.toArray()).toEqual([key(1, 1, 1)]);
  });

  it('keeps a user found while a move inserts their new key before removing the old one', () => {
    const tree = new RankedBlocks(4);
    tree.build([key(1, 0, 1), key(2, 0, 2), key(3, 0, 3)]);
    expect(tree.insert(key(2.5, 0, 1))).toBe(true);
    expect(tree.remove(key(1, 0, 1))).toBe(true);
    expect(tree.placeOfUser(1)).toEqual({ key: key(2.5, 0, 1), below: 1 });
  });
});

describe('MemoryRankCache', () => {
  const bucket = { boardId: 1, revision: 1, periodStart: 0, league: 'global' };

  it('loads a bucket by keyset batches and replays changes committed during the load', async () => {
    const cache = new MemoryRankCache({ batchSize: 3, blockCapacity: 4 });
    const stored = Array.from({ length: 10 }, (_, i) => key(i, 0, i + 1));
    let calls = 0;
    const ready = cache.ensure(bucket, async (after, limit) => {
      calls++;
      // A write commits while the load is under way: user 1 moves from the first to the last place.
      if (calls === 2) await cache.apply(bucket, { remove: key(0, 0, 1), insert: key(100, 0, 1) });
      const from = after ? stored.findIndex((k) => compareRankKeys(k, after) > 0) : 0;
      return from < 0 ? [] : stored.slice(from, from + limit);
    });
    await ready;
    expect(calls).toBe(4);
    expect((await cache.slice(bucket, 0, 20)).map((k) => k.userId)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 1]);
    expect(await cache.size(bucket)).toBe(10);
    // Each user's key follows the same moves: user 1 is found at its new key.
    expect(await cache.placesOf(bucket, [1, 2, 11])).toEqual([
      { key: key(100, 0, 1), below: 9 },
      { key: key(1, 0, 2), below: 0 },
      undefined,
    ]);
  });

  it('finds each user by their current key through moves, removals and replays', async () => {
    const cache = new MemoryRankCache({ blockCapacity: 4 });
    await cache.ensure(bucket, async () => [key(1, 0, 1), key(2, 0, 2), unrankedKey(3)]);
    await cache.apply(bucket, { remove: key(1, 0, 1), insert: key(9, 5, 1) });
    await cache.apply(bucket, { remove: key(2, 0, 2) });
    // A replayed change of a key no longer held changes nothing.
    await cache.apply(bucket, { remove: key(1, 0, 1) });
    await cache.apply(bucket, { remove: unrankedKey(3), insert: key(4, 1, 3) });
    expect(await cache.placesOf(bucket, [3, 2, 1])).toEqual([
      { key: key(4, 1, 3), below: 0 },
      undefined,
      { key: key(9, 5, 1), below: 1 },
    ]);
  });

  it('shares one load between concurrent callers and drops buckets of older periods', async () => {
    const cache = new MemoryRankCache();
    let loads = 0;
    const source = async () => {
      loads++;
      return [key(1, 0, 1)];
    };
    await Promise.all([cache.ensure(bucket, source), cache.ensure(bucket, source)]);
    expect(loads).toBe(1);
    const next = { ...bucket, periodStart: 1 };
    await cache.ensure(next, async () => []);
    await expect(cache.size(bucket)).rejects.toThrow(/not loaded/);
    expect(await cache.size(next)).toBe(0);
  });

  it('forgets a bucket whose load failed so the next caller retries', async () => {
    const cache = new MemoryRankCache();
    await expect(cache.ensure(bucket, async () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    await cache.ensure(bucket, async () => [key(1, 0, 1)]);
    expect(await cache.size(bucket)).toBe(1);
  });
});
