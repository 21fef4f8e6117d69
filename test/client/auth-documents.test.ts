/** §12 auth and documents through the SDK against a real server process. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CdsError,
  type Client,
  createClient,
  memoryStorage,
  type SessionStorage,
} from '../../packages/client/src/index.js';
import { type Service, startService } from './service.js';

let service: Service;
const clients: Client[] = [];

beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  for (const client of clients) client.close();
  await service?.stop();
});

/** A client whose requests are counted by path and status. */
function counted(storage: SessionStorage = memoryStorage()) {
  const calls: string[] = [];
  const client = createClient({
    url: service.url,
    clientId: service.clientId,
    clientSecret: service.clientSecret,
    storage,
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      calls.push(`${init.method} ${new URL(url).pathname} ${response.status}`);
      return response;
    },
  });
  clients.push(client);
  return { client, calls };
}

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );

describe('auth', () => {
  it('signs up, reads and updates the profile, and a client on the same storage is signed in', async () => {
    const storage = memoryStorage();
    const { client } = counted(storage);
    const user = await client.auth.signUp({ username: 'ann', password: 'long-enough-password' });
    expect(user).toMatchObject({ username: 'ann', nickname: 'ann', avatar_url: null });
    expect(await client.auth.me()).toMatchObject({ id: user.id, roles: ['player'] });
    expect(await client.auth.updateProfile({ nickname: 'Annie' })).toMatchObject({ nickname: 'Annie' });

    const again = counted(storage).client;
    expect(await again.auth.currentUser()).toMatchObject({ id: user.id, nickname: 'Annie' });
    expect((await again.auth.me()).id).toBe(user.id);
    await again.auth.logOut();
    expect(await counted(storage).client.auth.currentUser()).toBeNull();
    const signedOut = await caught(counted(storage).client.auth.me());
    expect(signedOut).toBeInstanceOf(CdsError);
    expect(signedOut).toMatchObject({ code: 'unauthenticated' });

    expect(await counted().client.auth.logIn({ username: 'ann', password: 'long-enough-password' })).toMatchObject({
      id: user.id,
    });
  });

  it('maps failures to CdsError codes', async () => {
    const { client } = counted();
    expect(await caught(client.auth.logIn({ username: 'ann', password: 'wrong-password' }))).toMatchObject({
      status: 401,
      code: 'unauthenticated',
      detail: 'Invalid username or password',
    });
    const short = await caught(client.auth.signUp({ username: 'bob', password: 'short' }));
    expect(short).toMatchObject({ status: 422, code: 'invalid-argument' });
    expect((short as CdsError).detail).toEqual([expect.objectContaining({ loc: ['body', 'password'] })]);
    const wrongClient = createClient({ url: service.url, clientId: 'nope', clientSecret: 'nope' });
    expect(await caught(wrongClient.auth.guest('device'))).toMatchObject({ status: 401, code: 'unauthenticated' });
    const down = createClient({ url: 'http://127.0.0.1:1', clientId: 'x', clientSecret: 'y' });
    expect(await caught(down.auth.guest('device'))).toMatchObject({ status: 0, code: 'network' });
  });

  it('keeps a guest device id in storage: the same guest next time', async () => {
    const storage = memoryStorage();
    const first = await counted(storage).client.auth.guest();
    const second = await counted(storage).client.auth.guest();
    expect(second.id).toBe(first.id);
    expect((await counted().client.auth.guest('device-7')).id).not.toBe(first.id);
  });

  it('refreshes on a 401 once for concurrent requests, and before expiry without a 401', async () => {
    const storage = memoryStorage();
    const { client } = counted(storage);
    const user = await client.auth.signUp({ username: 'cat', password: 'long-enough-password' });
    const key = `cds:${service.clientId}:session`;
    const stored = JSON.parse(String(await storage.getItem(key)));
    // A rejected access token (as after a secret rotation or a revoked session): refresh on the 401.
    await storage.setItem(key, JSON.stringify({ ...stored, access_token: 'not-a-token' }));
    const rejected = counted(storage);
    const mes = await Promise.all([1, 2, 3, 4, 5].map(() => rejected.client.auth.me()));
    expect(mes.map((m) => m.id)).toEqual([user.id, user.id, user.id, user.id, user.id]);
    expect(rejected.calls.filter((c) => c.startsWith('POST /auth/refresh'))).toEqual(['POST /auth/refresh 200']);

    // An access token about to expire: refreshed first, so no request sees a 401.
    const fresh = JSON.parse(String(await storage.getItem(key)));
    await storage.setItem(key, JSON.stringify({ ...fresh, refresh_at: Date.now() - 1 }));
    const expiring = counted(storage);
    await Promise.all([expiring.client.auth.me(), expiring.client.doc('a/b').get()]);
    expect(expiring.calls.filter((c) => c.endsWith(' 401'))).toEqual([]);
    expect(expiring.calls.filter((c) => c.startsWith('POST /auth/refresh'))).toEqual(['POST /auth/refresh 200']);

    // A used (rotated) refresh token is rejected: the session is gone, the error is unauthenticated.
    await storage.setItem(key, JSON.stringify({ ...stored, access_token: 'not-a-token' }));
    const stale = counted(storage);
    expect(await caught(stale.client.auth.me())).toMatchObject({ code: 'unauthenticated' });
    expect(await storage.getItem(key)).toBeNull();
  });
});

