/**
 * A users listing reads the caller's standing only when the league it shows depends on it: on a
 * board of several leagues without `league`. On a board of one league, or with `league` given,
 * it reads none, and the answer is the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaderboards } from '../../src/core/leaderboards/create-leaderboards.js';
import type { LeaderboardService } from '../../src/core/leaderboards/leaderboard-service.js';
import type { LeaderboardStore } from '../../src/core/leaderboards/leaderboard-store.js';
import type { Storage } from '../../src/core/ports.js';
import { ManualClock } from '../support/clock.js';
import { engines } from '../support/engines.js';
import { definition, league } from '../support/leaderboards.js';

/** The store, counting the standing reads made through it. */
function countingStandings(store: LeaderboardStore) {
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, property) {
      if (property === 'standing') {
        return (boardId: number, userId: number) => {
          reads++;
          return target.standing(boardId, userId);
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: counted, reads: () => reads };
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`users listing and the caller's standing on ${engine.name}`, () => {
    let storage: Storage;
    let service: LeaderboardService;
    let reads: () => number;
    const project = 900;
    beforeAll(async () => {
      storage = await engine.create();
      const counting = countingStandings(storage.leaderboards);
      reads = counting.reads;
      service = createLeaderboards({
        store: counting.store,
        profiles: storage.accounts,
        clock: new ManualClock(Date.parse('2026-11-22T10:00:00.000Z')),
      });
      await service.create(project, definition('one'));
      const tiers = [league('bronze', 0), league('silver', 1, { minStat: 100 })];
      await service.create(project, definition('two', { leagues: tiers }));
      for (const slug of ['one', 'two']) {
        await service.submit(project, slug, 1, 50);
        await service.submit(project, slug, 2, 150);
      }
    });
    afterAll(async () => {
      await service?.stop();
      if (storage) await engine.destroy(storage);
    });

    const listed = async (slug: string, userId: number, query: { league?: string } = {}) => {
      const before = reads();
      const page = await service.users(project, userId, slug, query);
      return { league: page.league, users: page.users.map((u) => u.user_id), standingReads: reads() - before };
    };

    it('reads no standing on a board of one league', async () => {
      expect(await listed('one', 2)).toEqual({ league: 'global', users: [2, 1], standingReads: 0 });
    });

    it("reads the caller's standing on a board of several leagues, and shows the caller's league", async () => {
      expect(await listed('two', 2)).toEqual({ league: 'silver', users: [2], standingReads: 1 });
      expect(await listed('two', 1)).toEqual({ league: 'bronze', users: [1], standingReads: 1 });
    });

    it('reads no standing when the league is named', async () => {
      expect(await listed('two', 2, { league: 'bronze' })).toEqual({ league: 'bronze', users: [1], standingReads: 0 });
    });
  });
}
