/**
 * §1 login timing on every engine: an unknown username costs the same scrypt work as a wrong
 * password, so a login's time does not tell which usernames exist. Serial (vitest.config.ts): it
 * compares two durations. The rest of the auth routes are tested by auth.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { ProjectCredentials } from '../../src/core/auth/account-service.js';
import type { Storage } from '../../src/core/ports.js';
import { engines } from '../support/engines.js';

const PASSWORD = 'correct horse battery';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`login timing (§1) on ${engine.name}`, () => {
    let dataDir: string;
    let storage: Storage;
    let app: App;
    let project: ProjectCredentials;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'cds-auth-timing-'));
      storage = await engine.create();
      const config = loadConfig({ CDS_JWT_SECRET: 'x'.repeat(40), CDS_LOG_LEVEL: 'silent', CDS_DATA_DIR: dataDir });
      app = await buildApp(config, { storage });
      project = await app.services.accounts.createProject('acme', 'game');
      await app.services.accounts.createUser(project.project_id, { username: 'bob', password: PASSWORD });
    });
    afterAll(async () => {
      await app?.http.close();
      if (storage) await engine.destroy(storage);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('spends the same scrypt work on an unknown user as on a wrong password', async () => {
      const headers = { 'x-client-id': project.client_id, 'x-client-secret': project.client_secret };
      const time = async (username: string) => {
        const start = performance.now();
        const res = await app.http.inject({
          method: 'POST',
          url: '/auth/login',
          headers,
          payload: { username, password: 'wrong password' },
        });
        expect(res.statusCode).toBe(401);
        return performance.now() - start;
      };
      const median = (values: number[]) => values.sort((a, b) => a - b)[1] ?? 0;
      const unknown: number[] = [];
      const wrong: number[] = [];
      for (let i = 0; i < 3; i++) {
        unknown.push(await time('nobody_here'));
        wrong.push(await time('bob'));
      }
      // Both include a full scrypt run, so neither is a small fraction of the other.
      expect(median(unknown)).toBeGreaterThan(median(wrong) / 2);
      expect(median(wrong)).toBeGreaterThan(median(unknown) / 2);
    });
  });
}
