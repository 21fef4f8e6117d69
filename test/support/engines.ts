/**
 * The storage engines every shared suite runs against. PostgreSQL runs when it answers at
 * CDS_TEST_DATABASE_URL (default the local `test` database); when it does not, its suites are
 * skipped with a printed reason, or fail when CDS_TEST_REQUIRE_SERVICES=1 (CI).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Storage } from '../../src/core/ports.js';
import { PostgresStorage, quoteIdent } from '../../src/storage/postgres/postgres-storage.js';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';

export const TEST_DATABASE_URL = process.env.CDS_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REQUIRE_SERVICES = process.env.CDS_TEST_REQUIRE_SERVICES === '1';

/** A way to make fresh, empty, migrated storage of one engine. */
export interface EngineFixture {
  name: 'sqlite' | 'postgres';
  /** Null when the engine can run here; otherwise why its suites are skipped. */
  unavailable: string | null;
  /** Fresh storage isolated from every other test (own file or own schema). */
  create(): Promise<Storage>;
  /** Drops what `create` made. */
  destroy(storage: Storage): Promise<void>;
}

async function postgresUnavailable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    const reason = `PostgreSQL not reachable at ${TEST_DATABASE_URL}: ${(error as Error).message}`;
    if (REQUIRE_SERVICES) throw new Error(`${reason} (CDS_TEST_REQUIRE_SERVICES=1)`);
    return reason;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A schema name unique to this process and call. */
export function uniqueSchemaName(): string {
  return `cds_test_${process.pid}_${randomBytes(4).toString('hex')}`;
}

const schemas = new WeakMap<Storage, string>();

export const sqliteEngine: EngineFixture = {
  name: 'sqlite',
  unavailable: null,
  create: async () => SqliteStorage.open(':memory:'),
  destroy: (storage) => storage.close(),
};

export const postgresEngine: EngineFixture = {
  name: 'postgres',
  unavailable: await postgresUnavailable(),
  async create() {
    const schema = uniqueSchemaName();
    const storage = await PostgresStorage.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 4 });
    schemas.set(storage, schema);
    return storage;
  },
  async destroy(storage) {
    await storage.close();
    const schema = schemas.get(storage);
    if (!schema) return;
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await client.end();
  },
};

/** Every engine, in the order suites run them. */
export const engines: EngineFixture[] = [sqliteEngine, postgresEngine];

for (const engine of engines) {
  if (engine.unavailable) console.warn(`[skip] ${engine.name} suites: ${engine.unavailable}`);
}
