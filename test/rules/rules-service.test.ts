/**
 * `RulesService` on every engine, as two instances over one database sharing a bus and a third
 * that hears nothing: compiled once per revision with one shared load, a save in force at once
 * where it was made and on the other instance once the notice arrives (its listeners told), the
 * deaf instance current after the revalidation age, and a lost-message signal reloading all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process-bus.js';
import type { Storage } from '../../src/core/ports.js';
import { RULES_CHANNEL, RulesService } from '../../src/core/rules/rules-service.js';
import type { RulesStore } from '../../src/core/rules/rules-store.js';
import { OPEN_RULESET } from '../../src/core/rules/ruleset.js';
import { ManualClock } from '../support/clock.js';
import { engines } from '../support/engines.js';

/** The in-process bus, plus a way to tell its listeners that messages may have been missed. */
class LossyBus extends InProcessBus {
  private readonly losses: (() => void)[] = [];

  override subscribe(channel: string, listener: (message: string) => void, onLoss?: () => void) {
    if (onLoss) this.losses.push(onLoss);
    return super.subscribe(channel, listener, onLoss);
  }

  lose(): void {
    for (const onLoss of this.losses) onLoss();
  }
}

/** The store, counting full reads (`current`) and revision checks. */
function counting(store: RulesStore) {
  const counts = { current: 0, currentRevision: 0 };
  const counted: RulesStore = {
    current: (p) => {
      counts.current++;
      return store.current(p);
    },
    currentRevision: (p) => {
      counts.currentRevision++;
      return store.currentRevision(p);
    },
    save: (p, rules, now) => store.save(p, rules, now),
    revisions: (p, limit) => store.revisions(p, limit),
  };
  return { store: counted, counts };
}

const rulesFor = (n: number) => ({ documents: [{ match: `notes/n${n}`, allow: { read: 'true' } }], realtime: [] });
const delivered = () => new Promise((resolve) => setTimeout(resolve, 5));
/** Waits until `check` passes (reloads run in the background), for at most a second. */
async function eventually(check: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 1_000;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`rules service on ${engine.name}`, () => {
    let storage: Storage;
    const clock = new ManualClock(Date.parse('2026-11-22T10:00:00.000Z'));
    const bus = new LossyBus();
    const services: RulesService[] = [];
    let project = 500;
    beforeAll(async () => {
      storage = await engine.create();
    });
    afterAll(async () => {
      for (const service of services) await service.close();
      await bus.close();
      if (storage) await engine.destroy(storage);
    });

    const instance = async (options: { deaf?: boolean } = {}) => {
      const { store, counts } = counting(storage.rules);
      const service = new RulesService({ store, clock, bus: options.deaf ? new InProcessBus() : bus });
      await service.listen();
      services.push(service);
      const changes: number[] = [];
      service.onChange((projectId) => changes.push(projectId));
      return { service, counts, changes };
    };

    it('serves the open ruleset to a project that never set one, from one shared load', async () => {
      const p = project++;
      const a = await instance();
      const all = await Promise.all([a.service.compiled(p), a.service.compiled(p), a.service.compiled(p)]);
      expect(all[0]?.open).toBe(true);
      expect(all[0]?.rules).toEqual(OPEN_RULESET);
      expect(new Set(all).size).toBe(1);
      expect(a.counts.current).toBe(1);
      expect(await a.service.get(p)).toEqual({ rules: OPEN_RULESET, revision: 0, updated_at: null });
    });

    it('compiles once per revision; a save is in force at once here and on the other instance after its notice', async () => {
      const p = project++;
      const a = await instance();
      const b = await instance();
      const before = await b.service.compiled(p);
      expect(await b.service.compiled(p)).toBe(before);
      const saved = await a.service.put(p, rulesFor(1));
      expect(saved).toMatchObject({ revision: 1, updated_at: new Date(clock.now()).toISOString() });
      expect((await a.service.compiled(p)).rules).toEqual(rulesFor(1));
      expect(a.changes).toEqual([p]);
      await delivered();
      const after = await b.service.compiled(p);
      expect(after.rules).toEqual(rulesFor(1));
      expect(await b.service.compiled(p)).toBe(after);
      expect(b.changes).toEqual([p]);
      // Its own notice coming back over the bus neither reloads nor tells A's listeners again.
      expect(a.changes).toEqual([p]);
      expect(a.counts.current).toBe(0);
    });

    it('tells listeners of a change to a project this instance has not loaded', async () => {
      const p = project++;
      const a = await instance();
      const b = await instance();
      await a.service.put(p, rulesFor(2));
      await delivered();
      expect(b.changes).toEqual([p]);
      expect((await b.service.compiled(p)).rules).toEqual(rulesFor(2));
    });

    it('revalidates a cached ruleset after 5 s when no notice came', async () => {
      const p = project++;
      const a = await instance();
      const deaf = await instance({ deaf: true });
      expect((await deaf.service.compiled(p)).open).toBe(true);
      await a.service.put(p, rulesFor(3));
      await delivered();
      expect((await deaf.service.compiled(p)).open).toBe(true);
      clock.advance(4_000);
      expect((await deaf.service.compiled(p)).open).toBe(true);
      expect(deaf.counts.currentRevision).toBe(0);
      clock.advance(1_001);
      expect((await deaf.service.compiled(p)).rules).toEqual(rulesFor(3));
      expect(deaf.changes).toEqual([p]);
      // Current again: the next check reads only the revision, and keeps the compiled ruleset.
      const compiled = await deaf.service.compiled(p);
      clock.advance(5_001);
      expect(await deaf.service.compiled(p)).toBe(compiled);
      expect(deaf.counts.currentRevision).toBe(2);
    });

    it('reloads every cached project when the bus says notices may have been lost', async () => {
      const [p, q] = [project++, project++];
      const a = await instance();
      const b = await instance();
      await b.service.compiled(p);
      await b.service.compiled(q);
      // Saved without a notice (as when the publish was lost).
      await storage.rules.save(p, rulesFor(4), clock.now());
      expect((await b.service.compiled(p)).open).toBe(true);
      bus.lose();
      await eventually(async () => expect(b.changes).toEqual([p]));
      expect((await b.service.compiled(p)).rules).toEqual(rulesFor(4));
      expect((await b.service.compiled(q)).open).toBe(true);
      expect(b.changes).toEqual([p]);
      expect(a.changes).toEqual([]);
    });

    it('ignores messages that are not notices and stops hearing after close', async () => {
      const p = project++;
      const b = await instance();
      await bus.publish(RULES_CHANNEL, 'not json');
      await bus.publish(RULES_CHANNEL, JSON.stringify({ projectId: 'x', revision: 1 }));
      await b.service.close();
      const a = await instance();
      await a.service.put(p, rulesFor(5));
      await delivered();
      expect(b.changes).toEqual([]);
    });
  });
}
