/**
 * The per-process board cache (`board-cache.ts`) on every engine, with two instances over one
 * database sharing a bus, and a third that hears nothing: a cached read makes no board read;
 * edits, resets and creations on one instance are seen at once by the other; an ended period
 * is never served from the cache; a lost-message signal and the maximum age drop it; a
 * submission on an instance that missed another's reset lands in the new period, and one that
 * missed an edit in the edited board's leagues.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process-bus.js';
import { createLeaderboards, type LeaderboardsOptions } from '../../src/core/leaderboards/create-leaderboards.js';
import type { LeaderboardService } from '../../src/core/leaderboards/leaderboard-service.js';
import type { LeaderboardStore } from '../../src/core/leaderboards/leaderboard-store.js';
import { redefineRewrite } from '../../src/core/leaderboards/listing-rewrite.js';
import type { Storage } from '../../src/core/ports.js';
import { ManualClock } from '../support/clock.js';
import { engines } from '../support/engines.js';
import { definition, league } from '../support/leaderboards.js';

/** The in-process bus, plus a way to tell its listeners that messages may have been missed. */
class LossyBus extends InProcessBus {
  private readonly losses: (() => void)[] = [];

  override subscribe(channel: string, listener: (message: string) => void, onLoss?: () => void) {
    if (onLoss) this.losses.push(onLoss);
    return super.subscribe(channel, listener, onLoss);
  }

  /** What a bus does after an outage: every listener's `onLoss`. */
  lose(): void {
    for (const onLoss of this.losses) onLoss();
  }
}

