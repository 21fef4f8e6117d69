/**
 * `storage/sqlite/backup.ts` (§14) under a steady writer. SQLite's online backup starts over from
 * the first page when another connection commits between two of its steps; here another
 * connection commits at every turn of the event loop, between any two steps a copy could take
 * (in steps of 100 pages, as before issue 34, it never finished). The copy finishes, holds every
 * row committed before it began and nothing torn, and restores with the secret it carried.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { backupSqlite, restoreSqlite } from '../../src/storage/sqlite/backup.js';

const dir = mkdtempSync(join(tmpdir(), 'cds-sqlite-backup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Rows of 3,000 random bytes: one page each, 2,000 pages (20 steps of 100). */
const FILLER_ROWS = 2_000;

describe('backupSqlite under a writer committing at every turn of the event loop', () => {
  it('finishes with every row committed before it began, and restores with its secret', async () => {
    const source = join(dir, 'source.sqlite');
    const setup = new Database(source);
    setup.pragma('journal_mode = WAL');
    setup.exec(`CREATE TABLE filler (id INTEGER PRIMARY KEY, bytes BLOB NOT NULL);
      CREATE TABLE writes (seq INTEGER PRIMARY KEY)`);
    setup
      .prepare(
        'WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < ?) INSERT INTO filler SELECT x, randomblob(3000) FROM g',
      )
      .run(FILLER_ROWS);
    setup.close();

    // Another connection (as the service's is to `cds backup`): one commit per turn, rows 1, 2, 3...
    const writer = new Database(source);
    writer.pragma('journal_mode = WAL');
    const insert = writer.prepare('INSERT INTO writes (seq) VALUES (?)');
    let committed = 0;
    let writing = true;
    const write = () => {
      if (!writing) return;
      committed += 1;
      insert.run(committed);
      setImmediate(write);
    };
    write();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const committedBefore = committed;
    const target = join(dir, 'copy.sqlite');
    let timer: NodeJS.Timeout | undefined;
    try {
      const bytes = await Promise.race([
        backupSqlite(source, target, 'the-secret'),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no copy after 20 s and ${committed} commits`)), 20_000);
        }),
      ]);
      expect(bytes).toBeGreaterThan(FILLER_ROWS * 3000);
    } finally {
      clearTimeout(timer);
      writing = false;
    }
    expect(committed).toBeGreaterThan(committedBefore);
    writer.close();

    const copy = new Database(target, { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
      expect(copy.prepare('SELECT count(*) AS n FROM filler').get()).toEqual({ n: FILLER_ROWS });
      const writes = copy.prepare('SELECT count(*) AS n, max(seq) AS last FROM writes').get() as {
        n: number;
        last: number;
      };
      // Rows 1..last, none missing: one snapshot, taken after the backup began.
      expect(writes.n).toBe(writes.last);
      expect(writes.last).toBeGreaterThanOrEqual(committedBefore);
      expect(copy.prepare("SELECT value FROM cds_backup WHERE name = 'jwt_secret'").get()).toEqual({
        value: 'the-secret',
      });
    } finally {
      copy.close();
    }

    const restoredFile = join(dir, 'restored.sqlite');
    expect(restoreSqlite(target, restoredFile)).toEqual({ jwtSecret: 'the-secret' });
    const restored = new Database(restoredFile, { readonly: true });
    try {
      expect(restored.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(restored.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'cds_backup'").get()).toEqual({
        n: 0,
      });
    } finally {
      restored.close();
    }
  });
});
