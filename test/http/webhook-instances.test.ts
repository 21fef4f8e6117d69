/**
 * Two instances of the service over one database (§16 across instances), each taking writes, and
 * one webhook: every event reaches the receiver, in commit order, from whichever instance holds
 * the webhook's lease; duplicates (allowed: at least once) are counted and reported. SQLite: two
 * connections to one file; PostgreSQL: two pools on one schema.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Storage } from '../../src/core/ports.js';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.js';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { createAdmin, orgOf } from '../support/admin.js';
import { createProjectWithPlayer, TEST_JWT_SECRET, type TestApp } from '../support/app.js';
import { engines, TEST_DATABASE_URL, uniqueSchemaName } from '../support/engines.js';
import { eventually, signatureValid, WebhookReceiver } from '../support/webhook-receiver.js';

const WRITES = 300;

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`one webhook, two instances, on ${engine.name}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'cds-webhook-instances-'));
    const schema = uniqueSchemaName();
    const apps: App[] = [];
    const receiver = new WebhookReceiver();

    const open = async (): Promise<Storage> =>
      engine.name === 'sqlite'
        ? SqliteStorage.open(join(dir, 'cds.db'))
        : PostgresStorage.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 4 });

    beforeAll(async () => {
      await receiver.start();
      const config = loadConfig({ CDS_JWT_SECRET: TEST_JWT_SECRET, CDS_LOG_LEVEL: 'silent', CDS_DATA_DIR: dir });
      // One after the other: the first migrates the database.
      apps.push(await buildApp(config, { storage: await open() }));
      apps.push(await buildApp(config, { storage: await open() }));
    });
    afterAll(async () => {
      for (const app of apps) await app.close();
      await receiver.stop();
      if (engine.name === 'postgres') {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
      rmSync(dir, { recursive: true, force: true });
    });

    it('delivers every event once at least, in commit order, whichever instance took the write', async () => {
      const [first, second] = apps as [App, App];
      const main = await createProjectWithPlayer(first, 'org-a', 'main');
      const unused = async () => Promise.reject(new Error('not used here'));
      const t: TestApp = { app: first, ...main, otherProject: unused, close: unused };
      const owner = await createAdmin(t, await orgOf(t, main.project.projectId), 'owner');
      const created = await first.http.inject({
        method: 'POST',
        url: `/admin/projects/${main.project.projectId}/webhooks`,
        headers: owner.headers,
        payload: { url: receiver.url(), events: ['document.written'] },
      });
      expect(created.statusCode, created.body).toBe(201);
      const { secret } = created.json() as { secret: string };

      for (let i = 0; i < WRITES; i += 10) {
        const writes = Array.from({ length: 10 }, (_, k) =>
          (k % 2 === 0 ? first : second).http.inject({
            method: 'PUT',
            url: `/documents/docs/pairs/p${i + k}`,
            headers: main.headers,
            payload: { data: { i: i + k } },
          }),
        );
        for (const res of await Promise.all(writes)) expect(res.statusCode).toBe(200);
      }
      await eventually(() => new Set(receiver.delivered().map((r) => r.id)).size >= WRITES, 20_000);

      const delivered = receiver.delivered();
      const ids = delivered.map((r) => r.id);
      const duplicates = ids.length - new Set(ids).size;
      console.info(`${engine.name}: ${WRITES} events, ${ids.length} deliveries, ${duplicates} duplicates`);
      const indexes = new Set(
        delivered.map((r) => (JSON.parse(r.body) as { data: { data: { i: number } } }).data.data.i),
      );
      expect(indexes.size).toBe(WRITES);
      for (const request of delivered) expect(signatureValid(secret, request)).toBe(true);
      const versions = delivered.map((r) => (JSON.parse(r.body) as { data: { version: number } }).data.version);
      // In commit order; a duplicate (a lease taken over) may repeat what came before.
      const firstSeen = versions.filter((v, i) => versions.indexOf(v) === i);
      expect(firstSeen).toEqual([...firstSeen].sort((a, b) => a - b));
    }, 40_000);
  });
}
