import pg from 'pg';
import type { AdminStore, ServerKeyStore } from '../../core/admin/admin-store.js';
import type { AccountStore } from '../../core/auth/account-store.js';
import type { DocumentStore } from '../../core/documents/document-store.js';
import type { IndexStore } from '../../core/documents/index-store.js';
import type { LeaderboardAdminStore, LeaderboardStore } from '../../core/leaderboards/leaderboard-store.js';
import type { Storage } from '../../core/ports.js';
import type { TreeStore } from '../../core/realtime/tree-store.js';
import type { RulesStore } from '../../core/rules/rules-store.js';
import type { TransferStore } from '../../core/transfer/transfer-store.js';
import { PostgresAccountStore } from './account-store.js';
import { PostgresAdminStore } from './admin-store.js';
import { guardConnectionErrors } from './connection-errors.js';
import { PostgresDocumentStore } from './document-store.js';
import { PostgresIndexStore } from './index-store.js';
import { PostgresLeaderboardAdminStore } from './leaderboard-admin-store.js';
import { PostgresLeaderboardStore } from './leaderboard-store.js';
import { postgresMigrations } from './migrations.js';
import { PostgresRulesStore } from './rules-store.js';
import { PostgresServerKeyStore } from './server-key-store.js';
import { PostgresTransferStore } from './transfer-store.js';
import { PostgresTreeStore } from './tree-store.js';

/** Options of the PostgreSQL engine. */
export interface PostgresOptions {
  connectionString: string;
  /** Schema to create and use (tests isolate themselves with one each); default `public`. */
  schema?: string;
  poolSize?: number;
}

// An arbitrary constant shared by every instance, so concurrent starts migrate one at a time.
const MIGRATION_LOCK_ID = 7_317_001;

/** The scale-out engine: a `pg` pool; every store method is one statement or one transaction. */
export class PostgresStorage implements Storage {
  readonly documents: DocumentStore;
  readonly accounts: AccountStore;
  readonly tree: TreeStore;
  readonly leaderboards: LeaderboardStore;
  readonly transfer: TransferStore;
  readonly admins: AdminStore;
  readonly leaderboardAdmin: LeaderboardAdminStore;
  readonly serverKeys: ServerKeyStore;
  readonly rules: RulesStore;
  readonly indexes: IndexStore;

  private constructor(readonly pool: pg.Pool) {
    // While PostgreSQL is unreachable every store answers 503 `Database unavailable`, and the
    // pool reconnects on the next checkout once it is back: no restart needed.
    this.documents = guardConnectionErrors(new PostgresDocumentStore(pool));
    this.accounts = guardConnectionErrors(new PostgresAccountStore(pool));
    this.tree = guardConnectionErrors(new PostgresTreeStore(pool));
    this.leaderboards = guardConnectionErrors(new PostgresLeaderboardStore(pool));
    this.transfer = guardConnectionErrors(new PostgresTransferStore(pool));
    this.admins = guardConnectionErrors(new PostgresAdminStore(pool));
    this.leaderboardAdmin = guardConnectionErrors(new PostgresLeaderboardAdminStore(pool));
    this.serverKeys = guardConnectionErrors(new PostgresServerKeyStore(pool));
    this.rules = guardConnectionErrors(new PostgresRulesStore(pool));
    this.indexes = guardConnectionErrors(new PostgresIndexStore(pool));
  }

  /** Connects, creates the schema when asked for one, and migrates, both under an advisory lock. */
  static async open(options: PostgresOptions): Promise<PostgresStorage> {
    const schema = options.schema;
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? 10,
      // An unreachable host fails a checkout after this instead of holding the request forever.
      connectionTimeoutMillis: 5_000,
      ...(schema ? { options: `-c search_path=${quoteIdent(schema)}` } : {}),
    });
    pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it on the next checkout.
    });
    pool.on('connect', (client) => {
      // A checked-out client whose server goes away emits 'error' besides failing its query;
      // unheard, that event would end the process. The pool discards the client on release.
      client.on('error', () => undefined);
    });
    try {
      await migrate(pool, schema);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresStorage(pool);
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** Quotes an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

async function migrate(pool: pg.Pool, schema: string | undefined): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    // Under the lock too: instances starting at once would race on CREATE SCHEMA IF NOT EXISTS.
    if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.version));
    for (const step of postgresMigrations) {
      if (applied.has(step.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(step.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [step.version, step.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    client.release();
  }
}
