/**
 * The behaviour every ServerKeyStore must have (§9), run against each engine by
 * test/storage/server-key-store.test.ts. Real databases, no mocks.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/ports.js';
import type { EngineFixture } from '../support/engines.js';

const PLAYER = { name: 'player', permissions: [] };

/** Registers the ServerKeyStore suite for one engine. */
export function serverKeyStoreCases(engine: EngineFixture): void {
  describe.skipIf(engine.unavailable)(`ServerKeyStore on ${engine.name}`, () => {
    let storage: Storage;
    let orgId: number;
    let projectId: number;
    let otherProjectId: number;

    beforeEach(async () => {
      storage = await engine.create();
      orgId = (await storage.accounts.ensureOrganisation('acme')).id;
      projectId = (await storage.accounts.createProject(orgId, 'game', PLAYER)).id;
      otherProjectId = (await storage.accounts.createProject(orgId, 'other', PLAYER)).id;
    });
    afterEach(async () => {
      await engine.destroy(storage);
    });

    it('creates keys, lists the live ones of a project by id and finds one by hash with its organisation', async () => {
      const keys = storage.serverKeys;
      const first = await keys.create(projectId, 'game server', 'editor', 'hash-1');
      const second = await keys.create(projectId, 'stats', 'viewer', 'hash-2');
      await keys.create(otherProjectId, 'theirs', 'editor', 'hash-3');
      expect(first).toEqual({
        id: expect.any(Number),
        projectId,
        name: 'game server',
        role: 'editor',
        createdAt: expect.any(Number),
      });
      expect(Math.abs(first.createdAt - Date.now())).toBeLessThan(60_000);
      expect(await keys.list(projectId)).toEqual([first, second]);
      expect(await keys.findByHash('hash-2')).toEqual({ ...second, orgId });
      expect(await keys.findByHash('hash-unknown')).toBeNull();
    });

    it('revokes a key of its own project once; a revoked key is neither listed nor found', async () => {
      const keys = storage.serverKeys;
      const key = await keys.create(projectId, 'k', 'viewer', 'hash-r');
      expect(await keys.revoke(otherProjectId, key.id)).toBe(false);
      expect(await keys.findByHash('hash-r')).not.toBeNull();
      expect(await keys.revoke(projectId, key.id)).toBe(true);
      expect(await keys.revoke(projectId, key.id)).toBe(false);
      expect(await keys.revoke(projectId, 999_999)).toBe(false);
      expect(await keys.list(projectId)).toEqual([]);
      expect(await keys.findByHash('hash-r')).toBeNull();
    });

    it('refuses a role other than editor or viewer, and a hash used twice', async () => {
      const keys = storage.serverKeys;
      await expect(keys.create(projectId, 'x', 'owner' as 'editor', 'hash-o')).rejects.toThrow();
      await keys.create(projectId, 'a', 'editor', 'hash-same');
      await expect(keys.create(projectId, 'b', 'editor', 'hash-same')).rejects.toThrow();
    });
  });
}
