/**
 * The behaviour every engine's schedule store must have (§16), run against each engine by
 * test/storage/schedule-store.test.ts: every project's id is listed; `begin` records a first tick
 * only once; a claim moves the last tick only forward and, of claims of one tick at once (three
 * instances' connections), exactly one succeeds; ticks are kept per project and per schedule.
 * Real databases, no mocks.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/ports.js';
import type { EngineFixture } from '../support/engines.js';

const PLAYER = { name: 'player', permissions: [] };
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1, 10);

/** Registers the schedule store suite for one engine. */
export function scheduleStoreCases(engine: EngineFixture): void {
  describe.skipIf(engine.unavailable)(`the schedule store on ${engine.name}`, () => {
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

    it('lists every project by id', async () => {
      expect(await storage.schedules.projectIds()).toEqual([projectId, otherId].sort((a, b) => a - b));
    });

    it('claims a tick only after begin, only forward, once', async () => {
      const store = storage.schedules;
      expect(await store.claim(projectId, 'a.ts#hourly', T0)).toBe(false);
      await store.begin(projectId, 'a.ts#hourly', T0);
      await store.begin(projectId, 'a.ts#hourly', T0 - 5 * HOUR);
      expect(await store.claim(projectId, 'a.ts#hourly', T0)).toBe(false);
      expect(await store.claim(projectId, 'a.ts#hourly', T0 - HOUR)).toBe(false);
      expect(await store.claim(projectId, 'a.ts#hourly', T0 + HOUR)).toBe(true);
      expect(await store.claim(projectId, 'a.ts#hourly', T0 + HOUR)).toBe(false);
      expect(await store.claim(projectId, 'a.ts#hourly', T0 + 3 * HOUR)).toBe(true);
    });

    it('keeps each project’s and each schedule’s last tick apart', async () => {
      const store = storage.schedules;
      for (const [project, schedule] of [
        [projectId, 'a.ts#hourly'],
        [projectId, 'a.ts#daily'],
        [otherId, 'a.ts#hourly'],
      ] as const) {
        await store.begin(project, schedule, T0);
        expect(await store.claim(project, schedule, T0 + HOUR)).toBe(true);
      }
      expect(await store.claim(otherId, 'a.ts#daily', T0 + HOUR)).toBe(false);
    });

    it('gives a tick claimed many times at once to exactly one claim', async () => {
      const store = storage.schedules;
      await store.begin(projectId, 'a.ts#hourly', T0);
      for (let tick = 1; tick <= 5; tick += 1) {
        const claims = await Promise.all(
          Array.from({ length: 6 }, () => store.claim(projectId, 'a.ts#hourly', T0 + tick * HOUR)),
        );
        expect(claims.filter(Boolean)).toHaveLength(1);
      }
    });
  });
}
