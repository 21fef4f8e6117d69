/**
 * SQLite group commit: the writes of one turn of the event loop share one transaction, each
 * settles only once it is committed, and a failing write takes only itself down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/storage/sqlite/group-commit.js';

describe('GroupCommit', () => {
  let dir: string;
  let db: Database.Database;
  let reader: Database.Database;
  let commits: GroupCommit;
  const insert = (key: string) => () => db.prepare('INSERT INTO t (k) VALUES (?)').run(key).changes;
  const committedKeys = () => reader.prepare('SELECT k FROM t ORDER BY k').pluck().all();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cds-group-commit-'));
    db = new Database(join(dir, 'db.sqlite'));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
    reader = new Database(join(dir, 'db.sqlite'), { readonly: true });
    commits = new GroupCommit(db);
  });
  afterEach(() => {
    reader.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the writes of one turn in one transaction, in order, and resolves after the commit', async () => {
    const seen: { inTransaction: boolean; committed: unknown[] }[] = [];
    const observed = (key: string) => () => {
      seen.push({ inTransaction: db.inTransaction, committed: committedKeys() });
      return insert(key)();
    };
    const writes = [commits.run(observed('a')), commits.run(observed('b')), commits.run(observed('c'))];
    expect(committedKeys()).toEqual([]);
    const settled = writes.map((write) => write.then(() => committedKeys()));
    expect(await Promise.all(writes)).toEqual([1, 1, 1]);
    // Inside the batch nothing is visible to another connection yet; once any promise settles, all is.
    expect(seen).toEqual([
      { inTransaction: true, committed: [] },
      { inTransaction: true, committed: [] },
      { inTransaction: true, committed: [] },
    ]);
    expect(await Promise.all(settled)).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
    ]);
  });

  it('rejects a failing write alone and commits the others of its batch', async () => {
    await commits.run(insert('taken'));
    const results = await Promise.allSettled([
      commits.run(insert('x')),
      commits.run(insert('taken')),
      commits.run(insert('y')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
    expect(committedKeys()).toEqual(['taken', 'x', 'y']);
  });

  it('rejects the whole batch when an error ends its transaction, and writes none of it', async () => {
    const endsTransaction = () => {
      db.exec('ROLLBACK');
      throw new Error('disk I/O error');
    };
    const results = await Promise.allSettled([
      commits.run(insert('p')),
      commits.run(endsTransaction),
      commits.run(insert('q')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(committedKeys()).toEqual([]);
    expect(await commits.run(insert('after'))).toBe(1);
    expect(committedKeys()).toEqual(['after']);
  });

  it('commits waiting writes at once on flush (before the database closes)', async () => {
    const write = commits.run(insert('now'));
    commits.flush();
    expect(committedKeys()).toEqual(['now']);
    expect(await write).toBe(1);
  });
});
