/**
 * Two app instances over one PostgreSQL schema and one Redis bus (a prefix of their own): a PUT
 * answered by A is in force on B within one second, B's listeners are told, and B's GET shows it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.js';
import { createAdmin } from '../support/admin.js';
import { createProjectWithPlayer, TEST_JWT_SECRET } from '../support/app.js';
import { freshSchema } from '../support/cluster.js';
import { postgresEngine, TEST_DATABASE_URL } from '../support/engines.js';
import { redisUnavailable, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/services.js';

const unavailable = postgresEngine.unavailable ?? (await redisUnavailable());

describe.skipIf(unavailable)('rules on two instances over one PostgreSQL and one Redis', () => {
  const schema = freshSchema();
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-rules-two-'));
  const apps: App[] = [];
  const config = loadConfig({
    CDS_JWT_SECRET: TEST_JWT_SECRET,
    CDS_LOG_LEVEL: 'silent',
    CDS_DATA_DIR: dataDir,
    REDIS_URL: TEST_REDIS_URL,
    CDS_REDIS_PREFIX: uniqueRedisPrefix(),
  });
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const storage = await PostgresStorage.open({
        connectionString: TEST_DATABASE_URL,
        schema: schema.name,
        poolSize: 4,
      });
      apps.push(await buildApp(config, { storage }));
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await schema.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('puts a PUT answered by one instance in force on the other within one second', async () => {
    const [a, b] = apps as [App, App];
    const { project } = await createProjectWithPlayer(a, 'org-rules', 'two');
    const projectId = project.projectId;
    const orgId = (await a.services.storage.accounts.getProject(projectId))?.orgId as number;
    const owner = await createAdmin({ app: a }, orgId, 'owner');
    expect((await b.services.rules.compiled(projectId)).open).toBe(true);
    const changes: number[] = [];
    b.services.rules.onChange((changed) => changes.push(changed));

    const rules = { documents: [{ match: 'users/{uid}', allow: { read: 'request.auth.uid == uid' } }], realtime: [] };
    const put = await a.http.inject({
      method: 'PUT',
      url: `/admin/projects/${projectId}/rules`,
      headers: owner.headers,
      payload: { rules },
    });
    expect(put.statusCode).toBe(200);
    const startedAt = Date.now();
    expect((await a.services.rules.compiled(projectId)).rules).toEqual(rules);
    while ((await b.services.rules.compiled(projectId)).open) {
      expect(Date.now() - startedAt).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await b.services.rules.compiled(projectId)).rules).toEqual(rules);
    expect(changes).toEqual([projectId]);
    const seen = await b.http.inject({
      method: 'GET',
      url: `/admin/projects/${projectId}/rules`,
      headers: owner.headers,
    });
    expect(seen.json()).toEqual(put.json());
  });
});
