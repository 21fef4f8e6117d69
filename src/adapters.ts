/**
 * The concrete engine and bus the configuration names: PostgreSQL or SQLite, Redis, the cluster's
 * IPC relay or the in-process bus. Part of the composition root; the cluster primary opens the
 * database through here without loading the HTTP app.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { InProcessBus } from './bus/in-process-bus.js';
import { IpcBus } from './bus/ipc-bus.js';
import type { FromRelay, IpcEndpoint, ToRelay } from './bus/ipc-messages.js';
import { RedisBus } from './bus/redis-bus.js';
import type { Config } from './config.js';
import type { Bus } from './core/bus.js';
import type { Storage } from './core/ports.js';
import type { BackgroundLog } from './services.js';
import { PostgresStorage } from './storage/postgres/postgres-storage.js';
import { SqliteStorage } from './storage/sqlite/sqlite-storage.js';

/** Opens the engine the configuration names: PostgreSQL when DATABASE_URL is set, else SQLite. */
export async function openStorage(config: Config): Promise<Storage> {
  if (config.databaseUrl) {
    return PostgresStorage.open({
      connectionString: config.databaseUrl,
      poolSize: config.databasePoolSize,
      ...(config.databaseSchema ? { schema: config.databaseSchema } : {}),
    });
  }
  mkdirSync(config.dataDir, { recursive: true });
  return SqliteStorage.open(join(config.dataDir, 'cds.sqlite'));
}

/** A worker's IPC channel to its cluster primary, which relays the bus between workers. */
export type PrimaryChannel = IpcEndpoint<ToRelay, FromRelay>;

/**
 * Opens the bus the configuration names: Redis pub/sub when REDIS_URL is set (several instances
 * serve together), else the primary's IPC relay for a cluster worker (`ipc`), else the
 * in-process bus (one process).
 */
export async function openBus(
  config: Config,
  log: BackgroundLog = () => undefined,
  ipc?: PrimaryChannel,
): Promise<Bus> {
  if (!config.redisUrl) return ipc ? new IpcBus(ipc) : new InProcessBus();
  return RedisBus.open({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    onError: (error) => log(error, 'Redis unreachable: broadcasts pause until it is back'),
    onRecovered: () => log(null, 'Redis reachable again: subscribers catch up from the database'),
  });
}
