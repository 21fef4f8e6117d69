/**
 * On-disconnect writes survive the death of the instance holding the sockets (§17): two real
 * processes on one database (SQLite: one data directory; PostgreSQL: one schema), the lease
 * shortened to 2 s. A SIGKILL of the instance holding 100 sockets with ops: every op runs on the
 * other instance, each once (an increment: a second run would make it 2). A SIGKILL between
 * "connection ended" and "op ran" (the op's before hook holds it): it runs once on the other.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLUSTER_ENV, call, firstStart, freshDatabase, killServer, signUp, stopAll } from '../support/cluster.js';
import { engines } from '../support/engines.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';
import { open, type TestSocket } from '../support/ws-client.js';

/** A `realtime.write` hook that hangs on `between/` paths while `block` exists, after leaving a marker. */
const HOOK = `import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineFunctions } from 'client-data-service/functions';
const dir = process.env.ON_DISCONNECT_TEST_DIR;
export default defineFunctions({
  projects: '*',
  before: {
    'realtime.write': async (_ctx, write) => {
      if (!write.path.startsWith('between/') || !existsSync(join(dir, 'block'))) return undefined;
      writeFileSync(join(dir, 'started'), write.path);
      return new Promise(() => undefined);
    },
  },
});
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const INCREMENT = { '.sv': { increment: 1 } };

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`on-disconnect writes across a SIGKILL on ${engine.name}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'cds-on-disconnect-'));
    const functions = join(dir, 'functions');
    mkdirSync(functions);
    writeFileSync(join(functions, 'hold.mjs'), HOOK);
    const database = freshDatabase(engine.name, join(dir, 'data'));
    const env = {
      ...CLUSTER_ENV,
      ...database.env,
      CDS_FUNCTIONS_DIR: functions,
      ON_DISCONNECT_TEST_DIR: dir,
      CDS_INSTANCE_LEASE_MS: '2000',
      CDS_HOOK_TIMEOUT_MS: '120000',
    };
    const servers: ServerProcess[] = [];
    afterAll(async () => {
      await stopAll(servers);
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const start = async () => {
      const server = await startServerProcess(env, 60_000);
      servers.push(server);
      return server;
    };
    const wsUrl = (server: ServerProcess) => `${server.baseUrl.replace('http', 'ws')}/realtime/ws`;

    it('runs every op of the 100 sockets of a killed instance on the other one, each once', async () => {
      const doomed = await start();
      const project = firstStart([doomed]);
      const survivor = await start();
      const player = await signUp(doomed.baseUrl, project, 'crash_player');
      const sockets: TestSocket[] = [];
      for (let i = 0; i < 100; i++) sockets.push(await open(wsUrl(doomed), player.headers));
      await Promise.all(
        sockets.map(async (socket, i) => {
          const ack = await socket.request({
            action: 'on_disconnect',
            op: 'set',
            path: `crash/s${i}`,
            value: INCREMENT,
            id: i,
          });
          expect(ack.event).toBe('ack');
        }),
      );
      await killServer(doomed);
      for (const socket of sockets) socket.ws.terminate();
      const read = async () =>
        (await call('GET', `${survivor.baseUrl}/realtime/db/crash`, player.headers)).body as {
          value: Record<string, number> | null;
        };
      const deadline = Date.now() + 30_000;
      while (Object.keys((await read()).value ?? {}).length < 100 && Date.now() < deadline) await sleep(200);
      const ran = (await read()).value ?? {};
      expect(Object.keys(ran)).toHaveLength(100);
      // Another lease period and a renewal later, nothing ran twice.
      await sleep(3_000);
      const after = (await read()).value ?? {};
      expect(Object.values(after).every((count) => count === 1)).toBe(true);
      expect(Object.keys(after)).toHaveLength(100);
    }, 120_000);

    it('runs once on the other instance an op whose instance died after its connection ended', async () => {
      const doomed = await start();
      const running = (server: ServerProcess) => server.child.exitCode === null && server.child.signalCode === null;
      const survivor = servers.find((server) => running(server) && server !== doomed) ?? (await start());
      // The first instance started on the database printed the credentials.
      const project = firstStart(servers.slice(0, 1));
      const player = await signUp(doomed.baseUrl, project, 'between_player');
      const socket = await open(wsUrl(doomed), player.headers);
      await socket.request({ action: 'on_disconnect', op: 'set', path: 'between/x', value: INCREMENT, id: 1 });
      writeFileSync(join(dir, 'block'), '');
      await socket.close();
      // The connection ended and its op is on its way: its before hook holds it on the doomed instance.
      for (let i = 0; i < 200 && !existsSync(join(dir, 'started')); i++) await sleep(50);
      expect(existsSync(join(dir, 'started'))).toBe(true);
      await killServer(doomed);
      rmSync(join(dir, 'block'));
      const read = async () =>
        ((await call('GET', `${survivor.baseUrl}/realtime/db/between/x`, player.headers)).body as { value: unknown })
          .value;
      const deadline = Date.now() + 30_000;
      while ((await read()) === null && Date.now() < deadline) await sleep(200);
      await sleep(3_000);
      expect(await read()).toBe(1);
    }, 120_000);
  });
}
