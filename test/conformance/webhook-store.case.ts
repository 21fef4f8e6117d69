/**
 * The behaviour every WebhookStore must have (§16), run against each engine by
 * test/storage/webhook-store.test.ts. Real databases, no mocks.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/ports.js';
import type { NewWebhook } from '../../src/core/webhooks/webhook-store.js';
import type { EngineFixture } from '../support/engines.js';

const PLAYER = { name: 'player', permissions: [] };
const NOW = Date.parse('2026-11-22T10:00:00.000Z');

const hook = (url: string, events: string[], description: string | null = null): NewWebhook => ({
  url,
  events,
  description,
  secret: `whsec_${Buffer.from(url.padEnd(32, '.')).subarray(0, 32).toString('base64')}`,
});

/** Registers the WebhookStore suite for one engine. */
export function webhookStoreCases(engine: EngineFixture): void {
  describe.skipIf(engine.unavailable)(`WebhookStore on ${engine.name}`, () => {
    let storage: Storage;
    let projectId: number;
    let otherProjectId: number;

    beforeEach(async () => {
      storage = await engine.create();
      const orgId = (await storage.accounts.ensureOrganisation('acme')).id;
      projectId = (await storage.accounts.createProject(orgId, 'game', PLAYER)).id;
      otherProjectId = (await storage.accounts.createProject(orgId, 'other', PLAYER)).id;
    });
    afterEach(async () => {
      await engine.destroy(storage);
    });

    it('stores webhooks with their events in order, lists a project’s by id and gets one', async () => {
      const webhooks = storage.webhooks;
      const events = ['leaderboards.*', 'document.written', 'user.created'];
      const first = await webhooks.create(projectId, hook('https://a.example/h', events, 'ops'), NOW);
      const second = await webhooks.create(projectId, hook('http://127.0.0.1:9/x', ['realtime.written']), NOW + 1);
      await webhooks.create(otherProjectId, hook('https://theirs.example', ['user.*']), NOW);
      expect(first).toEqual({
        id: expect.any(Number),
        projectId,
        ...hook('https://a.example/h', events, 'ops'),
        createdAt: NOW,
      });
      expect(second).toMatchObject({ description: null, events: ['realtime.written'], createdAt: NOW + 1 });
      expect(await webhooks.list(projectId)).toEqual([first, second]);
      expect(await webhooks.get(projectId, second.id)).toEqual(second);
      expect(await webhooks.get(otherProjectId, second.id)).toBeNull();
      expect(await webhooks.get(projectId, 999_999)).toBeNull();
    });

    it('deletes a webhook of its own project once', async () => {
      const webhooks = storage.webhooks;
      const kept = await webhooks.create(projectId, hook('https://kept.example', ['user.created']), NOW);
      const gone = await webhooks.create(projectId, hook('https://gone.example', ['user.created']), NOW);
      expect(await webhooks.delete(otherProjectId, gone.id)).toBe(false);
      expect(await webhooks.delete(projectId, gone.id)).toBe(true);
      expect(await webhooks.delete(projectId, gone.id)).toBe(false);
      expect(await webhooks.delete(projectId, 999_999)).toBe(false);
      expect(await webhooks.list(projectId)).toEqual([kept]);
      expect(await webhooks.get(projectId, gone.id)).toBeNull();
    });

    it('keeps the same URL twice (one receiver, two filters)', async () => {
      const webhooks = storage.webhooks;
      await webhooks.create(projectId, hook('https://same.example', ['user.created']), NOW);
      await webhooks.create(projectId, hook('https://same.example', ['document.*']), NOW);
      expect((await webhooks.list(projectId)).map((w) => w.events)).toEqual([['user.created'], ['document.*']]);
    });
  });
}
