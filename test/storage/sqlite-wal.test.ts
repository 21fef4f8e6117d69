/**
 * The SQLite write-ahead log stays bounded after bulk work (issue 39). An import is one
 * transaction: every page it writes goes to the WAL, which SQLite reuses but never shrinks by
 * itself, and until a checkpoint has copied those pages back every read searches them. The import
 * checkpoints and truncates the log once it commits, and `journal_size_limit` caps what any other
 * large transaction leaves behind.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { startTestApp } from '../support/app.js';
import type { EngineFixture } from '../support/engines.js';

const dir = mkdtempSync(join(tmpdir(), 'cds-sqlite-wal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DOCUMENTS = 20_000;
const walSize = (file: string) => statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;

describe('the SQLite WAL after a bulk import', () => {
  it('is truncated once the import commits, and journal_size_limit caps it otherwise', async () => {
    const file = join(dir, 'cds.sqlite');
    const engine: EngineFixture = {
      name: 'sqlite',
      unavailable: null,
      create: async () => SqliteStorage.open(file),
      destroy: (storage) => storage.close(),
    };
    const t = await startTestApp(engine);
    try {
      const storage = t.app.services.storage as SqliteStorage;
      expect(storage.db.pragma('journal_size_limit', { simple: true })).toBe(64 * 1024 * 1024);
      const { transfer, documents } = t.app.services;
      const file0 = await transfer.exportProject(t.project.projectId);
      const filler = 'x'.repeat(400);
      const imported = {
        ...file0,
        documents: Array.from({ length: DOCUMENTS }, (_, i) => ({
          path: `items/i${String(i).padStart(6, '0')}`,
          data: { n: i, filler },
        })),
      };
      // A write before the import, so the WAL is in use (not empty because nothing ever wrote).
      await documents.put(t.project.projectId, 'before/import', { ok: true });
      const summary = await transfer.importProject(t.project.projectId, imported);
      expect(summary).toMatchObject({ documents: DOCUMENTS });
      // 20,000 documents of 400 bytes and their index entries are over 10 MB of pages: none left in the WAL.
      expect(walSize(file)).toBe(0);
      const last = await documents.get(t.project.projectId, 'items/i019999');
      expect(JSON.parse(last.document)).toMatchObject({ path: 'items/i019999', data: { n: 19_999 } });
      await documents.put(t.project.projectId, 'after/import', { ok: true });
      expect(walSize(file)).toBeLessThan(1024 * 1024);
    } finally {
      await t.close();
    }
  });
});
