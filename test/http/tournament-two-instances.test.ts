/**
 * Tournaments (§18) from two app instances over one PostgreSQL schema and one Redis bus: joins
 * racing for the last places and one player's racing submissions never exceed the board's limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createProjectWithPlayer } from '../support/app.js';
import { postgresEngine } from '../support/engines.js';
import { definition } from '../support/leaderboards.js';
import { redisUnavailable } from '../support/services.js';
import { startTwoInstances, type TwoInstances } from '../support/two-instances.js';

const unavailable = postgresEngine.unavailable ?? (await redisUnavailable());

describe.skipIf(unavailable)('tournaments on two instances over one PostgreSQL and one Redis', () => {
  let instances: TwoInstances;
  let apps: [App, App];
  let projectId: number;
  let client: Record<string, string>;
  beforeAll(async () => {
    instances = await startTwoInstances();
    apps = instances.apps;
    const { project } = await createProjectWithPlayer(apps[0], 'org-tournament', 'two');
    projectId = project.projectId;
    client = { 'x-client-id': project.clientId, 'x-client-secret': project.clientSecret };
  });
  afterAll(async () => {
    await instances?.close();
  });

  /** A new guest player, signed in on the first instance (tokens are good on both). */
  async function guest(device: string): Promise<Record<string, string>> {
    const res = await apps[0].http.inject({
      method: 'POST',
      url: '/auth/guest',
      headers: client,
      payload: { device_id: device },
    });
    expect(res.statusCode, res.body).toBe(200);
    return { ...client, authorization: `Bearer ${res.json().access_token}` };
  }

  it('lets exactly 10 of 50 concurrent joins in for 10 places, half of them on each instance', async () => {
    await apps[0].services.leaderboards.create(
      projectId,
      definition('rush', { joinRequired: true, maxParticipants: 10 }),
    );
    const players = await Promise.all(Array.from({ length: 50 }, (_, i) => guest(`rush-${i}`)));
    const answers = await Promise.all(
      players.map((headers, i) =>
        apps[i % 2 === 0 ? 0 : 1].http.inject({ method: 'POST', url: '/leaderboards/rush/join', headers }),
      ),
    );
    const joined = answers.filter((a) => a.statusCode === 200);
    expect(joined).toHaveLength(10);
    expect(joined.map((a) => a.json().participants).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const refused of answers.filter((a) => a.statusCode !== 200)) {
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toEqual({ detail: 'Tournament is full' });
    }
  }, 60_000);

  it('counts one player’s concurrent submissions on both instances up to the limit, never past it', async () => {
    await apps[0].services.leaderboards.create(projectId, definition('tries', { maxSubmissions: 4 }));
    const headers = await guest('tries');
    // Values that change the entry and values that do not (a `best` board), racing on both instances.
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        apps[i % 2 === 0 ? 0 : 1].http.inject({
          method: 'POST',
          url: '/leaderboards/tries/stats',
          headers,
          payload: { value: i % 7 },
        }),
      ),
    );
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(4);
    for (const refused of answers.filter((a) => a.statusCode !== 200)) {
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({ detail: 'Submission limit reached' });
    }
    const board = await apps[1].services.storage.leaderboards.get(projectId, 'tries');
    const userId = (await apps[0].http.inject({ method: 'GET', url: '/auth/me', headers })).json().id;
    expect(
      await apps[1].services.storage.leaderboards.participation(board?.id ?? 0, board?.period.start ?? 0, userId),
    ).toEqual({ joined: false, submissions: 4 });
  }, 60_000);
});
