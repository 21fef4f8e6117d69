/**
 * Rank caches of three instances kept coherent by `RankSync` over a bus that delivers each
 * notice to each instance at a random moment, in any order (as notices of different writers
 * may cross on a real bus): once every notice has arrived, every instance lists what the
 * database holds. A lost-message signal drops the caches, which reload from the database.
 * On every engine, seeded so a failure replays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus } from '../../src/core/bus.js';
import { createLeaderboards } from '../../src/core/leaderboards/create-leaderboards.js';
import type { LeaderboardService } from '../../src/core/leaderboards/leaderboard-service.js';
import { RANK_CHANNEL } from '../../src/core/leaderboards/rank-sync.js';
import type { Storage } from '../../src/core/ports.js';
import { ManualClock } from '../support/clock.js';
import { engines } from '../support/engines.js';
import { definition, league } from '../support/leaderboards.js';
import { randomInt, seededRandom } from '../support/prng.js';

interface Inbox {
  channel: string;
  listener: (message: string) => void;
  onLoss: (() => void) | undefined;
  queue: string[];
}

/** A bus whose messages wait in one queue per subscriber until the test delivers them. */
class ShuffledBus implements Bus {
  readonly inboxes: Inbox[] = [];

  async publish(channel: string, message: string): Promise<void> {
    for (const inbox of this.inboxes) if (inbox.channel === channel) inbox.queue.push(message);
  }

  /** The subscriptions to `channel`, in the order the instances listened. */
  on(channel: string): Inbox[] {
    return this.inboxes.filter((inbox) => inbox.channel === channel);
  }

  async subscribe(channel: string, listener: (message: string) => void, onLoss?: () => void) {
    const inbox: Inbox = { channel, listener, onLoss, queue: [] };
    this.inboxes.push(inbox);
    return async () => {
      this.inboxes.splice(this.inboxes.indexOf(inbox), 1);
    };
  }

  /** Delivers one waiting message, chosen at random, to its subscriber; false when none waits. */
  deliverOne(random: () => number): boolean {
    const waiting = this.inboxes.filter((inbox) => inbox.queue.length > 0);
    if (waiting.length === 0) return false;
    const inbox = waiting[randomInt(random, waiting.length)] as Inbox;
    const [message] = inbox.queue.splice(randomInt(random, inbox.queue.length), 1);
    inbox.listener(message as string);
    return true;
  }

  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}

const T0 = Date.parse('2026-11-22T10:00:00.000Z');

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`rank sync between instances on ${engine.name}`, () => {
    let storage: Storage;
    const clock = new ManualClock(T0);
    const bus = new ShuffledBus();
    let instances: LeaderboardService[] = [];
    beforeAll(async () => {
      storage = await engine.create();
      instances = ['a', 'b', 'c'].map((owner) =>
        createLeaderboards({ store: storage.leaderboards, profiles: storage.accounts, clock, owner, peers: bus }),
      );
      for (const instance of instances) await instance.listen();
    });
    afterAll(async () => {
      for (const instance of instances) await instance.stop();
      if (storage) await engine.destroy(storage);
    });

    const project = 900;
    const listing = async (service: LeaderboardService, leagueSlug: string) =>
      (await service.users(project, 1, 'sync', { league: leagueSlug, limit: 1000 })).users.map(
        (u) => `${u.user_id}:${u.stat_value}`,
      );
    /** What the database holds, through a service that loads its ranks afresh. */
    const truth = async (leagueSlug: string) =>
      listing(createLeaderboards({ store: storage.leaderboards, profiles: storage.accounts, clock }), leagueSlug);
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    /** Waits until `service` lists what the database holds (its notices are followed asynchronously). */
    const converged = async (service: LeaderboardService, slug: string) => {
      const expected = await truth(slug);
      const deadline = Date.now() + 5_000;
      while (JSON.stringify(await listing(service, slug)) !== JSON.stringify(expected) && Date.now() < deadline) {
        await pause(10);
      }
      expect(await listing(service, slug)).toEqual(expected);
      return expected;
    };

    it('converges on the database whatever order the notices arrive in, league moves included', async () => {
      const [a, b, c] = instances as [LeaderboardService, LeaderboardService, LeaderboardService];
      await a.create(
        project,
        definition('sync', { operator: 'latest', leagues: [league('low', 0), league('high', 1, { minStat: 50 })] }),
      );
      // Every instance holds both leagues before the writes.
      for (const instance of instances) for (const slug of ['low', 'high']) await listing(instance, slug);

      const random = seededRandom(6);
      for (let i = 0; i < 300; i++) {
        clock.advance(1 + randomInt(random, 3));
        const writer = randomInt(random, 2) === 0 ? a : b;
        await writer.submit(project, 'sync', 1 + randomInt(random, 12), randomInt(random, 100));
        for (let k = randomInt(random, 4); k > 0; k--) bus.deliverOne(random);
        if (i % 25 === 0) await pause(5);
      }
      while (bus.deliverOne(random)) await Promise.resolve();
      for (const slug of ['low', 'high']) {
        for (const instance of [a, b, c]) expect((await converged(instance, slug)).length).toBeGreaterThan(0);
      }
    });

    it('drops its ranks when the bus reports lost messages, and reloads them from the database', async () => {
      const [a, , c] = instances as [LeaderboardService, LeaderboardService, LeaderboardService];
      clock.advance(5);
      await a.submit(project, 'sync', 40, 99);
      // The notice never reaches c: lost while the bus was down.
      const inboxOfC = bus.on(RANK_CHANNEL)[2] as Inbox;
      inboxOfC.queue.length = 0;
      expect(await listing(c, 'high')).not.toContain('40:99');
      inboxOfC.onLoss?.();
      expect(await converged(c, 'high')).toContain('40:99');
    });
  });
}