describe('documents', () => {
  it('gets, sets, updates and deletes a document', async () => {
    const { client } = counted();
    await client.auth.guest('docs-device');
    const doc = client.doc('players/p1');
    expect(await doc.get()).toBeNull();
    const written = await doc.set({ level: 1, name: 'p1' });
    expect(written).toMatchObject({ path: 'players/p1', data: { level: 1, name: 'p1' }, created: true });
    expect(await doc.update({ level: 2 })).toMatchObject({ data: { level: 2, name: 'p1' } });
    expect(await doc.get()).toMatchObject({ id: written.id, data: { level: 2, name: 'p1' }, collections: [] });
    await doc.delete();
    expect(await doc.get()).toBeNull();
    expect(await caught(doc.update({ level: 3 }))).toMatchObject({ status: 404, code: 'not-found' });
    expect(await caught(client.doc('players').get())).toMatchObject({ status: 400, code: 'invalid-argument' });
  });

  it('adds to a collection and lists it page by page; queries with where, orderBy and limit', async () => {
    const { client, calls } = counted();
    await client.auth.guest('docs-device-2');
    const scores = client.collection('scores', { parent: 'games/g1' });
    for (const [i, name] of ['ann', 'bob', 'cat', 'dan', 'eve'].entries()) {
      expect(await scores.add({ name, points: i * 10, stats: { level: i % 2 } })).toMatchObject({ created: true });
    }
    await client.collection('scores').add({ name: 'root', points: 99 });
    const listed = [];
    for await (const document of scores.list({ pageSize: 2 })) listed.push(document.data.name);
    expect(listed.sort()).toEqual(['ann', 'bob', 'cat', 'dan', 'eve']);
    expect(calls.filter((c) => c.startsWith('GET /documents/collections/scores'))).toHaveLength(3);

    const top = await client
      .query('scores', { parent: 'games/g1' })
      .where('points', 'gte', 10)
      .where('stats.level', 'exact', 1)
      .orderBy('points', 'desc')
      .limit(5)
      .get();
    expect(top.map((d) => d.data.name)).toEqual(['dan', 'bob']);
    const everywhere = await client.query('scores').where('name', 'in', ['ann', 'root']).orderBy('name').get();
    expect(everywhere.map((d) => d.data.name)).toEqual(['ann', 'root']);
    expect(await caught(client.query('scores').where('name', 'exact', 'a').orderBy('', 'asc').get())).toMatchObject({
      code: 'invalid-argument',
    });
  });
});
