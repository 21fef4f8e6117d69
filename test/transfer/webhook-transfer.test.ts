/**
 * §8 with §16 webhooks on every engine: the export carries webhooks without secrets unless asked;
 * an import creates them (the file's secret, or a fresh one it reports), updates those with the
 * same URL and events instead of adding them twice, and names a bad item without changing anything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectExport } from '../../src/core/transfer/export-format.js';
import { planWebhooks } from '../../src/core/transfer/webhook-transfer.js';
import { newWebhookSecret } from '../../src/core/webhooks/webhook-signing.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

const fileOf = (webhooks?: unknown): ProjectExport =>
  ({
    format: 'cds-export',
    version: 1,
    documents: [],
    realtime: null,
    users: [],
    leaderboards: [],
    ...(webhooks === undefined ? {} : { webhooks }),
  }) as ProjectExport;

describe('the webhook import plan (§8, §16)', () => {
  it('matches by URL and the set of events, one stored webhook per file item, in id order', () => {
    const stored = [
      { id: 1, url: 'https://a.example', events: ['user.created', 'document.*'] },
      { id: 2, url: 'https://a.example', events: ['document.*', 'user.created'] },
      { id: 3, url: 'https://a.example', events: ['user.created'] },
    ];
    const item = { url: 'https://a.example', events: ['document.*', 'user.created', 'user.created'] };
    const rows = planWebhooks([item, item, item, { ...item, events: ['realtime.*'] }], stored);
    expect(rows.map((row) => [row.existingId, row.freshSecret, row.secret === null])).toEqual([
      [1, false, true],
      [2, false, true],
      [null, true, false],
      [null, true, false],
    ]);
    const secret = newWebhookSecret();
    expect(planWebhooks([{ ...item, secret, description: 'd' }], stored)[0]).toMatchObject({
      existingId: 1,
      secret,
      description: 'd',
      freshSecret: false,
    });
  });
});

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`webhooks in export and import (§8, §16) on ${engine.name}`, () => {
    let t: TestApp;
    let projects = 0;
    const emptyProject = async () =>
      (await t.app.services.accounts.createProject('org-webhook-transfer', `p${++projects}`)).project_id;
    beforeAll(async () => {
      t = await startTestApp(engine);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('exports webhooks without secrets unless asked; export then import reproduces them', async () => {
      const { webhooks, transfer } = t.app.services;
      const source = await emptyProject();
      const a = await webhooks.create(source, {
        url: 'https://a.example/h',
        events: ['leaderboards.*'],
        description: 'x',
      });
      const b = await webhooks.create(source, { url: 'http://127.0.0.1:1/b', events: ['user.created', 'document.*'] });
      const plain = await transfer.exportProject(source);
      expect(plain.webhooks).toEqual([
        { url: a.url, events: a.events, description: 'x' },
        { url: b.url, events: b.events, description: null },
      ]);
      const full = await transfer.exportProject(source, { withSecrets: true });
      expect(full.webhooks?.map((w) => w.secret)).toEqual([a.secret, b.secret]);

      const copy = await emptyProject();
      const summary = await transfer.importProject(copy, JSON.parse(JSON.stringify(full)));
      expect(summary).toMatchObject({ webhooks: 2, webhook_secrets: [] });
      expect((await transfer.exportProject(copy, { withSecrets: true })).webhooks).toEqual(full.webhooks);
      // Importing the same file again updates the same two webhooks.
      expect((await transfer.importProject(copy, full)).webhooks).toBe(2);
      expect(await t.app.services.storage.webhooks.list(copy)).toHaveLength(2);
    });

    it('gives a webhook imported without a secret a fresh one, reported once; a matched one keeps its own', async () => {
      const { webhooks, transfer, storage } = t.app.services;
      const target = await emptyProject();
      const kept = await webhooks.create(target, { url: 'https://kept.example', events: ['user.*'] });
      const file = fileOf([
        { url: 'https://kept.example', events: ['user.*'], description: 'now described' },
        { url: 'https://new.example', events: ['realtime.written'] },
      ]);
      const summary = await transfer.importProject(target, file);
      const stored = await storage.webhooks.list(target);
      expect(stored.map((w) => [w.id, w.url, w.description])).toEqual([
        [kept.id, 'https://kept.example', 'now described'],
        [expect.any(Number), 'https://new.example', null],
      ]);
      expect(stored[0]?.secret).toBe(kept.secret);
      expect(summary.webhook_secrets).toEqual([
        { id: stored[1]?.id, url: 'https://new.example', secret: stored[1]?.secret },
      ]);
      expect(stored[1]?.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      // A file that has the secret replaces the stored one.
      const secret = newWebhookSecret();
      await transfer.importProject(target, fileOf([{ url: 'https://kept.example', events: ['user.*'], secret }]));
      expect((await storage.webhooks.get(target, kept.id))?.secret).toBe(secret);
    });

    it('refuses a bad webhook item, naming it, and imports nothing', async () => {
      const { transfer, storage } = t.app.services;
      const target = await emptyProject();
      const good = { url: 'https://ok.example', events: ['user.created'] };
      const cases: [unknown, RegExp][] = [
        [{ url: 'mailto:a@b.example', events: ['user.created'] }, /webhooks\[1\]\.url: must be an absolute http/],
        [{ url: 'https://x.example', events: [] }, /webhooks\[1\]\.events: must list at least one/],
        [
          { url: 'https://x.example', events: ['user.*', 'nope'] },
          /webhooks\[1\]\.events\[1\]: 'nope' is not an event/,
        ],
        [{ ...good, secret: 'sk_not_a_secret' }, /webhooks\[1\]\.secret: must be whsec_/],
        [{ events: ['user.created'] }, /webhooks\[1\]/],
      ];
      for (const [bad, message] of cases) {
        const file = { ...fileOf([good, bad]), documents: [{ path: 'a/b', data: {} }] };
        await expect(transfer.importProject(target, file), JSON.stringify(bad)).rejects.toThrow(message);
      }
      expect(await storage.webhooks.list(target)).toEqual([]);
      expect((await transfer.exportProject(target)).documents).toEqual([]);
      // Files written before webhooks existed import as before.
      expect((await transfer.importProject(target, fileOf())).webhooks).toBe(0);
    });
  });
}
