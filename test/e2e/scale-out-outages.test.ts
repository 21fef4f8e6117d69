/**
 * Outages of the services a cluster depends on, with real processes and private servers (never
 * the shared ones): Redis killed and restarted under subscribers — instances reconnect by
 * themselves and every subscriber ends with every commit and the current value; PostgreSQL
 * stopped — data routes answer 503 `Database unavailable`, `/readyz` names the database, and
 * everything recovers without a restart once it is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  adminHeaders,
  type ClusterProject,
  call,
  firstStart,
  freshSchema,
  signUp,
  startInstances,
  stopAll,
} from '../support/cluster.js';
import { postgresEngine } from '../support/engines.js';
import { type OwnPostgres, type OwnRedis, startOwnPostgres, startOwnRedis, waitUntil } from '../support/own-servers.js';
import type { ServerProcess } from '../support/server-process.js';
import { binariesUnavailable, PG_BIN_DIR, uniqueRedisPrefix } from '../support/services.js';
import { open, type TestSocket } from '../support/ws-client.js';

const redisMissing = postgresEngine.unavailable ?? binariesUnavailable(['redis-server']);
const postgresMissing =
  binariesUnavailable(['initdb', 'pg_ctl'], PG_BIN_DIR) ??
  (process.getuid?.() === 0 ? binariesUnavailable(['runuser']) : null);

const wsUrl = (server: ServerProcess) => `${server.baseUrl.replace('http', 'ws')}/realtime/ws`;

/** Polls `/readyz` until its checks equal `checks`. */
function readyzShows(server: ServerProcess, checks: Record<string, string>, timeoutMs = 15_000): Promise<void> {
  return waitUntil(
    async () => {
      const { body } = await call('GET', `${server.baseUrl}/readyz`, {});
      expect((body as { checks: unknown }).checks).toEqual(checks);
    },
    timeoutMs,
    `/readyz ${JSON.stringify(checks)}`,
  );
}

describe.skipIf(redisMissing)('Redis restarted under subscribers of two instances', () => {
  const schema = freshSchema();
  let redis: OwnRedis | undefined;
  let servers: ServerProcess[] = [];
  const sockets: TestSocket[] = [];
  let project: ClusterProject;

  beforeAll(async () => {
    redis = await startOwnRedis();
    servers = await startInstances(2, { ...schema.env, REDIS_URL: redis.url, CDS_REDIS_PREFIX: uniqueRedisPrefix() });
    project = firstStart(servers);
  });
  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.close().catch(() => undefined)));
    await stopAll(servers);
    await redis?.destroy();
    await schema.drop();
  });

  it('reconnects by itself; every subscriber ends with every commit and the current value, ranks too', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const player = await signUp(a.baseUrl, project, 'outage_player');
    const admin = await adminHeaders(a.baseUrl, project);
    const board = await call('POST', `${a.baseUrl}/admin/projects/${project.projectId}/leaderboards`, admin, {
      slug: 'live',
      name: 'Live',
    });
    expect(board.status).toBe(201);
    for (const server of [a, b, a, b, a, b]) {
      const socket = await open(wsUrl(server), player.headers);
      sockets.push(socket);
      await socket.request({ action: 'subscribe', path: 'room', id: 'sub' });
    }
    // b holds the board's ranks before the outage.
    expect(await call('GET', `${b.baseUrl}/leaderboards/live/users`, player.headers)).toMatchObject({ status: 200 });
    let version = 0;
    const write = async (server: ServerProcess, key: string) => {
      version += 1;
      const response = await call('PUT', `${server.baseUrl}/realtime/db/room/${key}`, player.headers, {
        value: version,
      });
      expect(response.status).toBe(200);
    };
    for (let i = 0; i < 10; i++) await write(i % 2 ? a : b, `k${i % 3}`);

    await redis?.stop();
    await readyzShows(a, { database: 'ok', bus: 'unavailable' });
    await readyzShows(b, { database: 'ok', bus: 'unavailable' });
    // Writes go on while the bus is down: the database has them, broadcasts are lost.
    for (let i = 0; i < 10; i++) await write(i % 2 ? a : b, `k${i % 4}`);
    const stat = await call('POST', `${a.baseUrl}/leaderboards/live/stats`, player.headers, { value: 42 });
    expect(stat.status).toBe(200);

    await redis?.start();
    await readyzShows(a, { database: 'ok', bus: 'ok' });
    await readyzShows(b, { database: 'ok', bus: 'ok' });
    // Caught up on reconnection, without waiting for a later write to reveal the gap.
    const missed = version;
    const since = performance.now();
    await Promise.all(sockets.map((socket) => socket.waitFor((m) => m.version === missed, { timeoutMs: 10_000 })));
    console.log(`subscribers caught up ${(performance.now() - since).toFixed(0)} ms after Redis was reachable again`);
    for (let i = 0; i < 10; i++) await write(i % 2 ? a : b, `k${i % 5}`);

    const stored = await call('GET', `${a.baseUrl}/realtime/db/room`, player.headers);
    const expected = { room: (stored.body as { value: unknown }).value };
    for (const socket of sockets) {
      await socket.waitFor((m) => m.event === 'update' && m.version === version, { timeoutMs: 10_000 });
      expect(socket.copy).toEqual(expected);
      // Nothing lost: the commits missed during the outage were read from the change log, in order.
      const versions = socket.events('update').map((m) => m.version);
      expect(versions).toEqual(Array.from({ length: version }, (_, i) => i + 1));
    }
    const listed = await call('GET', `${b.baseUrl}/leaderboards/live/users`, player.headers);
    expect((listed.body as { users: unknown[] }).users).toEqual([
      { rank: 1, user_id: player.userId, stat_value: 42, league: 'global' },
    ]);
  });
});

