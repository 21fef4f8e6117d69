/**
 * §8 with §9 rules on every engine: the export carries `rules` (null until set); an import
 * without `rules` leaves the ruleset, `rules: null` sets the open ruleset and a ruleset sets it,
 * each as a new revision in force at once and announced; an invalid ruleset, or any bad item,
 * fails the whole import and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULES_CHANNEL } from '../../src/core/rules/rules-service.js';
import { OPEN_RULESET } from '../../src/core/rules/ruleset.js';
import type { ProjectExport } from '../../src/core/transfer/export-format.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

const OWNER_ONLY = {
  documents: [{ match: 'users/{uid}', allow: { read: 'request.auth.uid == uid' } }],
  realtime: [{ match: 'lobby', allow: { read: 'true' } }],
};

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`rules in export and import (§8, §9) on ${engine.name}`, () => {
    let t: TestApp;
    let projects = 0;
    const emptyProject = async () =>
      (await t.app.services.accounts.createProject('org-rules-transfer', `p${++projects}`)).project_id;
    const fileOf = (rules?: unknown): ProjectExport => ({
      format: 'cds-export',
      version: 1,
      documents: [{ path: 'notes/n1', data: { text: 'hi' } }],
      realtime: null,
      users: [],
      leaderboards: [],
      ...(rules === undefined ? {} : { rules }),
    });
    beforeAll(async () => {
      t = await startTestApp(engine);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('exports rules: null until the project sets rules, then the current ruleset', async () => {
      const p = await emptyProject();
      expect((await t.app.services.transfer.exportProject(p)).rules).toBeNull();
      await t.app.services.rules.put(p, OWNER_ONLY);
      expect((await t.app.services.transfer.exportProject(p)).rules).toEqual(OWNER_ONLY);
      await t.app.services.rules.put(p, OPEN_RULESET);
      expect((await t.app.services.transfer.exportProject(p)).rules).toEqual(OPEN_RULESET);
    });

    it('leaves the ruleset unchanged when the file has no `rules`', async () => {
      const p = await emptyProject();
      await t.app.services.rules.put(p, OWNER_ONLY);
      const summary = await t.app.services.transfer.importProject(p, fileOf());
      expect(summary.rules).toBe(false);
      expect(await t.app.services.rules.get(p)).toMatchObject({ revision: 1, rules: OWNER_ONLY });
      const fresh = await emptyProject();
      await t.app.services.transfer.importProject(fresh, fileOf());
      expect((await t.app.services.transfer.exportProject(fresh)).rules).toBeNull();
    });

    it('sets a ruleset, or the open one for null, as a new revision in force at once and announced', async () => {
      const p = await emptyProject();
      const heard: string[] = [];
      const stop = await t.app.services.bus.subscribe(RULES_CHANNEL, (message) => heard.push(message));
      try {
        await t.app.services.transfer.importProject(p, fileOf(OWNER_ONLY));
        expect(await t.app.services.rules.get(p)).toMatchObject({ revision: 1, rules: OWNER_ONLY });
        expect((await t.app.services.rules.compiled(p)).rules).toEqual(OWNER_ONLY);
        await t.app.services.transfer.importProject(p, fileOf(null));
        expect(await t.app.services.rules.get(p)).toMatchObject({ revision: 2, rules: OPEN_RULESET });
        expect((await t.app.services.rules.compiled(p)).open).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 5));
      } finally {
        await stop();
      }
      expect(heard.map((message) => JSON.parse(message))).toEqual([
        { projectId: p, revision: 1 },
        { projectId: p, revision: 2 },
      ]);
    });

    it.each([
      [{ documents: [{ match: 'a{b}', allow: {} }] }, 'Invalid import: rules.documents[0].match: '],
      [
        { realtime: [{ match: 'x', allow: { frob: 'true' } }] },
        'Invalid import: rules.realtime[0].allow.frob: unknown op',
      ],
      [{ documents: [], extra: [] }, 'Invalid import: rules.extra: unknown key'],
      [[], 'Invalid import: rules: must be an object or null'],
    ])('fails the whole import on an invalid ruleset, naming rules.<where> (%#)', async (rules, message) => {
      const p = await emptyProject();
      await t.app.services.rules.put(p, OWNER_ONLY);
      const error = await t.app.services.transfer.importProject(p, fileOf(rules)).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'bad_request' });
      expect((error as Error).message.startsWith(message)).toBe(true);
      expect((await t.app.services.transfer.exportProject(p)).documents).toEqual([]);
      expect(await t.app.services.rules.get(p)).toMatchObject({ revision: 1, rules: OWNER_ONLY });
    });

    it('saves no revision when another item of the file fails', async () => {
      const p = await emptyProject();
      const file = fileOf(OWNER_ONLY);
      await t.app.services.accounts.createUser(p, { username: 'taken', password: 'password-123' });
      file.users = [{ id: 1, username: 'other', nickname: 'o', avatar_url: null, roles: [] }];
      await expect(t.app.services.transfer.importProject(p, file)).rejects.toThrow(/users\[0\]\.id/);
      expect(await t.app.services.rules.get(p)).toMatchObject({ revision: 0 });
    });
  });
}
