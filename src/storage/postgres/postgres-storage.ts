import pg from 'pg';
import { type Storage, StoresBase } from '../../core/ports.js';
import { PostgresAccountStore } from './account-store.js';
import { PostgresAdminStore } from './admin-store.js';
import { guardConnectionErrors } from './connection-errors.js';
import { PostgresDisconnectOpStore } from './disconnect-op-store.js';
import { PostgresDocumentStore } from './document-store.js';
import { PostgresEventStore } from './event-store.js';
import { PostgresIndexStore } from './index-store.js';
import { PostgresLeaderboardAdminStore } from './leaderboard-admin-store.js';
import { PostgresLeaderboardStore } from './leaderboard-store.js';
import { postgresMigrations } from './migrations.js';
import { PostgresRulesStore } from './rules-store.js';
import { PostgresScheduleStore } from './schedule-store.js';
import { PostgresServerKeyStore } from './server-key-store.js';
import { PostgresTransferStore } from './transfer-store.js';
import { PostgresTreeStore } from './tree-store.js';
import { PostgresTtlStore } from './ttl-store.js';
import { PostgresWebhookDeliveryStore } from './webhook-delivery-store.js';
import { PostgresWebhookStore } from './webhook-store.js';

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
export class PostgresStorage extends StoresBase implements Storage {
  private constructor(readonly pool: pg.Pool) {
    // While PostgreSQL is unreachable every store answers 503 `Database unavailable`, and the
    // pool reconnects on the next checkout once it is back: no restart needed.
    super({
      documents: guardConnectionErrors(new PostgresDocumentStore(pool)),
      accounts: guardConnectionErrors(new PostgresAccountStore(pool)),
      tree: guardConnectionErrors(new PostgresTreeStore(pool)),
      leaderboards: guardConnectionErrors(new PostgresLeaderboardStore(pool)),
      transfer: guardConnectionErrors(new PostgresTransferStore(pool)),
      admins: guardConnectionErrors(new PostgresAdminStore(pool)),
      leaderboardAdmin: guardConnectionErrors(new PostgresLeaderboardAdminStore(pool)),
      serverKeys: guardConnectionErrors(new PostgresServerKeyStore(pool)),
      rules: guardConnectionErrors(new PostgresRulesStore(pool)),
      indexes: guardConnectionErrors(new PostgresIndexStore(pool)),
      ttl: guardConnectionErrors(new PostgresTtlStore(pool)),
      webhooks: guardConnectionErrors(new PostgresWebhookStore(pool)),
      webhookDeliveries: guardConnectionErrors(new PostgresWebhookDeliveryStore(pool)),
      events: guardConnectionErrors(new PostgresEventStore(pool)),
      schedules: guardConnectionErrors(new PostgresScheduleStore(pool)),
      disconnectOps: guardConnectionErrors(new PostgresDisconnectOpStore(pool)),
    });
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
