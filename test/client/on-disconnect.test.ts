/**
 * §17 through the SDK against a real server process: `ref().onDisconnect()` ops acknowledged and run
 * when the client's connection ends, cancelled, refused, armed again after a dropped connection
 * (a TCP proxy cuts it: the server sees its socket end, the client reconnects) with the value set
 * while connected written back, and `connected` / `onConnectionChange` through it all.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../packages/client/src/index.js';
import { type CutProxy, startCutProxy } from './cut-proxy.js';
import { caught, serviceForSuite, until } from './service.js';

const suite = serviceForSuite();

/** Every value `onValue` gave for `path` on `client`. */
function watch(client: Client, path: string) {
  const values: unknown[] = [];
  client.ref(path).onValue((value) => {
    values.push(value);
  });
  return {
    values,
    last: () => values.at(-1),
    /** Waits until the latest value is `value`, whatever its keys' order (a snapshot's are in path order). */
    reaches: (value: unknown) => until(() => values.length > 0 && isDeepStrictEqual(values.at(-1), value)),
  };
}

describe('ref().onDisconnect()', () => {
  let proxy: CutProxy;
  beforeAll(async () => {
    proxy = await startCutProxy(Number(new URL(suite.service.url).port));
  });
  afterAll(() => proxy?.close());

  it('set, update and remove resolve on the ack, and run when the connection ends', async () => {
    const player = await suite.guest('od-player');
    const watching = await suite.guest('od-watcher');
    const watcher = watch(watching, 'od/p1');
    await player.ref('od/p1').set({ status: 'online', info: { a: 1, b: 2 }, temp: 1 });
    await Promise.all([
      player.ref('od/p1/status').onDisconnect().set('offline'),
      player.ref('od/p1/info').onDisconnect().update({ b: null, 'c/d': 3 }),
      player.ref('od/p1/temp').onDisconnect().remove(),
    ]);
    await watcher.reaches({ status: 'online', info: { a: 1, b: 2 }, temp: 1 });

    player.close();
    const after = { status: 'offline', info: { a: 1, c: { d: 3 } } };
    await watcher.reaches(after);
    expect(await watching.ref('od/p1').get()).toEqual(after);
  });

  it('cancel forgets the ops at and below the path; the others still run', async () => {
    const player = await suite.guest('od-cancel');
    const watcher = watch(await suite.guest('od-cancel-watcher'), 'od/c');
    await player.ref('od/c/keep').set(0);
    await player.ref('od/c/x').onDisconnect().set(1);
    await player.ref('od/c/y/z').onDisconnect().set(2);
    await player.ref('od/c/keep').onDisconnect().remove();
    await player.ref('od/c/last').onDisconnect().set(3);
    await player.ref('od/c/keep').onDisconnect().cancel();
    await player.ref('od/c/y').onDisconnect().cancel();
    await watcher.reaches({ keep: 0 });

    player.close();
    // Ops run in the order stored: once the last one ran, a cancelled one would have run before it.
    await watcher.reaches({ keep: 0, x: 1, last: 3 });
  });

  it('an op the server refuses (past the 64 per connection) rejects, and the 64 run', async () => {
    const player = await suite.guest('od-limit');
    await Promise.all(Array.from({ length: 64 }, (_, i) => player.ref(`od/many/${i}`).onDisconnect().set(i)));
    const refused = await caught(player.ref('od/many/64').onDisconnect().set(64));
    expect(refused).toMatchObject({ name: 'CdsError', code: 'invalid-argument', status: 400 });

    const watcher = watch(await suite.guest('od-limit-watcher'), 'od/many');
    await watcher.reaches(null);
    player.close();
    await until(() => Object.keys((watcher.last() ?? {}) as object).length === 64);
    expect(watcher.last()).toEqual(Object.fromEntries(Array.from({ length: 64 }, (_, i) => [String(i), i])));
  });

  it('arms the ops again after a dropped connection and writes back the value set while connected', async () => {
    const player = suite.client({ url: proxy.url });
    await player.auth.guest('od-rearm');
    const changes: boolean[] = [];
    player.onConnectionChange((connected) => changes.push(connected));
    expect(player.connected).toBe(false);
    const watcher = watch(await suite.guest('od-rearm-watcher'), 'od/rearm');
    await watcher.reaches(null);

    await player.ref('od/rearm/status').onDisconnect().set('offline');
    expect(player.connected).toBe(true);
    await player.ref('od/rearm/status').set('online');
    await watcher.reaches({ status: 'online' });

    // The network drops: the server sees the socket end and runs the op.
    proxy.cut();
    await watcher.reaches({ status: 'offline' });
    expect(player.connected).toBe(false);
    // The client reconnects, arms the op again and writes back what it replaced.
    proxy.resume();
    await watcher.reaches({ status: 'online' });
    expect(player.connected).toBe(true);
    expect(player.socket.connections).toBe(2);

    // The op armed on the second connection runs when that one ends.
    player.close();
    await watcher.reaches({ status: 'offline' });
    expect(watcher.values.map((v) => (v as { status?: string } | null)?.status ?? null)).toEqual([
      null,
      'online',
      'offline',
      'online',
      'offline',
    ]);
    expect(changes).toEqual([true, false, true, false]);
    expect(player.connected).toBe(false);
  });
});
