/**
 * The migration binding refresh tokens to a token epoch, on a database the version before it
 * left (SQLite 12, PostgreSQL 13): a token stored then is taken as of its user's current epoch,
 * so sessions of users disabled and re-enabled before the upgrade keep working.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/ports.js';
import { postgresMigrations } from '../../src/storage/postgres/migrations.js';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.js';
import { sqliteMigrations } from '../../src/storage/sqlite/migrations.js';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { postgresEngine, TEST_DATABASE_URL } from '../support/engines.js';
import { olderPostgres, olderSqlite } from '../support/older-database.js';

const NAME = 'refresh tokens under a token epoch';
const SQLITE_VERSION = 13;
const POSTGRES_VERSION = 14;
const HOUR = 3600_000;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The rows an older version left: user 1 re-enabled after two disables (epoch 2), user 2 never disabled. */
const USERS = [
  { id: 1, epoch: 2, token: 'hash-of-ann' },
  { id: 2, epoch: 0, token: 'hash-of-bob' },
];

async function expectTokensOfCurrentEpochs(storage: Storage): Promise<void> {
  for (const user of USERS) {
    expect(await storage.accounts.consumeRefreshToken(1, user.token, new Date())).toEqual({
      userId: user.id,
      tokenEpoch: user.epoch,
    });
  }
}

describe(`migration "${NAME}"`, () => {
  it(`is SQLite version ${SQLITE_VERSION} and PostgreSQL version ${POSTGRES_VERSION}`, () => {
    expect(sqliteMigrations.find((m) => m.name === NAME)?.version).toBe(SQLITE_VERSION);
    expect(postgresMigrations.find((m) => m.name === NAME)?.version).toBe(POSTGRES_VERSION);
  });

  it('on SQLite, keeps the refresh tokens stored before it, under their users’ epochs', async () => {
    const { file, db } = olderSqlite(SQLITE_VERSION, cleanups);
    db.exec("INSERT INTO organisations (id, name, created_at) VALUES (1, 'acme', 0)");
    db.exec("INSERT INTO projects (id, org_id, name, created_at) VALUES (1, 1, 'game', 0)");
    for (const user of USERS) {
      db.prepare(
        `INSERT INTO users (project_id, id, username, nickname, roles, created_at, token_epoch)
         VALUES (1, ?, ?, ?, '[]', 0, ?)`,
      ).run(user.id, user.token, user.token, user.epoch);
      db.prepare('INSERT INTO refresh_tokens (token_hash, project_id, user_id, expires_at) VALUES (?, 1, ?, ?)').run(
        user.token,
        user.id,
        Date.now() + HOUR,
      );
    }
    db.close();

    const storage = SqliteStorage.open(file);
    cleanups.push(() => storage.close());
    await expectTokensOfCurrentEpochs(storage);
  });

  it.skipIf(postgresEngine.unavailable)(
    'on PostgreSQL, keeps the refresh tokens stored before it, under their users’ epochs',
    async () => {
      const { schema, admin } = await olderPostgres(POSTGRES_VERSION, cleanups);
      await admin.query("INSERT INTO organisations (id, name) VALUES (1, 'acme')");
      await admin.query("INSERT INTO projects (id, org_id, name) VALUES (1, 1, 'game')");
      for (const user of USERS) {
        await admin.query(
          `INSERT INTO users (project_id, id, username, nickname, roles, token_epoch) VALUES (1, $1, $2, $2, '[]', $3)`,
          [user.id, user.token, user.epoch],
        );
        await admin.query(
          'INSERT INTO refresh_tokens (token_hash, project_id, user_id, expires_at) VALUES ($1, 1, $2, $3)',
          [user.token, user.id, new Date(Date.now() + HOUR)],
        );
      }

      const storage = await PostgresStorage.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 2 });
      cleanups.push(() => storage.close());
      await expectTokensOfCurrentEpochs(storage);
    },
  );
});
