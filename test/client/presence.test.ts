/**
 * §17 presence through the SDK against a real server process: two tabs (two clients) of one user are
 * one `onPresence` entry with two connections; one tab closing leaves the user present, both closing
 * removes them; `update(state)` reaches the others; `leave()` removes the node at once; a dropped
 * connection's node is deleted and the reconnected client is present again under a new connection id.
 */
import { describe, expect, it } from 'vitest';
import type { Client, PresenceEntry } from '../../packages/client/src/index.js';
import { startCutProxy } from './cut-proxy.js';
import { serviceForSuite, until } from './service.js';

const suite = serviceForSuite();

/** Every list `onPresence` gave for `path` on `client`. */
function watchPresence(client: Client, path: string) {
  const lists: PresenceEntry[][] = [];
  const stop = client.onPresence(path, (entries) => {
    lists.push(entries);
  });
  const last = () => lists.at(-1) ?? [];
  return {
    lists,
    last,
    stop,
    /** Waits until the latest list, as `[user_id, connections, state]`, is `expected`. */
    reaches: (expected: [number, number, Record<string, unknown>][]) =>
      until(() => {
        const seen = last().map((e) => [e.user_id, e.connections, e.state]);
        return lists.length > 0 && JSON.stringify(seen) === JSON.stringify(expected);
      }),
  };
}

/** The latest value `onValue` gave for `path` on `client`. */
function watchValue(client: Client, path: string) {
  let value: unknown;
  client.ref(path).onValue((next) => {
    value = next;
  });
  return { last: () => value };
}

describe('presence()', () => {
  it('two tabs of one user: one entry with 2 connections, 1 after a tab closes, gone when both are', async () => {
    const tab1 = await suite.guest('presence-ann');
    const tab2 = await suite.guest('presence-ann');
    const ann = (await tab1.auth.currentUser())?.id ?? 0;
    expect((await tab2.auth.currentUser())?.id).toBe(ann);
    const watching = await suite.guest('presence-watcher');
    const room = watchPresence(watching, 'presence/lobby');
    await room.reaches([]);

    await tab1.presence('presence/lobby', { tab: 1 }).joined;
    await room.reaches([[ann, 1, { tab: 1 }]]);
    const second = tab2.presence('presence/lobby', { tab: 2 });
    await second.joined;
    // The latest state is the one of the connection written last.
    await room.reaches([[ann, 2, { tab: 2 }]]);
    expect(room.last()[0]?.since).toEqual(expect.any(Number));

    // The node is <path>/<user_id>/<connection_id>, the connection id the socket's.
    const stored = (await tab1.ref(`presence/lobby/${ann}`).get()) as Record<string, { since: number }>;
    expect(Object.keys(stored).sort()).toEqual([tab1.socket.life.connectionId, tab2.socket.life.connectionId].sort());

    await second.update({ tab: 2, ready: true });
    await room.reaches([[ann, 2, { tab: 2, ready: true }]]);

    tab2.close();
    await room.reaches([[ann, 1, { tab: 1 }]]);
    tab1.close();
    await room.reaches([]);
    expect(await watching.ref('presence/lobby').get()).toBeNull();
  });

  it('lists each user once, with the users of other clients, and stops calling after unsubscribe', async () => {
    const bob = await suite.guest('presence-bob');
    const cat = await suite.guest('presence-cat');
    const bobId = (await bob.auth.currentUser())?.id ?? 0;
    const catId = (await cat.auth.currentUser())?.id ?? 0;
    const room = watchPresence(await suite.guest('presence-watcher-2'), 'presence/two');
    await Promise.all([bob.presence('presence/two', { name: 'Bob' }).joined, cat.presence('presence/two').joined]);
    const expected: [number, number, Record<string, unknown>][] = [
      [bobId, 1, { name: 'Bob' }],
      [catId, 1, {}],
    ];
    await room.reaches(expected.sort((a, b) => a[0] - b[0]));

    room.stop();
    const calls = room.lists.length;
    cat.close();
    const check = watchPresence(await suite.guest('presence-watcher-3'), 'presence/two');
    await check.reaches([[bobId, 1, { name: 'Bob' }]]);
    expect(room.lists).toHaveLength(calls);
  });

  it('after a dropped connection the node is deleted, and written again under the new connection id', async () => {
    const proxy = await startCutProxy(Number(new URL(suite.service.url).port));
    try {
      const eve = suite.client({ url: proxy.url });
      const eveId = (await eve.auth.guest('presence-eve')).id;
      const room = watchPresence(await suite.guest('presence-watcher-5'), 'presence/drop');
      await eve.presence('presence/drop', { name: 'Eve' }).joined;
      await room.reaches([[eveId, 1, { name: 'Eve' }]]);
      const first = eve.socket.life.connectionId;

      proxy.cut();
      await room.reaches([]);
      proxy.resume();
      await room.reaches([[eveId, 1, { name: 'Eve' }]]);
      const second = eve.socket.life.connectionId;
      expect(second).not.toBe(first);
      expect(Object.keys((await eve.ref(`presence/drop/${eveId}`).get()) as object)).toEqual([second]);
    } finally {
      await proxy.close();
    }
  });

  it('leave() removes the node and its on-disconnect delete; the client stays connected', async () => {
    const dan = await suite.guest('presence-dan');
    const danId = (await dan.auth.currentUser())?.id ?? 0;
    const room = watchPresence(await suite.guest('presence-watcher-4'), 'presence/leave');
    const presence = dan.presence('presence/leave', { name: 'Dan' });
    await presence.joined;
    await room.reaches([[danId, 1, { name: 'Dan' }]]);
    // Another node of the same user, written by the app, stays: leave() touches only its own.
    await dan.ref(`presence/leave/${danId}/manual`).set({ name: 'manual', since: 1 });
    await room.reaches([[danId, 2, { name: 'Dan' }]]);

    await presence.leave();
    await room.reaches([[danId, 1, { name: 'manual' }]]);
    expect(dan.connected).toBe(true);

    // Its on-disconnect delete is cancelled: the same node written again survives the close.
    const connectionId = dan.socket.life.connectionId ?? '';
    await dan.ref(`presence/leave/${danId}/${connectionId}`).set({ name: 'again', since: 2 });
    // Ops run in the order stored: once this one ran, the delete would have run before it.
    await dan.ref('presence/leave-closed').onDisconnect().set(true);
    dan.close();
    const closed = watchValue(await suite.guest('presence-after'), 'presence');
    await until(() => (closed.last() as { 'leave-closed'?: boolean } | null)?.['leave-closed'] === true);
    expect((closed.last() as { leave: unknown }).leave).toEqual({
      [danId]: { manual: { name: 'manual', since: 1 }, [connectionId]: { name: 'again', since: 2 } },
    });
  });
});
