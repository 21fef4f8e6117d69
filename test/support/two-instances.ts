/** Two in-process app instances over one fresh PostgreSQL schema and one Redis bus with a prefix of their own. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.js';
import { TEST_JWT_SECRET } from './app.js';
import { freshSchema } from './cluster.js';
import { TEST_DATABASE_URL } from './engines.js';
import { TEST_REDIS_URL, uniqueRedisPrefix } from './services.js';

/** The two apps and how to stop them and drop what they used. */
export interface TwoInstances {
  apps: [App, App];
  close(): Promise<void>;
}

export async function startTwoInstances(): Promise<TwoInstances> {
  const schema = freshSchema();
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-two-'));
  const config = loadConfig({
    CDS_JWT_SECRET: TEST_JWT_SECRET,
    CDS_LOG_LEVEL: 'silent',
    CDS_DATA_DIR: dataDir,
    REDIS_URL: TEST_REDIS_URL,
    CDS_REDIS_PREFIX: uniqueRedisPrefix(),
  });
  const apps: App[] = [];
  for (let i = 0; i < 2; i++) {
    const storage = await PostgresStorage.open({
      connectionString: TEST_DATABASE_URL,
      schema: schema.name,
      poolSize: 4,
    });
    apps.push(await buildApp(config, { storage }));
  }
  return {
    apps: apps as [App, App],
    async close() {
      for (const app of apps) await app.close();
      await schema.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
