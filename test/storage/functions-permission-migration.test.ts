/**
 * The migration "players call server functions" (§16) on a database an earlier version left
 * (SQLite 15, PostgreSQL 16): every project's `player` role gains `client.functions`, once; other
 * roles, and a player role that has it already, keep their permissions.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/ports.js';
import { postgresMigrations } from '../../src/storage/postgres/migrations.js';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.js';
import { sqliteMigrations } from '../../src/storage/sqlite/migrations.js';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { postgresEngine, TEST_DATABASE_URL } from '../support/engines.js';
import { olderPostgres, olderSqlite } from '../support/older-database.js';

const NAME = 'players call server functions';
const SQLITE_VERSION = 16;
const POSTGRES_VERSION = 17;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Project 1: a default player role, a custom role; project 2: a player role that has the permission. */
const ROLES: [number, string, string[]][] = [
  [1, 'player', ['client.documents', 'client.realtime']],
  [1, 'mod', ['client.documents']],
  [2, 'player', ['client.functions']],
];

async function expectRoles(storage: Storage): Promise<void> {
  const one = await storage.accounts.listRoles(1);
  expect(one.find((r) => r.name === 'player')?.permissions).toEqual([
    'client.documents',
    'client.realtime',
    'client.functions',
  ]);
  expect(one.find((r) => r.name === 'mod')?.permissions).toEqual(['client.documents']);
  expect((await storage.accounts.listRoles(2)).find((r) => r.name === 'player')?.permissions).toEqual([
    'client.functions',
  ]);
}

describe(`migration "${NAME}"`, () => {
  it(`is SQLite version ${SQLITE_VERSION} and PostgreSQL version ${POSTGRES_VERSION}`, () => {
    expect(sqliteMigrations.find((m) => m.name === NAME)?.version).toBe(SQLITE_VERSION);
    expect(postgresMigrations.find((m) => m.name === NAME)?.version).toBe(POSTGRES_VERSION);
  });

  it('on SQLite, gives existing player roles client.functions', async () => {
    const { file, db } = olderSqlite(SQLITE_VERSION, cleanups);
    db.pragma('foreign_keys = OFF');
    for (const [project, name, permissions] of ROLES) {
      db.prepare('INSERT INTO roles (project_id, name, permissions) VALUES (?, ?, ?)').run(
        project,
        name,
        JSON.stringify(permissions),
      );
    }
    db.close();
    const storage = SqliteStorage.open(file);
    cleanups.push(() => storage.close());
    await expectRoles(storage);
  });

  it.skipIf(postgresEngine.unavailable)('on PostgreSQL, gives existing player roles client.functions', async () => {
    const { schema, admin } = await olderPostgres(POSTGRES_VERSION, cleanups);
    await admin.query("INSERT INTO organisations (id, name) VALUES (1, 'o')");
    for (const id of [1, 2])
      await admin.query('INSERT INTO projects (id, org_id, name) VALUES ($1, 1, $2)', [id, `p${id}`]);
    for (const [project, name, permissions] of ROLES) {
      await admin.query('INSERT INTO roles (project_id, name, permissions) VALUES ($1, $2, $3)', [
        project,
        name,
        JSON.stringify(permissions),
      ]);
    }
    const storage = await PostgresStorage.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 2 });
    cleanups.push(() => storage.close());
    await expectRoles(storage);
  });
});
