import Database from 'better-sqlite3';
import { type Storage, type Stores, StoresBase } from '../../core/ports.js';
import { SqliteAccountStore } from './account-store.js';
import { SqliteAdminStore } from './admin-store.js';
import { SqliteDisconnectOpStore } from './disconnect-op-store.js';
import { SqliteDocumentStore } from './document-store.js';
import { SqliteEventStore } from './event-store.js';
import { GroupCommit } from './group-commit.js';
import { SqliteIndexStore } from './index-store.js';
import { SqliteLeaderboardAdminStore } from './leaderboard-admin-store.js';
import { SqliteLeaderboardStore } from './leaderboard-store.js';
import { sqliteMigrations } from './migrations.js';
import { SqliteRulesStore } from './rules-store.js';
import { SqliteScheduleStore } from './schedule-store.js';
import { SqliteServerKeyStore } from './server-key-store.js';
import { SqliteTransferStore } from './transfer-store.js';
import { SqliteTreeStore } from './tree-store.js';
import { SqliteTtlStore } from './ttl-store.js';
import { SqliteWebhookDeliveryStore } from './webhook-delivery-store.js';
import { SqliteWebhookStore } from './webhook-store.js';

/** The stores of the SQLite engine over one connection; document writes go through `commits`. */
function sqliteStores(db: Database.Database, commits: GroupCommit): Stores {
  const events = new SqliteEventStore(db);
  const tree = new SqliteTreeStore(db, events);
  return {
    events,
    documents: new SqliteDocumentStore(db, commits, events),
    accounts: new SqliteAccountStore(db, events),
    tree,
    leaderboards: new SqliteLeaderboardStore(db, events),
    transfer: new SqliteTransferStore(db, tree, events),
    admins: new SqliteAdminStore(db),
    leaderboardAdmin: new SqliteLeaderboardAdminStore(db),
    serverKeys: new SqliteServerKeyStore(db),
    rules: new SqliteRulesStore(db),
    indexes: new SqliteIndexStore(db),
    ttl: new SqliteTtlStore(db),
    webhooks: new SqliteWebhookStore(db),
    webhookDeliveries: new SqliteWebhookDeliveryStore(db),
    schedules: new SqliteScheduleStore(db),
    disconnectOps: new SqliteDisconnectOpStore(db),
  };
}

/** The most bytes a WAL file keeps once a checkpoint has emptied it. */
const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

/** The embedded engine: one SQLite file in WAL mode, opened synchronously. */
export class SqliteStorage extends StoresBase implements Storage {
  private constructor(
    readonly db: Database.Database,
    private readonly commits: GroupCommit,
  ) {
    super(sqliteStores(db, commits));
  }

  /** Opens (creating when missing) the database file, or `:memory:`, and migrates it. */
  static open(file: string): SqliteStorage {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // SQLite reuses a WAL file without shrinking it: after a large transaction, trim it to 64 MiB at the next reset.
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
    // Reads at 1,000,000 rows (npm run bench): a 64 MiB page cache instead of the default 2 MiB, and
    // pages beyond it read through a memory map instead of one read() system call each.
    db.pragma('mmap_size = 268435456');
    db.pragma('cache_size = -65536');
    // SQLite's lower() folds ASCII only; the §2 `i*` lookups fold all of Unicode, as JavaScript does.
    db.function('cds_lower', { deterministic: true }, (text: unknown) =>
      typeof text === 'string' ? text.toLowerCase() : null,
    );
    migrate(db);
    return new SqliteStorage(db, new GroupCommit(db));
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    this.commits.flush();
    this.db.close();
  }
}

/** Applies the pending migrations in one immediate transaction (one writer at a time). */
function migrate(db: Database.Database): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  const apply = db.transaction(() => {
    const rows = db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[];
    const applied = new Set(rows.map((row) => row.version));
    for (const step of sqliteMigrations) {
      if (applied.has(step.version)) continue;
      db.exec(step.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        step.version,
        step.name,
        Date.now(),
      );
    }
  });
  apply.immediate();
}
