/**
 * Resets on schedule, driven by an injected clock (no real waiting): archived standings with
 * rewards, promotion and demotion, cleared entries, `expired`, and exactly one reset per period
 * when two instances share one database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaderboards } from '../../src/core/leaderboards/create-leaderboards.js';
import type { LeaderboardService } from '../../src/core/leaderboards/leaderboard-service.js';
import type { Storage } from '../../src/core/ports.js';
import { PostgresStorage, quoteIdent } from '../../src/storage/postgres/postgres-storage.js';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { ManualClock } from '../support/clock.js';
import { type EngineFixture, engines, TEST_DATABASE_URL, uniqueSchemaName } from '../support/engines.js';
import { definition, ladder } from '../support/leaderboards.js';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const MIDNIGHT = Date.parse('2026-11-23T00:00:00.000Z');
const DAY = 86_400_000;

/** Two independent connections (pools) to one fresh database of the engine. */
async function twoHandles(engine: EngineFixture): Promise<{ a: Storage; b: Storage; drop(): Promise<void> }> {
  if (engine.name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'cds-lease-'));
    const a = SqliteStorage.open(join(dir, 'db.sqlite'));
    const b = SqliteStorage.open(join(dir, 'db.sqlite'));
    return {
      a,
      b,
      async drop() {
        await a.close();
        await b.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = uniqueSchemaName();
  const a = await PostgresStorage.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 4 });
  const b = await PostgresStorage.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 4 });
  return {
    a,
    b,
    async drop() {
      await a.close();
      await b.close();
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
      await client.end();
    },
  };
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`leaderboard resets on ${engine.name}`, () => {
    let storage: Storage;
    let clock: ManualClock;
    let service: LeaderboardService;
    let project = 900;
    beforeAll(async () => {
      storage = await engine.create();
      clock = new ManualClock(T0);
      service = createLeaderboards({ store: storage.leaderboards, profiles: storage.accounts, clock });
    });
    afterAll(async () => {
      await service?.stop();
      if (storage) await engine.destroy(storage);
    });

    it('archives the final standings with rewards, re-assigns leagues and clears entries at midnight', async () => {
      const p = project++;
      clock.set(T0);
      await service.create(p, ladder('daily'));
      for (const [userId, stat] of [
        [1, 10],
        [2, 30],
        [3, 20],
        [4, 5],
      ] as const) {
        clock.advance(1);
        await service.submit(p, 'daily', userId, stat);
      }
      expect(await service.runDueResets()).toBe(0);
      clock.set(MIDNIGHT - 1);
      expect((await service.bundle(p, 1, 'daily', { include: ['me'] })).me?.expired).toBe(false);
      clock.set(MIDNIGHT);
      const before = await service.bundle(p, 1, 'daily', { include: ['me', 'meta'] });
      expect(before.me).toMatchObject({ expired: true, rank: 3, stat_value: 10 });
      expect(before.meta?.period).toEqual({ start: '2026-11-22T00:00:00.000Z', end: '2026-11-23T00:00:00.000Z' });

      expect(await service.runDueResets()).toBe(1);
      expect(await service.runDueResets()).toBe(0);
      const after = await service.bundle(p, 2, 'daily', { include: ['me', 'meta', 'leagues'] });
      expect(after.meta?.period).toEqual({ start: '2026-11-23T00:00:00.000Z', end: '2026-11-24T00:00:00.000Z' });
      // Bronze promotes its top 2 (users 2 and 3); 1 and 4 stay in bronze; entries are gone.
      expect(after.me).toMatchObject({ expired: false, rank: null, stat_value: null, league: 'silver' });
      expect(after.leagues?.map((l) => [l.slug, l.users])).toEqual([
        ['bronze', 2],
        ['silver', 2],
        ['gold', 0],
      ]);

      const history = await service.history(p, 1, 'daily', {});
      expect(history).toEqual({
        period: { start: '2026-11-22T00:00:00.000Z', end: '2026-11-23T00:00:00.000Z' },
        archived_at: '2026-11-23T00:00:00.000Z',
        league: 'bronze',
        pagination: { limit: 100, offset: 0, total: 4, has_more: false },
        standings: [
          {
            rank: 1,
            user_id: 2,
            stat_value: 30,
            league: 'bronze',
            updated_at: new Date(T0 + 2).toISOString(),
            reward: 'badge',
          },
          {
            rank: 2,
            user_id: 3,
            stat_value: 20,
            league: 'bronze',
            updated_at: new Date(T0 + 3).toISOString(),
            reward: 'badge',
          },
          {
            rank: 3,
            user_id: 1,
            stat_value: 10,
            league: 'bronze',
            updated_at: new Date(T0 + 1).toISOString(),
            reward: 'badge',
          },
          {
            rank: 4,
            user_id: 4,
            stat_value: 5,
            league: 'bronze',
            updated_at: new Date(T0 + 4).toISOString(),
            reward: 'badge',
          },
        ],
        me: {
          rank: 3,
          user_id: 1,
          stat_value: 10,
          league: 'bronze',
          updated_at: new Date(T0 + 1).toISOString(),
          reward: 'badge',
        },
      });
      const byPeriod = await service.history(p, 1, 'daily', {
        period: '2026-11-22T00:00:00.000Z',
        offset: 3,
        limit: 1,
      });
      expect(byPeriod.standings.map((s) => s.user_id)).toEqual([4]);
      expect(byPeriod.pagination).toEqual({ limit: 1, offset: 3, total: 4, has_more: false });
      await expect(service.history(p, 1, 'daily', { period: '2026-11-21T00:00:00.000Z' })).rejects.toThrow(
        'Period not found',
      );

      // The new period takes submissions and ranks them afresh.
      clock.set(MIDNIGHT + 1000);
      expect(await service.submit(p, 'daily', 3, 1)).toMatchObject({ rank: 1, league: 'silver', stat_value: 1 });
    });

    it('runs a due reset before a submission that arrives after the end', async () => {
      const p = project++;
      clock.set(T0);
      await service.create(p, definition('lazy', { reset: 'daily' }));
      await service.submit(p, 'lazy', 1, 100);
      clock.set(MIDNIGHT + 5 * DAY + 10);
      // No scheduler ran: the write resets first, then lands in the period containing now.
      expect(await service.submit(p, 'lazy', 2, 7)).toMatchObject({ rank: 1, stat_value: 7, expired: false });
      const meta = (await service.bundle(p, 2, 'lazy', { include: ['meta', 'users'] })) as {
        meta: { period: { start: string } };
        users: { users: { user_id: number }[] };
      };
      expect(meta.meta.period.start).toBe('2026-11-28T00:00:00.000Z');
      expect(meta.users.users.map((u) => u.user_id)).toEqual([2]);
      expect((await service.history(p, 1, 'lazy', {})).standings.map((s) => s.user_id)).toEqual([1]);
      await expect(service.history(p, 1, 'never', {})).rejects.toThrow('Leaderboard not found');
    });

    it('never resets a board without a schedule', async () => {
      const p = project++;
      clock.set(T0);
      await service.create(p, definition('forever'));
      await service.submit(p, 'forever', 1, 1);
      clock.set(T0 + 400 * DAY);
      await service.runDueResets();
      expect((await service.bundle(p, 1, 'forever', { include: ['me'] })).me).toMatchObject({
        rank: 1,
        expired: false,
      });
      await expect(service.history(p, 1, 'forever', {})).rejects.toThrow('Period not found');
    });

    it('resets each period exactly once when two instances share the database', async () => {
      const { a, b, drop } = await twoHandles(engine);
      try {
        const shared = new ManualClock(T0);
        const one = createLeaderboards({ store: a.leaderboards, profiles: a.accounts, clock: shared, owner: 'one' });
        const two = createLeaderboards({ store: b.leaderboards, profiles: b.accounts, clock: shared, owner: 'two' });
        const slugs = Array.from({ length: 6 }, (_, i) => `race-${i}`);
        for (const slug of slugs) {
          await one.create(1, ladder(slug));
          for (let user = 1; user <= 5; user++) await (user % 2 ? one : two).submit(1, slug, user, user * 10);
        }
        for (let day = 1; day <= 3; day++) {
          shared.set(MIDNIGHT + (day - 1) * DAY + 1);
          const [x, y] = await Promise.all([one.runDueResets(), two.runDueResets()]);
          expect(x + y).toBe(slugs.length);
          for (const slug of slugs) await two.submit(1, slug, 1, day);
        }
        for (const slug of slugs) {
          const board = await a.leaderboards.get(1, slug);
          for (let day = 0; day < 3; day++) {
            const start = Date.parse('2026-11-22T00:00:00.000Z') + day * DAY;
            expect(await a.leaderboards.archivedPeriod(board?.id as number, start)).toMatchObject({
              start,
              end: start + DAY,
            });
          }
          expect(board?.period.start).toBe(Date.parse('2026-11-25T00:00:00.000Z'));
        }
      } finally {
        await drop();
      }
    });
  });
}
