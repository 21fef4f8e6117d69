/**
 * The outbox survives a crash (§16): an instance killed (SIGKILL) after a commit and before its
 * after handler finished gives the event to the handler once it runs again on the same database;
 * the restarted instance takes the dead one's handler over when its lease runs out (2 s here,
 * `CDS_EVENT_LEASE_MS`, rather than the default 20 s). Real processes, on SQLite (same data
 * directory) and on PostgreSQL (same schema).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLUSTER_ENV, call, firstStart, freshDatabase, killServer, signUp, stopAll } from '../support/cluster.js';
import { engines } from '../support/engines.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';

/** A handler that hangs while `block` exists in its folder, and else writes down each path it was given. */
const HANDLER = `import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { defineFunctions } from 'client-data-service/functions';
const dir = process.env.OUTBOX_TEST_DIR;
export default defineFunctions({
  projects: '*',
  after: {
    'document.written': async (_ctx, event) => {
      if (existsSync(join(dir, 'block'))) {
        appendFileSync(join(dir, 'started.txt'), event.data.path + '\\n');
        return new Promise(() => undefined);
      }
      appendFileSync(join(dir, 'seen.txt'), event.data.path + '\\n');
    },
  },
});
`;

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`an after handler's event across a SIGKILL on ${engine.name}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'cds-outbox-'));
    const functions = join(dir, 'functions');
    mkdirSync(functions);
    writeFileSync(join(functions, 'audit.mjs'), HANDLER);
    const database = freshDatabase(engine.name, join(dir, 'data'));
    const env = {
      ...CLUSTER_ENV,
      ...database.env,
      CDS_FUNCTIONS_DIR: functions,
      OUTBOX_TEST_DIR: dir,
      CDS_EVENT_LEASE_MS: '2000',
    };
    const servers: ServerProcess[] = [];
    afterAll(async () => {
      await stopAll(servers);
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });
    const seen = () =>
      existsSync(join(dir, 'seen.txt')) ? readFileSync(join(dir, 'seen.txt'), 'utf8').split('\n') : [];

    it('delivers the event committed before the crash once the service runs again', async () => {
      writeFileSync(join(dir, 'block'), '');
      const first = await startServerProcess(env, 60_000);
      servers.push(first);
      const project = firstStart([first]);
      const player = await signUp(first.baseUrl, project, 'crash_player');
      const put = await call('PUT', `${first.baseUrl}/documents/docs/crash/a`, player.headers, { data: { n: 1 } });
      expect(put.status).toBe(200);
      // The handler has the event and hangs; the process dies before it is done.
      const started = join(dir, 'started.txt');
      for (let i = 0; i < 200 && !existsSync(started); i++) await new Promise((r) => setTimeout(r, 50));
      expect(readFileSync(started, 'utf8')).toContain('crash/a');
      await killServer(first);
      expect(seen()).not.toContain('crash/a');
      rmSync(join(dir, 'block'));
      const second = await startServerProcess(env, 60_000);
      servers.push(second);
      // The dead instance's lease (2 s) runs out, then the new one hands the event over.
      const deadline = Date.now() + 40_000;
      while (!seen().includes('crash/a') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(seen().filter((path) => path === 'crash/a')).toHaveLength(1);
    }, 90_000);
  });
}
