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
