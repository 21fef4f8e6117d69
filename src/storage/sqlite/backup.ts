/**
 * Online backup and restore of the embedded SQLite database (§14). A backup is one ordinary
 * SQLite file made with SQLite's online backup API while the service keeps writing, holding every
 * write committed before the copy began; a table `cds_backup` beside the data carries the
 * generated JWT secret so tokens stay valid after a restore.
 */
import { copyFileSync, renameSync, rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';

const META_TABLE = 'cds_backup';
/**
 * Pages per backup step: all of them. The online backup API restarts from the first page when
 * another connection commits between two of its steps, so in steps of 100 pages (better-sqlite3's
 * default) a large copy never finished while the service kept writing (1 GB: 34,663 restarts in
 * 120 s). One step copies every page inside one read transaction: one WAL snapshot, which the
 * service's commits do not disturb (they go on meanwhile), so the copy holds every write
 * committed before it began. It blocks this process's event loop for the copy (the CLI has
 * nothing else to do). VACUUM INTO (one read transaction too) rebuilds every table and index,
 * took as long or longer for 1 GB, and does not sync its file (BENCHMARKS.md, bench/backup.ts).
 * The largest count better-sqlite3 passes on.
 */
const ALL_PAGES = 0x7fffffff;

/** Copies the database at `source` to `target` (overwritten) with the secret inside; returns its size. */
export async function backupSqlite(source: string, target: string, jwtSecret: string | null): Promise<number> {
  const db = new Database(source, { fileMustExist: true, readonly: true });
  const partial = `${target}.partial`;
  try {
    rmSync(partial, { force: true });
    await db.backup(partial, { progress: () => ALL_PAGES });
  } finally {
    db.close();
  }
  const copy = new Database(partial);
  try {
    copy.exec(`CREATE TABLE ${META_TABLE} (name TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    if (jwtSecret !== null) copy.prepare(`INSERT INTO ${META_TABLE} VALUES ('jwt_secret', ?)`).run(jwtSecret);
    // One self-contained file: no -wal beside it.
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
  renameSync(partial, target);
  return statSync(target).size;
}

/**
 * Replaces the database at `target` by the backup at `source` (the service must be stopped);
 * returns the JWT secret the backup carried, if any. The backup file itself is left as it was.
 */
export function restoreSqlite(source: string, target: string): { jwtSecret: string | null } {
  const partial = `${target}.partial`;
  rmSync(partial, { force: true });
  copyFileSync(source, partial);
  const db = new Database(partial, { fileMustExist: true });
  let jwtSecret: string | null = null;
  try {
    const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(META_TABLE);
    if (!hasMeta) throw new Error(`${source} is not a cds backup`);
    const row = db.prepare(`SELECT value FROM ${META_TABLE} WHERE name = 'jwt_secret'`).get() as
      | { value: string }
      | undefined;
    jwtSecret = row?.value ?? null;
    db.exec(`DROP TABLE ${META_TABLE}`);
    db.pragma('journal_mode = WAL');
  } catch (error) {
    db.close();
    rmSync(partial, { force: true });
    throw error;
  }
  db.close();
  for (const suffix of ['-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });
  renameSync(partial, target);
  return { jwtSecret };
}
