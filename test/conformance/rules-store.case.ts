/**
 * Behavioural tests of the `RulesStore` port (§9 revisions), run against every engine by
 * test/storage/rules-store.test.ts. Each test uses its own project ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/ports.js';
import { KEPT_REVISIONS, type RulesStore } from '../../src/core/rules/rules-store.js';
import { OPEN_RULESET, type Ruleset } from '../../src/core/rules/ruleset.js';
import type { EngineFixture } from '../support/engines.js';

const T0 = Date.parse('2026-11-22T10:00:00.123Z');

/** A ruleset told apart by `n`, with keys in an order JSONB would not keep. */
const numbered = (n: number): Ruleset => ({
  documents: [{ match: `notes/{id}`, allow: { write: `request.auth.uid == '${n}'`, read: 'true' } }],
  realtime: [],
});

/** Registers the rules store suite for one engine. */
export function rulesStoreCases(engine: EngineFixture): void {
  describe.skipIf(engine.unavailable)(`RulesStore on ${engine.name}`, () => {
    let storage: Storage;
    let store: RulesStore;
    let project = 100;

    beforeAll(async () => {
      storage = await engine.create();
      store = storage.rules;
    });
    afterAll(async () => {
      if (storage) await engine.destroy(storage);
    });

    it('has no revision for a project that never saved rules', async () => {
      const p = project++;
      expect(await store.current(p)).toBeNull();
      expect(await store.currentRevision(p)).toBe(0);
      expect(await store.revisions(p, 20)).toEqual([]);
    });

    it('numbers saves 1, 2, 3 per project, identical rules too, and lists them newest first', async () => {
      const p = project++;
      const other = project++;
      expect(await store.save(p, OPEN_RULESET, T0)).toEqual({ revision: 1, rules: OPEN_RULESET, updatedAt: T0 });
      expect((await store.save(p, OPEN_RULESET, T0 + 1)).revision).toBe(2);
      expect((await store.save(other, numbered(9), T0 + 2)).revision).toBe(1);
      const third = await store.save(p, numbered(3), T0 + 3);
      expect(third).toEqual({ revision: 3, rules: numbered(3), updatedAt: T0 + 3 });
      expect(await store.current(p)).toEqual(third);
      expect(await store.currentRevision(p)).toBe(3);
      expect((await store.revisions(p, 20)).map((r) => [r.revision, r.updatedAt])).toEqual([
        [3, T0 + 3],
        [2, T0 + 1],
        [1, T0],
      ]);
      expect((await store.revisions(p, 2)).map((r) => r.revision)).toEqual([3, 2]);
      expect((await store.current(other))?.rules).toEqual(numbered(9));
    });

    it('reads a ruleset back with its keys in the order they were saved', async () => {
      const p = project++;
      await store.save(p, numbered(1), T0);
      const saved = await store.current(p);
      expect(JSON.stringify(saved?.rules)).toBe(JSON.stringify(numbered(1)));
      await store.save(p, OPEN_RULESET, T0);
      expect(JSON.stringify((await store.current(p))?.rules)).toBe(JSON.stringify(OPEN_RULESET));
    });

    it('gives concurrent saves distinct consecutive revisions', async () => {
      const p = project++;
      const saved = await Promise.all(Array.from({ length: 12 }, (_, i) => store.save(p, numbered(i), T0 + i)));
      expect(saved.map((r) => r.revision).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(await store.currentRevision(p)).toBe(12);
    });

    it(`keeps the newest ${KEPT_REVISIONS} revisions and keeps counting past them`, async () => {
      const p = project++;
      for (let i = 1; i <= KEPT_REVISIONS + 5; i++) await store.save(p, numbered(i), T0 + i);
      const kept = await store.revisions(p, 1000);
      expect(kept).toHaveLength(KEPT_REVISIONS);
      expect(kept[0]?.revision).toBe(KEPT_REVISIONS + 5);
      expect(kept.at(-1)?.revision).toBe(6);
      expect((await store.save(p, OPEN_RULESET, T0)).revision).toBe(KEPT_REVISIONS + 6);
    });
  });
}
