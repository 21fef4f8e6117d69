/**
 * Three real server processes started at the same moment on one empty PostgreSQL schema and one
 * Redis prefix (§5, §7): all come up (migrations under the advisory lock), exactly one prints
 * the first-start credentials, a stat submitted on one shows in the ranks read on the others
 * within one second, and every scheduled reset runs exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminHeaders,
  type ClusterProject,
  call,
  firstStart,
  freshSchema,
  printed,
  signUp,
  startInstances,
  stopAll,
} from '../support/cluster.js';
import { postgresEngine } from '../support/engines.js';
import type { ServerProcess } from '../support/server-process.js';
import { redisUnavailable, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/services.js';

const unavailable = postgresEngine.unavailable ?? (await redisUnavailable());

type Player = Awaited<ReturnType<typeof signUp>>;

interface UsersPage {
  users: { rank: number; user_id: number; stat_value: number }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(unavailable)('three instances started at once on one PostgreSQL and one Redis', () => {
  const schema = freshSchema();
  let servers: ServerProcess[] = [];
  let project: ClusterProject;
  let admin: Record<string, string>;
  const players: Player[] = [];

  beforeAll(async () => {
    servers = await startInstances(3, {
      ...schema.env,
      REDIS_URL: TEST_REDIS_URL,
      CDS_REDIS_PREFIX: uniqueRedisPrefix(),
      CDS_LEADERBOARD_RESET_CHECK_MS: '100',
    });
  });
  afterAll(async () => {
    await stopAll(servers);
    await schema.drop();
  });

  const on = (i: number) => servers[i % servers.length] as ServerProcess;
  const users = async (server: ServerProcess, slug: string, headers: Record<string, string>) => {
    const response = await call('GET', `${server.baseUrl}/leaderboards/${slug}/users?limit=1000`, headers);
    expect(response.status).toBe(200);
    return (response.body as UsersPage).users;
  };

  it('all come up on the empty schema, migrated once, and exactly one prints the first-start credentials', async () => {
    expect(servers).toHaveLength(3);
    const printers = servers.filter((server) => printed(server.output(), 'client_secret') !== null);
    expect(printers).toHaveLength(1);
    expect(servers.filter((server) => server.output().includes('First start'))).toHaveLength(1);
    project = firstStart(servers);
    admin = await adminHeaders(on(1).baseUrl, project);
    const migrations = await schema.query<{ version: number }>(
      'SELECT version FROM schema_migrations ORDER BY version',
    );
    expect(migrations.map((row) => row.version)).toEqual([1, 2, 3, 4, 6]);
    for (const server of servers) {
      expect(await call('GET', `${server.baseUrl}/readyz`, {})).toEqual({
        status: 200,
        body: { status: 'ok', checks: { database: 'ok', bus: 'ok' } },
      });
    }
    for (let i = 0; i < 12; i++) players.push(await signUp(on(i).baseUrl, project, `ranked_${i}`));
  });

  it('shows a stat submitted on one instance in the ranks read on the others within one second', async () => {
    const created = await call('POST', `${on(0).baseUrl}/admin/projects/${project.projectId}/leaderboards`, admin, {
      slug: 'arena',
      name: 'Arena',
      operator: 'latest',
    });
    expect(created.status).toBe(201);
    // Every instance holds the board's ranks before the writes start (a read loads them).
    for (const server of servers) expect(await users(server, 'arena', players[0]?.headers ?? {})).toEqual([]);

    const delays: number[] = [];
    for (const [i, player] of players.entries()) {
      const value = (i * 37) % 101;
      const submitted = await call('POST', `${on(i).baseUrl}/leaderboards/arena/stats`, player.headers, { value });
      expect(submitted.status).toBe(200);
      const at = performance.now();
      for (const other of [on(i + 1), on(i + 2)]) {
        for (;;) {
          const listed = await users(other, 'arena', player.headers);
          if (listed.some((row) => row.user_id === player.userId && row.stat_value === value)) break;
          expect(performance.now() - at).toBeLessThan(1_000);
          await sleep(10);
        }
        delays.push(performance.now() - at);
      }
    }
    console.log(`rank visible on another instance after at most ${Math.max(...delays).toFixed(1)} ms`);

    // Racing writes of the same users on different instances (notices arrive in any order)
    // still leave every instance with the database's ranking.
    await Promise.all(
      players.flatMap((player, i) =>
        [0, 1, 2].map((k) =>
          call('POST', `${on(i + k).baseUrl}/leaderboards/arena/stats`, player.headers, {
            value: (i * 13 + k * 7) % 50,
          }),
        ),
      ),
    );
    const expected = await schema.query<{ user_id: number; stat_value: number }>(
      `SELECT e.user_id, e.stat_value FROM leaderboard_entries e JOIN leaderboards b ON b.id = e.leaderboard_id
       WHERE b.slug = 'arena' ORDER BY e.score, e.updated_at, e.user_id`,
    );
    const deadline = performance.now() + 1_000;
    for (const server of servers) {
      for (;;) {
        const listed = (await users(server, 'arena', players[0]?.headers ?? {})).map((row) => ({
          user_id: row.user_id,
          stat_value: row.stat_value,
        }));
        if (JSON.stringify(listed) === JSON.stringify(expected)) break;
        expect(performance.now()).toBeLessThan(deadline);
        await sleep(10);
      }
    }
    const me = await call('GET', `${on(2).baseUrl}/leaderboards/arena/bundle?include=me`, players[0]?.headers ?? {});
    const rank = expected.findIndex((row) => row.user_id === players[0]?.userId) + 1;
    expect((me.body as { me: { rank: number } }).me.rank).toBe(rank);
  });

  it('runs each scheduled reset exactly once', async () => {
    const created = await call('POST', `${on(0).baseUrl}/admin/projects/${project.projectId}/leaderboards`, admin, {
      slug: 'daily-cup',
      name: 'Daily cup',
      reset: 'daily',
    });
    expect(created.status).toBe(201);
    const boardId = (created.body as { id: number }).id;
    const rounds = 4;
    const base = Date.now() - 30 * 24 * 3600 * 1000;
    for (let round = 0; round < rounds; round++) {
      for (const [i, player] of players.slice(0, 3 + round).entries()) {
        const submitted = await call('POST', `${on(i).baseUrl}/leaderboards/daily-cup/stats`, player.headers, {
          value: 10 * round + i,
        });
        expect(submitted.status).toBe(200);
      }
      // End the current period now: every instance checks every 100 ms and races for the lease.
      const start = base + round * 10_000;
      await schema.query('UPDATE leaderboards SET period_start = $2, period_end = $3 WHERE id = $1', [
        boardId,
        start,
        start + 5_000,
      ]);
      const deadline = Date.now() + 10_000;
      for (;;) {
        const [row] = await schema.query<{ period_start: string }>(
          'SELECT period_start FROM leaderboards WHERE id = $1',
          [boardId],
        );
        if (Number(row?.period_start) !== start) break;
        expect(Date.now()).toBeLessThan(deadline);
        await sleep(20);
      }
      // Several check intervals, for any second run to show.
      await sleep(300);
    }
    const periods = await schema.query<{ period_start: string }>(
      'SELECT period_start FROM leaderboard_periods WHERE leaderboard_id = $1 ORDER BY period_start',
      [boardId],
    );
    expect(periods.map((row) => Number(row.period_start))).toEqual(
      Array.from({ length: rounds }, (_, round) => base + round * 10_000),
    );
    const archived = await schema.query<{ period_start: string; standings: string }>(
      `SELECT period_start, count(*) AS standings FROM leaderboard_history WHERE leaderboard_id = $1
       GROUP BY period_start ORDER BY period_start`,
      [boardId],
    );
    expect(archived.map((row) => Number(row.standings))).toEqual([3, 4, 5, 6]);
    const history = await call('GET', `${on(2).baseUrl}/leaderboards/daily-cup/history`, players[0]?.headers ?? {});
    expect(history.status).toBe(200);
    expect((history.body as { standings: unknown[] }).standings).toHaveLength(6);
  });
});
