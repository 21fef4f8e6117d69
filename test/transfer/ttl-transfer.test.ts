/**
 * §8 with §17 TTL settings on every engine: the export carries `ttl: [{collection, field}]`; an
 * import into an empty project reproduces it (the expired documents it brings are absent to reads);
 * a bad or repeated setting fails the whole import, names it, and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPEN_RULESET } from '../../src/core/rules/ruleset.js';
import type { ProjectExport } from '../../src/core/transfer/export-format.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`TTL settings in export and import (§8, §17) on ${engine.name}`, () => {
    let t: TestApp;
    let projects = 0;
    const emptyProject = async () =>
      (await t.app.services.accounts.createProject('org-ttl-transfer', `p${++projects}`)).project_id;
    /** A file of one document, `codes/a`, and the TTL settings `ttl`. */
    const fileOf = (ttl: unknown): ProjectExport =>
      ({
        format: 'cds-export',
        version: 1,
        documents: [{ path: 'codes/a', data: {} }],
        realtime: null,
        users: [],
        leaderboards: [],
        ttl,
      }) as ProjectExport;
    beforeAll(async () => {
      t = await startTestApp(engine);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('exports the settings, and an import into an empty project reproduces them', async () => {
      const source = await emptyProject();
      expect((await t.app.services.transfer.exportProject(source)).ttl).toEqual([]);
      await t.app.services.ttl.set(source, 'sessions', 'expires_at');
      await t.app.services.ttl.set(source, 'codes', 'meta__until');
      await t.app.services.documents.put(source, 'codes/old', { meta: { until: 1 } });
      await t.app.services.documents.put(source, 'codes/new', { meta: { until: Date.now() + 3_600_000 } });
      await t.app.services.indexes.whenBuilt();
      const file = await t.app.services.transfer.exportProject(source);
      expect(file.ttl).toEqual([
        { collection: 'codes', field: 'meta__until' },
        { collection: 'sessions', field: 'expires_at' },
      ]);
      // An expired document is absent to the export's read too.
      expect(file.documents.map((d) => d.path)).toEqual(['codes/new']);
      const target = await emptyProject();
      await t.app.services.transfer.importProject(target, JSON.parse(JSON.stringify(file)));
      await t.app.services.indexes.whenBuilt();
      // `rules: null` (never set) imports as the open ruleset (§9).
      expect(await t.app.services.transfer.exportProject(target)).toEqual({ ...file, rules: OPEN_RULESET });
      expect(await t.app.services.ttl.list(target)).toEqual(file.ttl);
    });

    it('refuses a bad or repeated setting, naming it, and changes nothing', async () => {
      const target = await emptyProject();
      const cases: [unknown, RegExp][] = [
        [[{ collection: 'codes', field: '' }], /ttl\[0\]\.field/],
        [[{ collection: 'codes', field: 'a____b' }], /ttl\[0\]\.field/],
        [[{ collection: 'a/b', field: 'x' }], /ttl\[0\]\.collection/],
        [
          [
            { collection: 'codes', field: 'x' },
            { collection: 'codes', field: 'y' },
          ],
          /ttl\[1\]\.collection: duplicate collection 'codes'/,
        ],
        [[{ collection: 'codes' }], /ttl/],
      ];
      for (const [ttl, message] of cases) {
        await expect(t.app.services.transfer.importProject(target, fileOf(ttl))).rejects.toThrow(message);
      }
      expect(await t.app.services.ttl.list(target)).toEqual([]);
      expect(await t.app.services.storage.documents.get(target, 'codes/a')).toBeNull();
    });

    it('refuses settings whose sweep indexes would pass the 64 indexes of a project, before importing anything', async () => {
      const target = await emptyProject();
      for (let i = 0; i < 63; i += 1) {
        await t.app.services.indexes.create(target, { collection: 'full', fields: [{ field: `f${i}` }] });
      }
      // One index led by `f0` exists already; `until` needs a 64th, `expires` a 65th.
      const file = fileOf([
        { collection: 'full', field: 'f0' },
        { collection: 'codes', field: 'until' },
        { collection: 'sessions', field: 'expires' },
      ]);
      await expect(t.app.services.transfer.importProject(target, file)).rejects.toThrow(
        /ttl: its sweep indexes would give the project more than 64 indexes/,
      );
      expect(await t.app.services.storage.documents.get(target, 'codes/a')).toBeNull();
      expect(await t.app.services.ttl.list(target)).toEqual([]);
      // Without the third setting it fits: all of it is imported.
      await t.app.services.transfer.importProject(target, { ...file, ttl: file.ttl?.slice(0, 2) });
      expect(await t.app.services.storage.documents.get(target, 'codes/a')).not.toBeNull();
      expect((await t.app.services.ttl.list(target)).map((ttl) => ttl.collection)).toEqual(['codes', 'full']);
    });
  });
}
