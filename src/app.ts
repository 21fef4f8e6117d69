/**
 * Composition root: the only module that picks concrete adapters. It turns a Config into
 * storage, services and an HTTP app; `main.ts` and the CLI call it, and so do the tests.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.js';
import { AccountService } from './core/auth/account-service.js';
import { AuthService } from './core/auth/auth-service.js';
import { DocumentService } from './core/documents/document-service.js';
import type { Storage } from './core/ports.js';
import { authRoutes } from './http/routes/auth.js';
import { documentRoutes } from './http/routes/documents.js';
import { healthRoutes } from './http/routes/health.js';
import { createHttpApp, type HttpApp, type HttpOptions } from './http/server.js';
import { loadJwtSecret } from './jwt-secret.js';
import { PostgresStorage } from './storage/postgres/postgres-storage.js';
import { SqliteStorage } from './storage/sqlite/sqlite-storage.js';

/** The services of the domain, wired to one storage engine. */
export interface Services {
  storage: Storage;
  accounts: AccountService;
  auth: AuthService;
  documents: DocumentService;
}

/** A built service: its HTTP app and what it holds open. */
export interface App {
  http: HttpApp;
  services: Services;
  /** Stops the HTTP app and closes storage. */
  close(): Promise<void>;
}

/** Opens the engine the configuration names: PostgreSQL when DATABASE_URL is set, else SQLite. */
export async function openStorage(config: Config): Promise<Storage> {
  if (config.databaseUrl) return PostgresStorage.open({ connectionString: config.databaseUrl });
  mkdirSync(config.dataDir, { recursive: true });
  return SqliteStorage.open(join(config.dataDir, 'cds.sqlite'));
}

/** Wires the services over `storage`. */
export function createServices(config: Config, storage: Storage): Services {
  const jwtSecret = loadJwtSecret(config);
  const auth = new AuthService({
    accounts: storage.accounts,
    jwtSecret,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
  });
  return {
    storage,
    auth,
    accounts: new AccountService(storage.accounts, auth),
    documents: new DocumentService(storage.documents, config.pathLimits),
  };
}

/** Builds the whole service; pass `storage` to use an engine opened elsewhere (tests). */
export async function buildApp(
  config: Config,
  options: { storage?: Storage; logger?: HttpOptions['logger'] } = {},
): Promise<App> {
  const storage = options.storage ?? (await openStorage(config));
  const services = createServices(config, storage);
  const http = createHttpApp({ bodyLimit: config.bodyLimit, logLevel: config.logLevel, logger: options.logger });
  healthRoutes(http, { storage });
  authRoutes(http, { auth: services.auth });
  documentRoutes(http, { auth: services.auth, documents: services.documents });
  await http.ready();
  return {
    http,
    services,
    async close() {
      await http.close();
      await storage.close();
    },
  };
}
