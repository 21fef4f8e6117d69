/**
 * Two instances over one PostgreSQL schema, each with its own caches and no shared bus: a server
 * key revoked on one is refused by the other within 5 s (§9), and a user disabled on one has its
 * access token refused by the other within 10 s (§13), though both had just been admitted there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { PostgresStorage, quoteIdent } from '../../src/storage/postgres/postgres-storage.js';
import { createProjectWithPlayer, TEST_JWT_SECRET } from '../support/app.js';
import { postgresEngine, TEST_DATABASE_URL, uniqueSchemaName } from '../support/engines.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds until `request` answers 401, polling every 100 ms for at most `limitMs`. */
async function msUntilRefused(request: () => Promise<number>, limitMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < limitMs + 2_000) {
    if ((await request()) === 401) return Date.now() - started;
    await sleep(100);
  }
  return Number.POSITIVE_INFINITY;
}

describe.skipIf(postgresEngine.unavailable)('revocations across two instances over one PostgreSQL', () => {
  const schema = uniqueSchemaName();
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-revocation-'));
  const apps: App[] = [];

  beforeAll(async () => {
    const config = loadConfig({ CDS_JWT_SECRET: TEST_JWT_SECRET, CDS_LOG_LEVEL: 'silent', CDS_DATA_DIR: dataDir });
    for (let i = 0; i < 2; i++) {
      const storage = await PostgresStorage.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 4 });
      apps.push(await buildApp(config, { storage }));
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await client.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a key revoked elsewhere within 5 s and a disabled user’s token within 10 s', async () => {
    const [a, b] = apps as [App, App];
    const { project, userId, headers } = await createProjectWithPlayer(a, 'org-scale', 'game');
    const { key, id } = await a.services.serverKeys.create(project.projectId, { name: 'server', role: 'editor' });
    const byKey = async () =>
      (
        await b.http.inject({
          method: 'GET',
          url: `/admin/projects/${project.projectId}`,
          headers: { authorization: `Bearer ${key}` },
        })
      ).statusCode;
    const byToken = async () =>
      (await b.http.inject({ method: 'GET', url: '/documents/collections/things', headers })).statusCode;
    // Admitted on B first, so B holds both in its caches.
    expect(await byKey()).toBe(200);
    expect(await byToken()).toBe(200);

    await a.services.serverKeys.revoke(project.projectId, id);
    await a.services.projectAdmin.updateUser(project.projectId, userId, { disabled: true });
    const [keyMs, tokenMs] = await Promise.all([msUntilRefused(byKey, 5_000), msUntilRefused(byToken, 10_000)]);
    expect(keyMs).toBeLessThan(5_000);
    expect(tokenMs).toBeLessThan(10_000);
  }, 30_000);
});
