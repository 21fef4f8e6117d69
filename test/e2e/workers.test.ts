/**
 * CDS_WORKERS=2: the real service as two worker processes behind one cluster primary, without
 * Redis (the bus goes through the primary's IPC relay), on SQLite and on PostgreSQL. Every
 * request and socket below opens a connection of its own, and node:cluster hands connections to
 * the workers in turn, so subscribers, writers and readers are spread over both workers.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_JWT_SECRET } from '../support/app.js';
import { adminHeaders, type ClusterProject, firstStart, freshSchema, type TestSchema } from '../support/cluster.js';
import { postgresEngine } from '../support/engines.js';
import { callFresh } from '../support/fresh-connection.js';
import { type ServerProcess, startWorkersProcess } from '../support/server-process.js';
import { open, type TestSocket } from '../support/ws-client.js';

const SUBSCRIBERS = 8;
const SOCKET_WRITERS = 4;
const WRITES_PER_SOCKET = 40;
const REST_WRITES = 80;
const SOCKET_WRITES_TOTAL = SOCKET_WRITERS * WRITES_PER_SOCKET;
const PLAYERS = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Player {
  userId: number;
  headers: Record<string, string>;
}

const engines = [
  { name: 'SQLite', unavailable: null, schema: () => null },
  { name: 'PostgreSQL', unavailable: postgresEngine.unavailable, schema: () => freshSchema() },
] as const;

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`CDS_WORKERS=2 on ${engine.name}, no Redis`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cds-workers-'));
    const schema: TestSchema | null = engine.schema();
    const env = {
      CDS_DATA_DIR: dataDir,
      CDS_JWT_SECRET: TEST_JWT_SECRET,
      CDS_DATABASE_POOL_SIZE: '4',
      ...(schema?.env ?? {}),
    };
    let server: ServerProcess | undefined;
    let project: ClusterProject;
    const url = (path: string) => `${server?.baseUrl ?? ''}${path}`;
    const client = () => ({ 'x-client-id': project.clientId, 'x-client-secret': project.clientSecret });

    const signUp = async (username: string): Promise<Player> => {
      const response = await callFresh('POST', url('/auth/signup'), client(), {
        username,
        password: 'long-enough-password',
      });
      expect(response.status).toBe(201);
      const body = response.body as { access_token: string; user: { id: number } };
      return { userId: body.user.id, headers: { ...client(), authorization: `Bearer ${body.access_token}` } };
    };
    /** The stored tree leaves under `prefix`, read from the database itself (the service is stopped). */
    const storedPaths = async (prefix: string): Promise<string[]> => {
      const sql = 'SELECT path FROM tree_leaves WHERE substr(path, 1, $1) = $2';
      const params = [prefix.length, prefix];
      if (schema) return (await schema.query<{ path: string }>(sql, params)).map((row) => row.path);
      const db = new Database(join(dataDir, 'cds.sqlite'), { readonly: true });
      try {
        return (db.prepare(sql.replace(/\$\d/g, '?')).all(...params) as { path: string }[]).map((row) => row.path);
      } finally {
        db.close();
      }
    };
    const socket = (player: Player) =>
      open(`${server?.baseUrl.replace('http', 'ws') ?? ''}/realtime/ws`, player.headers);

    beforeAll(async () => {
      server = await startWorkersProcess(2, env);
      project = firstStart([server]);
    });
    afterAll(async () => {
      if (server && server.child.exitCode === null) await server.stop();
      await schema?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('delivers every commit to every subscriber in version order, whichever worker wrote it', async () => {
      const player = await signUp('rt_player');
      const subscribers: TestSocket[] = [];
      let from = 0;
      for (let i = 0; i < SUBSCRIBERS; i++) {
        const subscriber = await socket(player);
        const init = await subscriber.request({ action: 'subscribe', path: 'room', id: `s${i}` });
        expect(init.event).toBe('init');
        from = Math.max(from, init.version ?? 0);
        subscribers.push(subscriber);
      }
      const writers = await Promise.all(Array.from({ length: SOCKET_WRITERS }, () => socket(player)));
      const socketWrites = writers.map(async (writer, w) => {
        const acks = Array.from({ length: WRITES_PER_SOCKET }, (_, n) =>
          writer.request({ action: 'set', path: `room/ws${w}_${n}`, value: { w, n }, id: `w${w}_${n}` }),
        );
        for (const ack of await Promise.all(acks)) expect(ack.event).toBe('ack');
      });
      let next = 0;
      const restWrites = Array.from({ length: 8 }, async () => {
        for (let n = next++; n < REST_WRITES; n = next++) {
          const put = await callFresh('PUT', url(`/realtime/db/room/rest_${n}`), player.headers, { value: { n } });
          expect(put.status).toBe(200);
        }
      });
      await Promise.all([...socketWrites, ...restWrites]);

      const total = SOCKET_WRITES_TOTAL + REST_WRITES;
      const stored = await callFresh('GET', url('/realtime/db/room'), player.headers);
      const sequences: string[] = [];
      for (const subscriber of subscribers) {
        await subscriber.waitForCount((m) => m.event === 'update', total);
        const updates = subscriber.events('update');
        const versions = updates.map((m) => m.version ?? 0);
        // Every write is one commit's update here (distinct paths): consecutive versions, none missing.
        expect(versions).toEqual(Array.from({ length: total }, (_, i) => from + 1 + i));
        expect(new Set(updates.map((m) => m.path)).size).toBe(total);
        expect(subscriber.copy).toEqual({ room: (stored.body as { value: unknown }).value });
        sequences.push(JSON.stringify(updates.map((m) => [m.version, m.path])));
      }
      expect(new Set(sequences).size).toBe(1);
      for (const ws of [...subscribers, ...writers]) await ws.close();
    });

    it('keeps ranks consistent on both workers under racing submissions of the same users', async () => {
      const admin = await adminHeaders(server?.baseUrl ?? '', project);
      const created = await callFresh('POST', url(`/admin/projects/${project.projectId}/leaderboards`), admin, {
        slug: 'arena',
        name: 'Arena',
        operator: 'increment',
      });
      expect(created.status).toBe(201);
      const players: Player[] = [];
      for (let i = 0; i < PLAYERS; i++) players.push(await signUp(`ranked_${i}`));
      // Three increments per player at once, on both workers: each must count exactly once.
      const steps = [1, 2, 4];
      const submitted = await Promise.all(
        players.flatMap((player, i) =>
          steps.map((step) =>
            callFresh('POST', url('/leaderboards/arena/stats'), player.headers, { value: step * (i + 1) }),
          ),
        ),
      );
      for (const response of submitted) expect(response.status).toBe(200);
      const expected = players
        .map((player, i) => ({ user_id: player.userId, stat_value: 7 * (i + 1) }))
        .sort((a, b) => b.stat_value - a.stat_value);

      const viewer = players[0] as Player;
      const deadline = Date.now() + 2_000;
      // Two reads in a row land on the two workers: both must list the database's ranking.
      for (let read = 0; read < 4; ) {
        const page = await callFresh('GET', url('/leaderboards/arena/users?limit=100'), viewer.headers);
        const listed = (page.body as { users: { user_id: number; stat_value: number }[] }).users.map((row) => ({
          user_id: row.user_id,
          stat_value: row.stat_value,
        }));
        if (JSON.stringify(listed) === JSON.stringify(expected)) {
          read += 1;
          continue;
        }
        expect(Date.now()).toBeLessThan(deadline);
        await sleep(20);
      }
      for (const [i, player] of players.entries()) {
        const rank = expected.findIndex((row) => row.user_id === player.userId) + 1;
        expect(rank).toBe(PLAYERS - i);
        for (let k = 0; k < 2; k++) {
          const me = await callFresh('GET', url('/leaderboards/arena/bundle?include=me'), player.headers);
          expect((me.body as { me: { rank: number } }).me.rank).toBe(rank);
        }
      }
    });

    it('restarts a worker that dies, and serves meanwhile', async () => {
      const running = server as ServerProcess;
      const workerPids = execFileSync('pgrep', ['-P', String(running.child.pid)], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .map(Number);
      expect(workerPids).toHaveLength(2);
      const listened = () => running.output().match(/Server listening at/g)?.length ?? 0;
      const before = listened();
      process.kill(workerPids[0] as number, 'SIGKILL');
      const deadline = Date.now() + 80_000;
      const until = async (done: () => boolean) => {
        while (!done()) {
          expect(Date.now()).toBeLessThan(deadline);
          await sleep(50);
        }
      };
      // A connection node:cluster handed to the worker as it died is lost with it; later ones are not.
      await until(() => running.output().includes('worker died; restarting it'));
      for (let i = 0; i < 4; i++) expect((await callFresh('GET', url('/healthz'), {})).status).toBe(200);
      await until(() => listened() > before);
      for (let i = 0; i < 4; i++) expect((await callFresh('GET', url('/readyz'), {})).status).toBe(200);
    }, 90_000);

    it('drains both workers on SIGTERM: writes in flight are answered, later ones refused, exit code 0', async () => {
      const player = await signUp('drain_player');
      const acknowledged: string[] = [];
      const answeredAfterSignal: number[] = [];
      let signalled = false;
      let next = 0;
      const writer = async () => {
        for (;;) {
          const key = `d${next++}`;
          let status: number;
          try {
            status = (await callFresh('PUT', url(`/realtime/db/drain/${key}`), player.headers, { value: next })).status;
          } catch {
            return; // refused or reset: no longer accepted, the service is going away
          }
          // A request arriving once the worker is closing is refused with 503 (not applied).
          if (status === 503 && signalled) return;
          expect(status).toBe(200);
          acknowledged.push(key);
          if (signalled) answeredAfterSignal.push(status);
        }
      };
      const writers = Array.from({ length: 8 }, writer);
      await sleep(300);
      const running = server as ServerProcess;
      const exited = running.stop();
      signalled = true;
      expect(await exited).toBe(0);
      await Promise.all(writers);
      expect(acknowledged.length).toBeGreaterThan(0);
      expect(answeredAfterSignal.length).toBeGreaterThan(0);
      expect(running.output()).not.toMatch(/shutdown failed|did not shut down cleanly/);

      // Every acknowledged write is in the database (a write whose connection broke may be too).
      const keys = new Set((await storedPaths('drain/')).map((path) => path.slice('drain/'.length)));
      expect(acknowledged.filter((key) => !keys.has(key))).toEqual([]);
    });
  });
}