/** The store, counting the board reads (`get`) made through it; `hold` keeps the next read's answer until released. */
function counting(store: LeaderboardStore) {
  let gets = 0;
  let held: Promise<void> | null = null;
  const counted = new Proxy(store, {
    get(target, property) {
      if (property === 'get') {
        return async (projectId: number, slug: string) => {
          gets++;
          const board = await target.get(projectId, slug);
          const gate = held;
          held = null;
          await gate;
          return board;
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const hold = () => {
    let release: () => void = () => undefined;
    held = new Promise<void>((resolve) => {
      release = resolve;
    });
    return release;
  };
  return { store: counted, gets: () => gets, hold };
}

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const DAY = 86_400_000;
/** Lets the in-process bus deliver what was published (a microtask) and its listeners run. */
const delivered = () => new Promise((resolve) => setTimeout(resolve, 0));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`board cache on ${engine.name}`, () => {
    let storage: Storage;
    const clock = new ManualClock(T0);
    const bus = new LossyBus();
    const started: LeaderboardService[] = [];
    let project = 700;
    beforeAll(async () => {
      storage = await engine.create();
    });
    afterAll(async () => {
      for (const service of started) await service.stop();
      await bus.close();
      if (storage) await engine.destroy(storage);
    });

    /** An instance over the shared database (on the shared bus unless `deaf`), with its count of board reads. */
    const instance = async (owner: string, options: { deaf?: boolean } & Partial<LeaderboardsOptions> = {}) => {
      const { deaf, ...rest } = options;
      const { store, gets, hold } = counting(storage.leaderboards);
      const service = createLeaderboards({
        store,
        profiles: storage.accounts,
        admin: storage.leaderboardAdmin,
        clock,
        owner,
        ...(deaf ? {} : { peers: bus }),
        ...rest,
      });
      await service.listen();
      started.push(service);
      return { service, gets, hold };
    };
    const meta = async (service: LeaderboardService, p: number, slug: string) => {
      const bundle = await service.bundle(p, 1, slug, { include: ['meta'] });
      if (!bundle.meta) throw new Error('no meta');
      return bundle.meta;
    };
    const me = async (service: LeaderboardService, p: number, slug: string, userId: number) =>
      (await service.bundle(p, userId, slug, { include: ['me'] })).me;

    it('serves repeated reads, users pages and submissions without reading the board again', async () => {
      const p = project++;
      const a = await instance('a');
      await a.service.create(p, definition('hot'));
      const before = a.gets();
      await a.service.submit(p, 'hot', 1, 10);
      await me(a.service, p, 'hot', 1);
      await a.service.users(p, 1, 'hot', {});
      await a.service.submit(p, 'hot', 2, 20);
      expect(await me(a.service, p, 'hot', 2)).toMatchObject({ rank: 1, stat_value: 20 });
      expect(a.gets() - before).toBe(1);
    });

    it('sees an admin edit made on the other instance at once', async () => {
      const p = project++;
      const a = await instance('a');
      const b = await instance('b');
      await a.service.create(p, definition('edited', { operator: 'latest' }));
      await b.service.submit(p, 'edited', 1, 70);
      expect(await me(b.service, p, 'edited', 1)).toMatchObject({ league: 'global', rank: 1 });
      const reads = b.gets();
      await a.service.admin.update(p, 'edited', {
        name: 'Renamed',
        leagues: [league('low', 0), league('high', 1, { minStat: 50 })],
      });
      await delivered();
      expect(await meta(b.service, p, 'edited')).toMatchObject({ name: 'Renamed' });
      // The new revision's leagues: the entry was re-homed, and b's submissions use the new thresholds.
      expect(await me(b.service, p, 'edited', 1)).toMatchObject({ league: 'high', rank: 1 });
      expect(await b.service.submit(p, 'edited', 2, 10)).toMatchObject({ league: 'low', rank: 1 });
      expect(b.gets() - reads).toBe(1);
    });

    it('does not cache a board read before a change it hears of while the read is on its way', async () => {
      const p = project++;
      const a = await instance('a');
      const b = await instance('b');
      await a.service.create(p, definition('raced'));
      const release = b.hold();
      const reading = meta(b.service, p, 'raced');
      // The read has its (old) answer; the edit commits and its notice arrives before the read returns.
      await a.service.admin.update(p, 'raced', { name: 'Renamed' });
      await delivered();
      release();
      expect(await reading).toMatchObject({ name: 'Board raced' });
      expect(await meta(b.service, p, 'raced')).toMatchObject({ name: 'Renamed' });
    });

    it('sees a reset-now of the other instance at once: an empty new period, the old one archived', async () => {
      const p = project++;
      const a = await instance('a');
      const b = await instance('b');
      await a.service.create(p, definition('daily', { reset: 'daily' }));
      await b.service.submit(p, 'daily', 1, 10);
      const { archived, current } = await a.service.admin.resetNow(p, 'daily');
      await delivered();
      expect((await meta(b.service, p, 'daily')).period.start).toBe(new Date(current.period.start).toISOString());
      expect(await me(b.service, p, 'daily', 1)).toMatchObject({ rank: null, stat_value: null });
      expect((await b.service.history(p, 1, 'daily', {})).period.start).toBe(new Date(archived.start).toISOString());
    });

    it('puts a submission in the new period when it missed the reset notice of another instance', async () => {
      const p = project++;
      const a = await instance('a');
      const deaf = await instance('deaf', { deaf: true });
      await a.service.create(p, definition('missed', { reset: 'daily', operator: 'latest' }));
      await deaf.service.submit(p, 'missed', 1, 10);
      const { current } = await a.service.admin.resetNow(p, 'missed');
      await delivered();
      const reads = deaf.gets();
      // Its cached board is in the old period: the write is refused, the board read again, the write retried.
      expect(await deaf.service.submit(p, 'missed', 1, 20)).toMatchObject({ stat_value: 20, rank: 1 });
      expect(deaf.gets() - reads).toBe(1);
      expect((await meta(a.service, p, 'missed')).period.start).toBe(new Date(current.period.start).toISOString());
      expect(await me(a.service, p, 'missed', 1)).toMatchObject({ stat_value: 20, rank: 1 });
      expect((await a.service.history(p, 1, 'missed', {})).standings).toMatchObject([{ user_id: 1, stat_value: 10 }]);
    });

    it('files a submission under the new leagues when it missed the edit notice of another instance', async () => {
      const p = project++;
      const a = await instance('a');
      const deaf = await instance('deaf', { deaf: true });
      await a.service.create(p, definition('relevelled', { operator: 'latest' }));
      await deaf.service.submit(p, 'relevelled', 1, 10);
      await a.service.admin.update(p, 'relevelled', {
        leagues: [league('low', 0), league('high', 1, { minStat: 50 })],
      });
      await delivered();
      const reads = deaf.gets();
      // Its cached board has the old single league: the write is refused, the board read again, the write retried.
      expect(await deaf.service.submit(p, 'relevelled', 2, 70)).toMatchObject({ league: 'high', rank: 1 });
      expect(deaf.gets() - reads).toBe(1);
      expect(await me(a.service, p, 'relevelled', 2)).toMatchObject({ league: 'high', rank: 1 });
    });

    it('never serves a board whose period has ended from the cache', async () => {
      const p = project++;
      clock.set(T0);
      const a = await instance('a');
      const deaf = await instance('deaf', { deaf: true });
      await a.service.create(p, definition('ends', { reset: 'daily' }));
      await deaf.service.submit(p, 'ends', 1, 10);
      const cached = await meta(deaf.service, p, 'ends');
      clock.set(T0 + DAY);
      // Ended and not reset yet: read from the store each time.
      const reads = deaf.gets();
      expect(await me(deaf.service, p, 'ends', 1)).toMatchObject({ expired: true, stat_value: 10 });
      expect(await me(deaf.service, p, 'ends', 1)).toMatchObject({ expired: true });
      expect(deaf.gets() - reads).toBe(2);
      // Another instance resets it; this one hears nothing, yet shows the new period.
      expect(await a.service.runDueResets()).toBeGreaterThanOrEqual(1);
      const after = await meta(deaf.service, p, 'ends');
      expect(Date.parse(after.period.start)).toBe(Date.parse(cached.period.start) + DAY);
      expect(await me(deaf.service, p, 'ends', 1)).toMatchObject({ expired: false, stat_value: null });
      clock.set(T0);
    });

    it('drops every board when the bus reports lost messages', async () => {
      const p = project++;
      const b = await instance('b');
      await b.service.create(p, definition('lost'));
      expect(await meta(b.service, p, 'lost')).toMatchObject({ name: 'Board lost' });
      // Changed behind the services' backs: nobody announces it.
      const board = await storage.leaderboards.get(p, 'lost');
      const changed = definition('lost', { name: 'Changed' });
      await storage.leaderboardAdmin.redefine(board?.id as number, changed, redefineRewrite(changed));
      expect(await meta(b.service, p, 'lost')).toMatchObject({ name: 'Board lost' });
      bus.lose();
      expect(await meta(b.service, p, 'lost')).toMatchObject({ name: 'Changed' });
    });

    it('keeps a board at most its maximum age', async () => {
      const p = project++;
      const b = await instance('b', { boardMaxAgeMs: 50 });
      await b.service.create(p, definition('aging'));
      expect(await meta(b.service, p, 'aging')).toMatchObject({ name: 'Board aging' });
      const board = await storage.leaderboards.get(p, 'aging');
      const changed = definition('aging', { name: 'Changed' });
      await storage.leaderboardAdmin.redefine(board?.id as number, changed, redefineRewrite(changed));
      expect(await meta(b.service, p, 'aging')).toMatchObject({ name: 'Board aging' });
      await sleep(80);
      expect(await meta(b.service, p, 'aging')).toMatchObject({ name: 'Changed' });
    });

    it('does not remember a missing board: a creation on either instance is seen at once', async () => {
      const p = project++;
      const a = await instance('a');
      const b = await instance('b');
      await expect(b.service.users(p, 1, 'later', {})).rejects.toThrow('Leaderboard not found');
      await expect(a.service.users(p, 1, 'later', {})).rejects.toThrow('Leaderboard not found');
      await b.service.create(p, definition('later'));
      expect((await b.service.users(p, 1, 'later', {})).users).toEqual([]);
      expect((await a.service.users(p, 1, 'later', {})).users).toEqual([]);
    });
  });
}
