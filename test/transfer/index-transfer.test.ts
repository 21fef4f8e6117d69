/**
 * §8 with §15 indexes on every engine: the export carries the declared indexes; an import
 * declares those the project lacks and builds them as a POST does (then queries use them); a bad
 * or repeated declaration, or one past the project's limit, fails the whole import and is named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexDeclaration } from '../../src/core/documents/index-service.js';
import { MAX_INDEXES_PER_PROJECT } from '../../src/core/documents/indexes.js';
import type { ProjectExport } from '../../src/core/transfer/export-format.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

const LEVEL_NAME: IndexDeclaration = {
  collection: 'items',
  fields: [{ field: 'stats__level' }, { field: 'name', order: 'desc' }],
};

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`indexes in export and import (§8, §15) on ${engine.name}`, () => {
    let t: TestApp;
    let projects = 0;
    const emptyProject = async () =>
      (await t.app.services.accounts.createProject('org-index-transfer', `p${++projects}`)).project_id;
    const fileOf = (indexes?: unknown): ProjectExport =>
      ({
        format: 'cds-export',
        version: 1,
        documents: [{ path: 'items/a', data: { stats: { level: 3 }, name: 'a' } }],
        realtime: null,
        users: [],
        leaderboards: [],
        ...(indexes === undefined ? {} : { indexes }),
      }) as ProjectExport;
    const indexOf = async (projectId: number) => {
      const { options } = await t.app.services.documents.explain(projectId, 'items', {
        where: ['stats__level__exact:3'],
      });
      return options.index?.index ?? null;
    };
    beforeAll(async () => {
      t = await startTestApp(engine);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('exports every declared index with its orders, and no index as []', async () => {
      const p = await emptyProject();
      expect((await t.app.services.transfer.exportProject(p)).indexes).toEqual([]);
      await t.app.services.indexes.create(p, LEVEL_NAME);
      await t.app.services.indexes.create(p, { collection: 'posts', fields: [{ field: 'at', order: 'desc' }] });
      await t.app.services.indexes.whenBuilt();
      expect((await t.app.services.transfer.exportProject(p)).indexes).toEqual([
        {
          collection: 'items',
          fields: [
            { field: 'stats__level', order: 'asc' },
            { field: 'name', order: 'desc' },
          ],
        },
        { collection: 'posts', fields: [{ field: 'at', order: 'desc' }] },
      ]);
    });

    it('imports the indexes into an empty project, builds them, and queries then use them', async () => {
      const source = await emptyProject();
      await t.app.services.transfer.importProject(source, fileOf());
      await t.app.services.indexes.create(source, LEVEL_NAME);
      await t.app.services.indexes.whenBuilt();
      const file = await t.app.services.transfer.exportProject(source);
      const target = await emptyProject();
      const summary = await t.app.services.transfer.importProject(target, JSON.parse(JSON.stringify(file)));
      expect(summary.indexes).toBe(1);
      await t.app.services.indexes.whenBuilt();
      const { indexes } = await t.app.services.indexes.list(target);
      expect(indexes.map((index) => [index.collection, index.state])).toEqual([['items', 'ready']]);
      expect(await t.app.services.transfer.exportProject(target)).toEqual({ ...file, rules: expect.anything() });
      expect((await indexOf(target))?.id).toBe(indexes[0]?.id);
      const found = await t.app.services.documents.query(target, 'items', { where: ['stats__level__exact:3'] });
      expect(found.map((doc) => (JSON.parse(doc) as { path: string }).path)).toEqual(['items/a']);
    });

    it('keeps the indexes a project has, and those the file leaves out; a file without `indexes` declares none', async () => {
      const p = await emptyProject();
      const mine = await t.app.services.indexes.create(p, { collection: 'posts', fields: [{ field: 'at' }] });
      const summary = await t.app.services.transfer.importProject(p, fileOf([LEVEL_NAME, { ...mine }]));
      expect(summary.indexes).toBe(1);
      await t.app.services.transfer.importProject(p, fileOf([LEVEL_NAME]));
      expect((await t.app.services.transfer.importProject(p, fileOf())).indexes).toBe(0);
      await t.app.services.indexes.whenBuilt();
      const { indexes } = await t.app.services.indexes.list(p);
      expect(indexes.map((index) => [index.collection, index.state])).toEqual([
        ['posts', 'ready'],
        ['items', 'ready'],
      ]);
    });

    it.each([
      [[{ collection: 'items', fields: [] }], 'indexes[0].fields: An index has 1 to 4 fields'],
      [[{ collection: 'items', fields: [{ field: 'a__' }] }], 'indexes[0].fields[0].field: A field is a key path'],
      [[{ collection: 'a/b', fields: [{ field: 'n' }] }], 'indexes[0].collection: Collection must be a single'],
      [[LEVEL_NAME, { ...LEVEL_NAME }], 'indexes[1]: the same index is declared twice'],
      [[{ collection: 'items', fields: [{ field: 'n', order: 'up' }] }], 'Invalid import: indexes[0].fields[0].order'],
    ])('refuses a bad declaration, naming it, and imports nothing (%#)', async (indexes, message) => {
      const p = await emptyProject();
      await expect(t.app.services.transfer.importProject(p, fileOf(indexes))).rejects.toThrow(message);
      const after = await t.app.services.transfer.exportProject(p);
      expect([after.documents, after.indexes]).toEqual([[], []]);
    });

    it(`refuses an import that would leave the project more than ${MAX_INDEXES_PER_PROJECT} indexes`, async () => {
      const p = await emptyProject();
      await t.app.services.indexes.create(p, { collection: 'posts', fields: [{ field: 'at' }] });
      const many = Array.from({ length: MAX_INDEXES_PER_PROJECT }, (_, i) => ({
        collection: 'items',
        fields: [{ field: `f${i}` }],
      }));
      await expect(t.app.services.transfer.importProject(p, fileOf(many))).rejects.toThrow(
        `Invalid import: indexes: the project would have more than ${MAX_INDEXES_PER_PROJECT} indexes`,
      );
      expect((await t.app.services.indexes.list(p)).indexes).toHaveLength(1);
      await t.app.services.indexes.whenBuilt();
    });
  });
}
