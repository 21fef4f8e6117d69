/**
 * §4: the `update`s of one PATCH (one per key) leave the server in one socket write, so a client
 * reads them together (the SDK calls `onValue` once per version). Against a real server process,
 * so the client reads on its own, as a remote client does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Client, createClient, memoryStorage } from '../../packages/client/src/index.js';
import { type Service, startService } from '../client/service.js';

let service: Service;
let client: Client;

beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  client?.close();
  await service?.stop();
});

describe('the updates of one PATCH', () => {
  it('arrive in one read of the socket', async () => {
    const storage = memoryStorage();
    client = createClient({
      url: service.url,
      clientId: service.clientId,
      clientSecret: service.clientSecret,
      storage,
    });
    await client.auth.guest('patch-frames');
    const token = JSON.parse(String(await storage.getItem(`cds:${service.clientId}:session`))).access_token;
    const query = new URLSearchParams({
      client_id: service.clientId,
      client_secret: service.clientSecret,
      access_token: token,
    });
    const ws = new WebSocket(`${service.url.replace(/^http/, 'ws')}/realtime/ws?${query}`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    // Counts reads of the underlying socket; `ws` parses a read's frames before the next read.
    let reads = 0;
    const raw = (ws as unknown as { _socket: { prependListener(event: 'data', fn: () => void): void } })._socket;
    raw.prependListener('data', () => {
      reads += 1;
    });
    const updates: { version: number; read: number }[] = [];
    let initialized = false;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { event: string; version: number };
      if (message.event === 'init') initialized = true;
      if (message.event === 'update') updates.push({ version: message.version, read: reads });
    });
    ws.send(JSON.stringify({ action: 'subscribe', path: 'frames' }));
    const until = async (check: () => boolean) => {
      const deadline = Date.now() + 15_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error('timed out');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await until(() => initialized);

    const KEYS = 8;
    const PATCHES = 30;
    for (let i = 1; i <= PATCHES; i++) {
      const value = Object.fromEntries(Array.from({ length: KEYS }, (_, k) => [`k${k}`, i]));
      await client.ref('frames').update(value);
    }
    await until(() => updates.length === KEYS * PATCHES);
    ws.close();
    const readsOf = new Map<number, Set<number>>();
    for (const update of updates)
      readsOf.set(update.version, (readsOf.get(update.version) ?? new Set()).add(update.read));
    expect(readsOf.size).toBe(PATCHES);
    expect([...readsOf.values()].filter((r) => r.size > 1)).toEqual([]);
  });
});
