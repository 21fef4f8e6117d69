/**
 * Databases as an earlier release left them, for migration tests: every migration before
 * `version` applied and recorded, the rest not, so opening storage on them runs what follows.
 * Each registers its removal in `cleanups` (run them after the test, last first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { postgresMigrations } from '../../src/storage/postgres/migrations.js';
import { quoteIdent } from '../../src/storage/postgres/postgres-storage.js';
import { sqliteMigrations } from '../../src/storage/sqlite/migrations.js';
import { TEST_DATABASE_URL, uniqueSchemaName } from './engines.js';

/** What to undo after a test. */
export type Cleanups = (() => Promise<void> | void)[];

/** A SQLite file at the migrations before `version`, and a connection to fill it (close it before opening storage). */
export function olderSqlite(version: number, cleanups: Cleanups): { file: string; db: Database.Database } {
  const dir = mkdtempSync(join(tmpdir(), 'cds-older-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'cds.sqlite');
  const db = new Database(file);
  db.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  for (const step of sqliteMigrations.filter((m) => m.version < version)) {
    db.exec(step.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(step.version, step.name);
  }
  return { file, db };
}

/** A fresh PostgreSQL schema at the migrations before `version`, and a client on it to fill it. */
export async function olderPostgres(
  version: number,
  cleanups: Cleanups,
): Promise<{ schema: string; admin: pg.Client }> {
  const schema = uniqueSchemaName();
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  cleanups.push(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await admin.end();
  });
  await admin.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
  await admin.query(`SET search_path TO ${quoteIdent(schema)}`);
  await admin.query(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
  );
  for (const step of postgresMigrations.filter((m) => m.version < version)) {
    await admin.query(step.sql);
    await admin.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [step.version, step.name]);
  }
  return { schema, admin };
}
