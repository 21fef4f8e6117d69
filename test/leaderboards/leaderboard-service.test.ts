/**
 * The §5 rules through the leaderboard service on every engine: ranks from the rank structure,
 * listings, `me`, operators, ties, empty boards, big boards, assigned users without a stat, and
 * a seeded property test against ranks computed by a plain sort of what the database holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaderboards } from '../../src/core/leaderboards/create-leaderboards.js';
import type { Leaderboard, LeaderboardEntry } from '../../src/core/leaderboards/leaderboard-model.js';
import type { LeaderboardService } from '../../src/core/leaderboards/leaderboard-service.js';
import { compareRankKeys, keyOfEntry, scoreOf } from '../../src/core/leaderboards/rank-order.js';
import type { Storage } from '../../src/core/ports.js';
import { ManualClock } from '../support/clock.js';
import { engines } from '../support/engines.js';
import { definition, ladder, league } from '../support/leaderboards.js';
import { randomInt, seededRandom } from '../support/prng.js';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const DAY = 86_400_000;

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`leaderboard service on ${engine.name}`, () => {
    let storage: Storage;
    let clock: ManualClock;
    let service: LeaderboardService;
    let project = 500;
    beforeAll(async () => {
      storage = await engine.create();
      clock = new ManualClock(T0);
      service = createLeaderboards({ store: storage.leaderboards, profiles: storage.accounts, clock });
    });
    afterAll(async () => {
      await service?.stop();
      if (storage) await engine.destroy(storage);
    });

    const fresh = () => createLeaderboards({ store: storage.leaderboards, profiles: storage.accounts, clock });
    const users = (p: number, slug: string, query = {}) => service.users(p, 1, slug, query);

    it('answers an empty board: no entries, a null rank, the lowest league', async () => {
      const p = project++;
      await service.create(p, definition('empty'));
      const bundle = await service.bundle(p, 7, 'empty', { include: ['meta,leagues,rewards,entries,users,me'] });
      expect(bundle.entries).toEqual({
        pagination: { limit: 50, offset: 0, total: 0, has_more: false },
        league: 'global',
        entries: [],
      });
      expect(bundle.users).toEqual({
        pagination: { limit: 100, offset: 0, total: 0, has_more: false },
        league: 'global',
        users: [],
      });
      expect(bundle.me).toMatchObject({ user_id: 7, rank: null, stat_value: null, league: 'global', expired: false });
      expect(bundle.leagues).toEqual([
        { slug: 'global', name: 'GLOBAL', order: 0, min_stat: null, promote_top: null, demote_bottom: null, users: 0 },
      ]);
    });

    it('ranks ties by the earlier update, then the lower user id, 1-based and unique', async () => {
      const p = project++;
      await service.create(p, definition('ties'));
      clock.set(T0 + 10);
      await service.submit(p, 'ties', 30, 100);
      await service.submit(p, 'ties', 20, 100);
      clock.set(T0 + 5);
      await service.submit(p, 'ties', 40, 100);
      clock.set(T0 + 20);
      await service.submit(p, 'ties', 10, 50);
      await service.submit(p, 'ties', 50, 200);
      const list = await users(p, 'ties');
      expect(list.users.map((u) => [u.rank, u.user_id, u.stat_value])).toEqual([
        [1, 50, 200],
        [2, 40, 100],
        [3, 20, 100],
        [4, 30, 100],
        [5, 10, 50],
      ]);
      const me = await service.bundle(p, 30, 'ties', { include: ['me'] });
      expect(me.me).toMatchObject({ rank: 4, stat_value: 100, league: 'global' });
      const entries = await service.bundle(p, 30, 'ties', { include: ['entries'], limit: 2, offset: 1 });
      expect(entries.entries).toEqual({
        pagination: { limit: 2, offset: 1, total: 5, has_more: true },
        league: 'global',
        entries: [
          { rank: 2, user_id: 40, stat_value: 100, league: 'global', updated_at: new Date(T0 + 5).toISOString() },
          { rank: 3, user_id: 20, stat_value: 100, league: 'global', updated_at: new Date(T0 + 10).toISOString() },
        ],
      });
    });

    it('applies best, latest and increment, and keeps the tie time of a best that did not improve', async () => {
      const p = project++;
      await service.create(p, definition('best'));
      await service.create(p, definition('latest', { operator: 'latest' }));
      await service.create(p, definition('sum', { operator: 'increment', sort: 'asc' }));
      clock.set(T0 + 100);
      expect(await service.submit(p, 'best', 1, 10)).toMatchObject({ rank: 1, stat_value: 10 });
      clock.set(T0 + 200);
      await service.submit(p, 'best', 2, 10);
      clock.set(T0 + 300);
      expect(await service.submit(p, 'best', 1, 5)).toMatchObject({ rank: 1, stat_value: 10 });
      expect(await service.submit(p, 'latest', 1, 10)).toMatchObject({ stat_value: 10 });
      expect(await service.submit(p, 'latest', 1, 3)).toMatchObject({ stat_value: 3 });
      expect(await service.submit(p, 'sum', 1, 3)).toMatchObject({ stat_value: 3, rank: 1 });
      expect(await service.submit(p, 'sum', 2, 1)).toMatchObject({ stat_value: 1, rank: 1 });
      expect(await service.submit(p, 'sum', 1, 2.5)).toMatchObject({ stat_value: 5.5, rank: 2 });
      expect(await service.submit(p, 'sum', 2, -4)).toMatchObject({ stat_value: -3, rank: 1 });
      const me = await service.submit(p, 'sum', 1, 0);
      expect(me).toEqual({
        leaderboard_id: me.leaderboard_id,
        leaderboard_slug: 'sum',
        leaderboard_name: 'Board sum',
        user_id: 1,
        rank: 2,
        stat_value: 5.5,
        league: 'global',
        expired: false,
      });
    });

    it('moves users between CONTINUOUS leagues by min_stat and ranks them within their league', async () => {
      const p = project++;
      await service.create(
        p,
        definition('tiers', {
          operator: 'latest',
          leagues: [league('bronze', 0), league('silver', 1, { minStat: 100 }), league('gold', 2, { minStat: 1000 })],
        }),
      );
      await service.submit(p, 'tiers', 1, 50);
      await service.submit(p, 'tiers', 2, 150);
      await service.submit(p, 'tiers', 3, 5000);
      expect(await service.submit(p, 'tiers', 4, 120)).toMatchObject({ league: 'silver', rank: 2 });
      expect(await service.submit(p, 'tiers', 2, 10)).toMatchObject({ league: 'bronze', rank: 2 });
      const bundle = await service.bundle(p, 4, 'tiers', { include: ['leagues', 'users'] });
      expect(bundle.leagues?.map((l) => [l.slug, l.users])).toEqual([
        ['bronze', 2],
        ['silver', 1],
        ['gold', 1],
      ]);
      // The default league is the caller's.
      expect(bundle.users?.league).toBe('silver');
      expect(bundle.users?.users.map((u) => u.user_id)).toEqual([4]);
      const gold = await service.users(p, 4, 'tiers', { league: 'gold' });
      expect(gold.users).toEqual([{ rank: 1, user_id: 3, stat_value: 5000, league: 'gold' }]);
    });

    it('lists assigned users without a stat after ranked ones on AT_RESET boards', async () => {
      const p = project++;
      clock.set(T0);
      await service.create(p, ladder('ladder'));
      for (const [userId, stat] of [
        [1, 10],
        [2, 20],
        [3, 30],
      ] as const) {
        await service.submit(p, 'ladder', userId, stat);
      }
      clock.set(T0 + DAY);
      expect(await service.runDueResets()).toBeGreaterThanOrEqual(1);
      // 3 and 2 were promoted to silver (bronze promotes 2); 1 stays in bronze.
      await service.submit(p, 'ladder', 2, 5);
      const assigned = await service.users(p, 2, 'ladder', { source: 'assigned' });
      expect(assigned).toEqual({
        pagination: { limit: 100, offset: 0, total: 2, has_more: false },
        league: 'silver',
        users: [
          { rank: 1, user_id: 2, stat_value: 5, league: 'silver' },
          { rank: null, user_id: 3, stat_value: null, league: 'silver' },
        ],
      });
      expect((await service.users(p, 2, 'ladder', {})).users.map((u) => u.user_id)).toEqual([2]);
      expect((await service.bundle(p, 3, 'ladder', { include: ['me'] })).me).toMatchObject({
        rank: null,
        stat_value: null,
        league: 'silver',
      });
      const page = await service.users(p, 2, 'ladder', { source: 'assigned', offset: 1, limit: 1 });
      expect(page.pagination).toEqual({ limit: 1, offset: 1, total: 2, has_more: false });
      expect(page.users).toEqual([{ rank: null, user_id: 3, stat_value: null, league: 'silver' }]);
      await expect(service.users(p, 2, 'ladder', { league: 'nope' })).rejects.toThrow('League not found');
    });

    it('pages a board of 1,200 entries at any offset exactly like a plain sort', async () => {
      const p = project++;
      await service.create(p, definition('big', { operator: 'latest' }));
      const random = seededRandom(99);
      for (let userId = 1; userId <= 1200; userId++) {
        clock.set(T0 + randomInt(random, 50));
        await service.submit(p, 'big', userId, randomInt(random, 300));
      }
      const board = (await storage.leaderboards.get(p, 'big')) as Leaderboard;
      const expected = await referenceOrder(board, 1200);
      for (const offset of [0, 1, 599, 1100, 1199, 1200, 5000]) {
        const page = await users(p, 'big', { offset, limit: 50 });
        expect(page.users.map((u) => u.user_id)).toEqual(expected.slice(offset, offset + 50).map((e) => e.userId));
        expect(page.pagination).toEqual({
          limit: 50,
          offset,
          total: 1200,
          has_more: offset + page.users.length < 1200,
        });
      }
      // A second instance rebuilds the same ranks from the database.
      const other = fresh();
      await other.warm();
      expect((await other.users(p, 1, 'big', { offset: 700, limit: 20 })).users).toEqual(
        (await users(p, 'big', { offset: 700, limit: 20 })).users,
      );
    });

    /** Every entry of the board, sorted by a plain comparator over the database's rows. */
    async function referenceOrder(board: Leaderboard, maxUser: number): Promise<LeaderboardEntry[]> {
      const entries: LeaderboardEntry[] = [];
      for (let userId = 1; userId <= maxUser; userId++) {
        const { entry } = await storage.leaderboards.standing(board.id, userId);
        if (entry) entries.push(entry);
      }
      return entries.sort(
        (a, b) =>
          (board.sort === 'desc' ? b.statValue - a.statValue : a.statValue - b.statValue) ||
          a.updatedAt - b.updatedAt ||
          a.userId - b.userId,
      );
    }

    it('property: after thousands of random concurrent submissions, every rank equals a plain sort of the database', async () => {
      const p = project++;
      for (const [slug, extra] of [
        ['prop-best', {}],
        ['prop-latest', { operator: 'latest' as const, sort: 'asc' as const }],
        ['prop-sum', { operator: 'increment' as const }],
      ] as const) {
        await service.create(p, definition(slug, extra));
        const random = seededRandom(slug.length * 7919);
        const USERS = 150;
        for (let round = 0; round < 100; round++) {
          clock.advance(randomInt(random, 3));
          // Twelve at once, users repeating: concurrent writes of one user must serialize.
          await Promise.all(
            Array.from({ length: 12 }, () =>
              service.submit(p, slug, 1 + randomInt(random, USERS), randomInt(random, 40) - 10),
            ),
          );
        }
        const board = (await storage.leaderboards.get(p, slug)) as Leaderboard;
        const expected = await referenceOrder(board, USERS);
        const keys = expected.map((e) => keyOfEntry(board.sort, e));
        expect([...keys].sort(compareRankKeys)).toEqual(keys);
        const listing = await service.users(p, 1, slug, { limit: 1000 });
        expect(listing.users.map((u) => [u.user_id, u.stat_value])).toEqual(
          expected.map((e) => [e.userId, e.statValue]),
        );
        for (const [i, e] of expected.entries()) {
          const me = await service.bundle(p, e.userId, slug, { include: ['me'] });
          expect(me.me?.rank).toBe(i + 1);
        }
        expect(scoreOf(board.sort, 1)).toBe(board.sort === 'desc' ? -1 : 1);
      }
    });

    it('rejects source=assigned on a CONTINUOUS board and unknown boards and leagues', async () => {
      const p = project++;
      await service.create(p, definition('plain'));
      await expect(service.users(p, 1, 'plain', { source: 'assigned' })).rejects.toThrow(
        'source=assigned is only allowed for AT_RESET leaderboards',
      );
      await expect(service.users(p, 1, 'missing', {})).rejects.toThrow('Leaderboard not found');
      await expect(service.bundle(p, 1, 'plain', { include: ['meta'], league: 'x' })).rejects.toThrow(
        'League not found',
      );
      await expect(service.bundle(p, 1, 'plain', { include: [''] })).rejects.toThrow(
        'include must name at least one of: meta, leagues, rewards, entries, users, me',
      );
      await expect(service.bundle(p, 1, 'plain', { include: ['meta,bogus'] })).rejects.toThrow(
        "Unknown include value 'bogus'",
      );
      await expect(service.users(p + 1000, 1, 'plain', {})).rejects.toThrow('Leaderboard not found');
    });
  });
}
