/**
 * §4/§12: when the change log no longer covers a reconnecting client's `since` (a log of 5 writes
 * here), the server answers `init`; the SDK then calls back once, with the stored value, and only
 * when it differs from its copy.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type Client, createClient } from '../../packages/client/src/index.js';
import { type Service, startService } from './service.js';

let service: Service;
const clients: Client[] = [];
/** While true, the reader's sockets go to a closed port: it is offline and keeps retrying. */
let offline = false;

class GatedWebSocket extends WebSocket {
  constructor(url: string) {
    super(offline ? 'ws://127.0.0.1:1/' : url);
  }
}

beforeAll(async () => {
  service = await startService({ CDS_REALTIME_LOG_MAX_WRITES: '5' });
});
afterAll(async () => {
  for (const client of clients) client.close();
  await service?.stop();
});

async function signedIn(device: string): Promise<Client> {
  const client = createClient({
    url: service.url,
    clientId: service.clientId,
    clientSecret: service.clientSecret,
    WebSocket: GatedWebSocket,
  });
  clients.push(client);
  await client.auth.guest(device);
  return client;
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('reconnecting beyond the change log', () => {
  it('gets one call with the stored value after an init fallback, none when nothing changed', async () => {
    const writer = await signedIn('fallback-writer');
    const reader = await signedIn('fallback-reader');
    const calls: { value: unknown; version: number }[] = [];
    reader.ref('scores').onValue((value, { version }) => calls.push({ value, version }));
    await until(() => calls.length === 1);
    await writer.ref('scores/ann').set(1);
    await until(() => calls.length === 2);

    // Offline while 20 writes happen: the log (5 writes) no longer covers the reader's version.
    offline = true;
    reader.socket.reconnect();
    for (let k = 1; k <= 20; k++) await writer.ref('scores/bob').set(k);
    offline = false;
    await until(() => calls.length === 3);
    expect(calls[2]?.value).toEqual({ ann: 1, bob: 20 });
    expect(calls[2]?.version).toBeGreaterThan(calls[1]?.version ?? 0);

    // Offline while only other paths change: nothing new for this path, so no call.
    const opened = reader.socket.connections;
    offline = true;
    reader.socket.reconnect();
    for (let k = 1; k <= 10; k++) await writer.ref('elsewhere').set(k);
    offline = false;
    await until(() => reader.socket.connections > opened);
    await writer.ref('scores/cat').set(3);
    await until(() => calls.length === 4);
    expect(calls.map((c) => c.value)).toEqual([null, { ann: 1 }, { ann: 1, bob: 20 }, { ann: 1, bob: 20, cat: 3 }]);
    expect(await reader.ref('scores').get()).toEqual(calls[3]?.value);
  });
});