describe.skipIf(postgresMissing)('PostgreSQL stopped under a running instance', () => {
  let database: OwnPostgres | undefined;
  let servers: ServerProcess[] = [];
  let socket: TestSocket | undefined;

  beforeAll(async () => {
    database = await startOwnPostgres();
    servers = await startInstances(1, { DATABASE_URL: database.url });
  });
  afterAll(async () => {
    await socket?.close().catch(() => undefined);
    await stopAll(servers);
    await database?.destroy();
  });

  it('answers 503 "Database unavailable" on data routes, keeps sockets open, reports it in /readyz, recovers without a restart', async () => {
    const [server] = servers as [ServerProcess];
    const project = firstStart(servers);
    const player = await signUp(server.baseUrl, project, 'pg_outage');
    const doc = `${server.baseUrl}/documents/docs/notes/n1`;
    expect((await call('PUT', doc, player.headers, { data: { v: 1 } })).status).toBe(200);
    socket = await open(wsUrl(server), player.headers);
    await socket.request({ action: 'subscribe', path: 'live', id: 1 });

    await database?.stop();
    const stoppedAt = Date.now();
    const unavailable = { status: 503, body: { detail: 'Database unavailable' } };
    expect(await call('GET', doc, player.headers)).toEqual(unavailable);
    expect(await call('PUT', doc, player.headers, { data: { v: 2 } })).toEqual(unavailable);
    expect(await call('PUT', `${server.baseUrl}/realtime/db/live/x`, player.headers, { value: 1 })).toEqual(
      unavailable,
    );
    expect(await call('GET', `${server.baseUrl}/leaderboards/none/users`, player.headers)).toEqual(unavailable);
    expect(
      await call('POST', `${server.baseUrl}/auth/login`, player.headers, {
        username: 'pg_outage',
        password: 'long-enough-password',
      }),
    ).toEqual(unavailable);
    expect(await socket.request({ action: 'set', path: 'live/x', value: 1, id: 2 })).toMatchObject({
      event: 'error',
      message: 'Database unavailable',
    });
    expect(await call('GET', `${server.baseUrl}/readyz`, {})).toEqual({
      status: 503,
      body: { status: 'unavailable', checks: { database: 'unavailable', bus: 'ok' } },
    });
    expect((await call('GET', `${server.baseUrl}/healthz`, {})).status).toBe(200);
    // Past the permission re-check of open sockets (5 s) and its cache (5 s): an outage is no
    // reason to disconnect anyone.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, stoppedAt + 11_000 - Date.now())));
    expect(socket.ws.readyState).toBe(WebSocket.OPEN);

    await database?.start();
    await readyzShows(server, { database: 'ok', bus: 'ok' });
    expect(await call('GET', doc, player.headers)).toMatchObject({ status: 200, body: { data: { v: 1 } } });
    expect((await call('PUT', doc, player.headers, { data: { v: 3 } })).status).toBe(200);
    expect(await socket.request({ action: 'set', path: 'live/x', value: 2, id: 3 })).toMatchObject({ event: 'ack' });
    expect(await socket.waitFor((m) => m.event === 'update' && m.value === 2)).toMatchObject({ path: 'live/x' });
    expect(server.child.exitCode).toBeNull();
  });
});
