/** §12 leaderboards through the SDK against a real server process. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createClient } from '../../packages/client/src/index.js';
import { type Service, startService } from './service.js';

let service: Service;
const clients: Client[] = [];

beforeAll(async () => {
  service = await startService();
  const token = await service.adminToken();
  for (const board of [
    { slug: 'arena', name: 'Arena' },
    { slug: 'server-only', name: 'Server only', client_submit: false },
  ]) {
    const created = await fetch(`${service.url}/admin/projects/${service.projectId}/leaderboards`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(board),
    });
    if (created.status !== 201) throw new Error(`board: ${created.status} ${await created.text()}`);
  }
});
afterAll(async () => {
  for (const client of clients) client.close();
  await service?.stop();
});

async function player(name: string): Promise<Client> {
  const client = createClient({ url: service.url, clientId: service.clientId, clientSecret: service.clientSecret });
  clients.push(client);
  await client.auth.signUp({ username: name, password: 'long-enough-password', nickname: name.toUpperCase() });
  return client;
}

describe('leaderboard(slug)', () => {
  it('submits stats and reads the bundle and the users list', async () => {
    const ann = await player('lb_ann');
    const bob = await player('lb_bob');
    expect(await ann.leaderboard('arena').submit(50)).toMatchObject({
      leaderboard_slug: 'arena',
      rank: 1,
      stat_value: 50,
    });
    expect(await bob.leaderboard('arena').submit(70)).toMatchObject({ rank: 1, stat_value: 70 });

    const bundle = await ann.leaderboard('arena').bundle(['meta', 'entries', 'me'], { limit: 10, expand: 'profile' });
    expect(bundle.meta).toMatchObject({ slug: 'arena', name: 'Arena', sort: 'desc' });
    expect(bundle.entries?.entries.map((e) => [e.rank, e.stat_value, e.profile?.nickname])).toEqual([
      [1, 70, 'LB_BOB'],
      [2, 50, 'LB_ANN'],
    ]);
    expect(bundle.me).toMatchObject({ rank: 2, stat_value: 50 });
    expect(bundle.leagues).toBeNull();

    const page = await bob.leaderboard('arena').users({ limit: 1, offset: 1 });
    expect(page.pagination).toEqual({ limit: 1, offset: 1, total: 2, has_more: false });
    expect(page.users.map((u) => u.stat_value)).toEqual([50]);
    expect((await bob.leaderboard('arena').bundle('leagues')).leagues?.map((l) => l.slug)).toEqual(['global']);
  });

  it('reads around the caller, a chosen set of users and the caller’s history (§18)', async () => {
    const token = await service.adminToken();
    const admin = (path: string, body: unknown) =>
      fetch(`${service.url}/admin/projects/${service.projectId}/leaderboards${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect(
      (
        await admin('', {
          slug: 'weekly',
          name: 'Weekly',
          reset: 'weekly',
          rewards: [{ league: 'global', rank_from: 1, rank_to: 1, reward: { gems: 5 } }],
        })
      ).status,
    ).toBe(201);
    const names = ['lb_w1', 'lb_w2', 'lb_w3', 'lb_w4'];
    const players = await Promise.all(names.map(player));
    const ids: number[] = [];
    for (const [i, client] of players.entries()) {
      const me = await client.leaderboard('weekly').submit(10 * (i + 1));
      ids.push(me.user_id);
    }
    // Ranks: w4 (40) 1, w3 2, w2 3, w1 4.
    const around = await players[0]?.leaderboard('weekly').around({ radius: 1, expand: 'profile' });
    expect(around?.me).toMatchObject({ rank: 4, stat_value: 10 });
    expect(around?.users.map((u) => [u.rank, u.profile?.nickname])).toEqual([
      [2, 'LB_W3'],
      [3, 'LB_W2'],
      [4, 'LB_W1'],
    ]);
    const friends = await players[1]?.leaderboard('weekly').users({ userIds: [ids[0], ids[3], 999_999] as number[] });
    expect(friends?.users.map((u) => [u.rank, u.user_id])).toEqual([
      [1, ids[3]],
      [4, ids[0]],
    ]);
    expect(friends?.pagination.total).toBe(2);
    await expect(players[1]?.leaderboard('weekly').around({ radius: 51 })).rejects.toMatchObject({ status: 422 });

    // The admin's reset has archived the period when it answers (§6).
    expect((await admin('/weekly/reset', {})).status).toBe(200);
    expect(await players[3]?.leaderboard('weekly').myHistory()).toEqual({
      periods: [{ period: expect.any(Object), rank: 1, stat_value: 40, league: 'global', reward: { gems: 5 } }],
      best: { rank: 1, period: expect.objectContaining({ start: expect.any(String), end: expect.any(String) }) },
    });
    expect((await players[0]?.leaderboard('weekly').myHistory({ limit: 1 }))?.best?.rank).toBe(4);
  });

  it('lists the project’s boards and joins a tournament (§18)', async () => {
    const token = await service.adminToken();
    const created = await fetch(`${service.url}/admin/projects/${service.projectId}/leaderboards`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'cup', name: 'Cup', reset: 'daily', join_required: true, max_participants: 1 }),
    });
    expect(created.status).toBe(201);
    const [ann, bob] = [await player('lb_cup_ann'), await player('lb_cup_bob')];
    const before = await ann.leaderboards.list();
    expect(before.leaderboards.map((b) => b.slug)).toEqual([...before.leaderboards.map((b) => b.slug)].sort());
    expect(before.leaderboards.find((b) => b.slug === 'cup')).toMatchObject({
      name: 'Cup',
      reset: 'daily',
      join_required: true,
      joined: false,
      next_reset_at: expect.any(String),
    });
    expect(before.leaderboards.find((b) => b.slug === 'arena')).toMatchObject({ join_required: false, joined: false });
    await expect(ann.leaderboard('cup').submit(5)).rejects.toMatchObject({
      status: 403,
      message: 'Join the tournament first',
    });
    expect(await ann.leaderboard('cup').join()).toEqual({ joined: true, participants: 1 });
    expect(await ann.leaderboard('cup').join()).toEqual({ joined: true, participants: 1 });
    await expect(bob.leaderboard('cup').join()).rejects.toMatchObject({ status: 409, message: 'Tournament is full' });
    expect((await ann.leaderboard('cup').submit(5)).stat_value).toBe(5);
    expect((await ann.leaderboards.list()).leaderboards.find((b) => b.slug === 'cup')?.joined).toBe(true);
    expect((await bob.leaderboard('arena').join()).joined).toBe(true);
  });

  it('surfaces denials and unknown boards as typed errors', async () => {
    const cat = await player('lb_cat');
    await expect(cat.leaderboard('server-only').submit(1)).rejects.toMatchObject({
      status: 403,
      code: 'permission-denied',
    });
    await expect(cat.leaderboard('nope').users()).rejects.toMatchObject({ status: 404, code: 'not-found' });
    await expect(cat.leaderboard('arena').bundle([])).rejects.toMatchObject({ status: 400, code: 'invalid-argument' });
  });
});
