/**
 * The behaviour every engine's TTL store must have (§17), run against each engine by
 * test/storage/ttl-store.test.ts: settings per project and collection, the sweep's lease (one
 * owner at a time, taken over once lapsed, of claims at once exactly one wins), the live count,
 * and the engine's spelling of expiry equal to core's (`isoTimeMs`) on the same values.
 * Real databases, no mocks.
 */

import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocumentJson } from '../../src/core/documents/document-service.js';
import { putMutation } from '../../src/core/documents/document-writes.js';
import { isExpired, isoTimeMs } from '../../src/core/documents/ttl.js';
import type { JsonValue } from '../../src/core/json.js';
import { parseDocumentPath } from '../../src/core/paths.js';
import type { Storage } from '../../src/core/ports.js';
import type { EngineFixture } from '../support/engines.js';

const PLAYER = { name: 'player', permissions: [] };
const NOW = Date.UTC(2026, 10, 22, 10, 0, 0, 500);

/** Values around NOW in every form: numbers, ISO times with and without offsets, and strings that are no time. */
function samples(): JsonValue[] {
  const iso = (ms: number) => new Date(ms).toISOString();
  const values: JsonValue[] = [NOW, NOW - 1, NOW + 1, NOW - 0.25, NOW + 0.25, -1, 0, 1e300, -1e300, 2 ** 53 + 2];
  for (const delta of [-3_600_000, -1000, -1, 0, 1, 1000, 3_600_000, 86_400_000]) {
    const text = iso(NOW + delta);
    values.push(text, text.replace(/\.\d{3}Z$/, 'Z'), text.replace(/Z$/, '+01:30'), text.replace(/Z$/, '-23:59'));
    values.push(text.replace(/\.(\d{3})Z$/, '.$1999999Z'), text.replace(/(\.\d)\d\dZ$/, '$1Z'));
  }
  values.push('2026-02-29T00:00:00Z', '2024-02-29T00:00:00Z', '0000-01-01T00:00:00Z', '0001-01-01T00:00:00Z');
  values.push('2026-11-22T24:00:00Z', '2026-11-22 09:00:00Z', '2026-11-22T09:00:00', '2026-11-22', 'now', '', '0');
  values.push(
    '2026-11-22T09:00:00.Z',
    '2026-11-22T09:00:00.1234567890Z',
    '2026-11-22T09:00:00+24:00',
    '٢٠٢٦-11-22T09:00:00Z',
  );
  values.push(true, false, null, { at: NOW - 1 }, [NOW - 1]);
  return values;
}

/** Registers the TTL store suite for one engine. */
export function ttlStoreCases(engine: EngineFixture): void {
  describe.skipIf(engine.unavailable)(`the TTL store on ${engine.name}`, () => {
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

    it('keeps one setting per project and collection; set answers the one it replaced, clear the one it removed', async () => {
      const store = storage.ttl;
      expect(await store.set({ projectId, collection: 'rooms', field: ['expires'], indexId: 4 })).toBeNull();
      expect(await store.set({ projectId: otherId, collection: 'rooms', field: ['a', 'b'], indexId: null })).toBeNull();
      const replaced = await store.set({ projectId, collection: 'rooms', field: ['meta', 'until'], indexId: 5 });
      expect(replaced).toEqual({ projectId, collection: 'rooms', field: ['expires'], indexId: 4 });
      await store.set({ projectId, collection: 'codes', field: ['at'], indexId: null });
      expect((await store.list(projectId)).map((s) => [s.collection, s.field])).toEqual([
        ['codes', ['at']],
        ['rooms', ['meta', 'until']],
      ]);
      expect((await store.all()).map((s) => [s.projectId, s.collection])).toEqual(
        [
          [projectId, 'codes'],
          [projectId, 'rooms'],
          [otherId, 'rooms'],
        ].sort((a, b) => (a[0] as number) - (b[0] as number)),
      );
      expect(await store.clear(projectId, 'rooms')).toEqual({
        projectId,
        collection: 'rooms',
        field: ['meta', 'until'],
        indexId: 5,
      });
      expect(await store.clear(projectId, 'rooms')).toBeNull();
      expect((await store.list(otherId)).length).toBe(1);
    });

    it('leases the sweep to one owner at a time, until it lapses or is given up', async () => {
      const store = storage.ttl;
      expect(await store.claimSweep('a', NOW, NOW + 30_000)).toBe(true);
      expect(await store.claimSweep('b', NOW + 1000, NOW + 31_000)).toBe(false);
      expect(await store.claimSweep('a', NOW + 10_000, NOW + 40_000)).toBe(true);
      expect(await store.claimSweep('b', NOW + 39_000, NOW + 69_000)).toBe(false);
      expect(await store.claimSweep('b', NOW + 40_001, NOW + 70_001)).toBe(true);
      await store.releaseSweep('a');
      expect(await store.claimSweep('a', NOW + 41_000, NOW + 71_000)).toBe(false);
      await store.releaseSweep('b');
      expect(await store.claimSweep('a', NOW + 41_000, NOW + 71_000)).toBe(true);
      const claims = await Promise.all(
        ['c', 'd', 'e'].map((owner) => store.claimSweep(owner, NOW + 80_000, NOW + 90_000)),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
    });

    it('spells expiry as core does: queries and counts keep exactly the documents core calls live', async () => {
      const values = samples();
      const mutations = values.map((value, i) =>
        putMutation(parseDocumentPath(`g/1/c/d${String(i).padStart(3, '0')}`), { at: value }, randomUUID()),
      );
      await storage.documents.apply(projectId, mutations);
      const live = { field: ['at'], now: NOW };
      const kept = (await storage.documents.query(projectId, { collection: 'c', where: [], live })).documents.map(
        (json) => parseDocumentJson(json).data.at,
      );
      const expected = values.filter((value) => !isExpired({ at: value }, ['at'], NOW));
      expect(kept).toEqual(expected);
      expect(await storage.ttl.countLiveChildren(projectId, 'g/1', 'c', live)).toBe(expected.length);
      // Core's own reading of the strings, as a check of the samples: some expire, some never do.
      const strings = values.filter((value): value is string => typeof value === 'string');
      expect(strings.filter((s) => isoTimeMs(s) === null).length).toBeGreaterThan(10);
      expect(strings.filter((s) => (isoTimeMs(s) ?? Number.POSITIVE_INFINITY) <= NOW).length).toBeGreaterThan(10);
    });
  });
}
