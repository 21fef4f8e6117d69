/**
 * The anti-cheat migration on a database an earlier version left (SQLite 8, PostgreSQL 7): the
 * versions in between belong to other branches and may be missing, and the runner applies what is
 * missing whatever the gap. Boards already there keep working with the defaults.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/ports.js';
import { postgresMigrations } from '../../src/storage/postgres/migrations.js';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.js';
import { sqliteMigrations } from '../../src/storage/sqlite/migrations.js';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { postgresEngine, TEST_DATABASE_URL } from '../support/engines.js';
import { olderPostgres, olderSqlite } from '../support/older-database.js';

const SQLITE_VERSION = 8;
const POSTGRES_VERSION = 7;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** What an older version's board reads as now. */
async function expectOldBoardWithDefaults(storage: Storage): Promise<void> {
  const board = await storage.leaderboards.get(1, 'old');
  expect(board).toMatchObject({
    slug: 'old',
    leagues: [{ slug: 'global' }],
    clientSubmit: true,
    statMin: null,
    statMax: null,
  });
}

describe('migration "leaderboard anti-cheat"', () => {
  it('is SQLite version 8 and PostgreSQL version 7', () => {
    expect(sqliteMigrations.find((m) => m.name === 'leaderboard anti-cheat')?.version).toBe(SQLITE_VERSION);
    expect(postgresMigrations.find((m) => m.name === 'leaderboard anti-cheat')?.version).toBe(POSTGRES_VERSION);
  });

  it('on SQLite, upgrades a database of the versions before it and keeps its boards working', async () => {
    const { file, db } = olderSqlite(SQLITE_VERSION, cleanups);
    const board = db
      .prepare(
        `INSERT INTO leaderboards (project_id, slug, name, description, type, sort, operator, reset, period_start, period_end, created_at)
         VALUES (1, 'old', 'Old', '', 'CONTINUOUS', 'desc', 'best', 'none', 0, NULL, 0)`,
      )
      .run();
    db.prepare(
      "INSERT INTO leaderboard_leagues (leaderboard_id, slug, name, ord) VALUES (?, 'global', 'Global', 0)",
    ).run(board.lastInsertRowid);
    db.close();

    const storage = SqliteStorage.open(file);
    cleanups.push(() => storage.close());
    await expectOldBoardWithDefaults(storage);
    const applied = storage.db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
    expect(applied).toContain(SQLITE_VERSION);
  });

  it.skipIf(postgresEngine.unavailable)(
    'on PostgreSQL, upgrades a schema of the versions before it and keeps its boards working',
    async () => {
      const { schema, admin } = await olderPostgres(POSTGRES_VERSION, cleanups);
      const board = await admin.query<{ id: number }>(
        `INSERT INTO leaderboards (project_id, slug, name, description, type, sort, operator, reset, period_start, period_end)
         VALUES (1, 'old', 'Old', '', 'CONTINUOUS', 'desc', 'best', 'none', 0, NULL) RETURNING id`,
      );
      await admin.query(
        "INSERT INTO leaderboard_leagues (leaderboard_id, slug, name, ord) VALUES ($1, 'global', 'Global', 0)",
        [board.rows[0]?.id],
      );

      const storage = await PostgresStorage.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 2 });
      cleanups.push(() => storage.close());
      await expectOldBoardWithDefaults(storage);
      const applied = await admin.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(applied.rows.map((row) => row.version)).toContain(POSTGRES_VERSION);
    },
  );
});
