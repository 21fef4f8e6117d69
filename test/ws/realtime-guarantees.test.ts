/**
 * The guarantees of §4, each under load through the real app: no lost or stale update around
 * `init`, no duplicates with overlapping subscriptions, slow consumers cut off with bounded
 * server memory, project isolation. On every engine.
 */
import { isDeepStrictEqual } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import { engines } from '../support/engines.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';
import type { ServerMessage } from '../support/ws-client.js';

setFlagsFromString('--expose-gc');
/** Forces a full garbage collection, so memory figures show what is live. */
const collectGarbage = runInNewContext('gc') as () => void;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds, polling; fails after `timeoutMs`. */
async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/** Updates of a socket must never go back in version, nor be older than the init they follow. */
function expectCommitOrder(messages: ServerMessage[], path: string): void {
  const init = messages.find((m) => m.event === 'init' && m.path === path);
  expect(init).toBeDefined();
  let last = init?.version ?? 0;
  for (const message of messages.slice(messages.indexOf(init as ServerMessage) + 1)) {
    if (message.event !== 'update') continue;
    expect(message.version).toBeGreaterThanOrEqual(last);
    expect(message.version).toBeGreaterThan(init?.version ?? 0);
    last = message.version ?? last;
  }
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`realtime guarantees (§4) on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    beforeAll(async () => {
      t = await startRealtimeApp(engine);
    });
    afterAll(async () => {
      await t?.close();
    });

    const stored = async (path: string): Promise<JsonValue> =>
      (await t.app.services.tree.snapshot(t.project.projectId, path)).value;

    it('a client subscribing during 1,000 fast writes ends equal to the stored tree, in commit order', async () => {
      const startVersion = await t.app.services.tree.currentVersion(t.project.projectId);
      const writer = await t.socket();
      const whole = await t.socket();
      const child = await t.socket();
      const both = await t.socket();
      const acks: ServerMessage[] = [];
      let subscribing: Promise<unknown> | null = null;
      writer.ws.on('message', (data) => {
        const message = JSON.parse(data.toString()) as ServerMessage;
        if (message.event === 'ack' || message.event === 'error') acks.push(message);
        // Subscribe in the middle of the writes, from inside the writer's stream of acks.
        if (acks.length === 100 && !subscribing) {
          subscribing = Promise.all([
            whole.request({ action: 'subscribe', path: 'race', id: 's' }),
            child.request({ action: 'subscribe', path: 'race/k3', id: 's' }),
            both
              .request({ action: 'subscribe', path: 'race/k3/v', id: 's1' })
              .then(() => both.request({ action: 'subscribe', path: 'race', id: 's2' })),
          ]);
        }
      });
      for (let i = 0; i < 1000; i++) {
        // Sets, patches and deletes on children, plus writes at the ancestors of the subscriptions.
        if (i % 97 === 0) writer.send({ action: 'set', path: 'race', value: { k3: { reset: i } }, id: i });
        else if (i % 10 === 0)
          writer.send({ action: 'patch', path: 'race', value: { [`k${i % 7}/p`]: i, k9: null }, id: i });
        else if (i % 31 === 0) writer.send({ action: 'delete', path: `race/k${i % 7}`, id: i });
        else writer.send({ action: 'set', path: `race/k${i % 7}/v`, value: { n: i, tag: `w${i}` }, id: i });
      }
      await eventually(() => subscribing !== null);
      await subscribing;
      const initVersion = whole.events('init')[0]?.version ?? 0;
      await eventually(() => acks.length === 1000);
      // The snapshot was taken in the middle of the writes, and updates followed it.
      expect(initVersion).toBeGreaterThanOrEqual(startVersion + 100);
      expect(initVersion).toBeLessThan(await t.app.services.tree.currentVersion(t.project.projectId));
      expect(acks.every((a) => a.event === 'ack')).toBe(true);

      const final = await stored('race');
      expect(final).not.toBeNull();
      await eventually(() => isDeepStrictEqual(whole.copy, { race: final }));
      const k3 = await stored('race/k3');
      await eventually(() => isDeepStrictEqual(child.copy, k3 === null ? null : { race: { k3 } }));
      await eventually(() => isDeepStrictEqual(both.copy, { race: final }));
      for (const socket of [whole, child]) expectCommitOrder(socket.messages, socket === whole ? 'race' : 'race/k3');
      expectCommitOrder(both.messages, 'race');
      await Promise.all([writer.close(), whole.close(), child.close(), both.close()]);
    });

    it('overlapping subscriptions get each message of a write once', async () => {
      const ws = await t.socket();
      for (const path of ['o', 'o/a', 'o/a/b']) await ws.request({ action: 'subscribe', path, id: path });
      const writer = await t.socket();
      await writer.request({ action: 'set', path: 'o/a/b/c', value: 1, id: 1 });
      await writer.request({ action: 'patch', path: 'o', value: { 'a/b/d': 2, x: 3 }, id: 2 });
      await writer.request({ action: 'set', path: 'o', value: { a: { b: { c: 4 } } }, id: 3 });
      await ws.request({ action: 'subscribe', path: 'o/a', id: 'again' });
      await writer.request({ action: 'set', path: 'o/a/b/c', value: 5, id: 4 });
      await ws.waitFor((m) => m.event === 'update' && m.value === 5);
      await sleep(50);
      const updates = ws.events('update').map((m) => `${m.version}:${m.path}`);
      expect(new Set(updates).size).toBe(updates.length);
      const byVersion = new Map<number, string[]>();
      for (const m of ws.events('update'))
        byVersion.set(m.version ?? 0, [...(byVersion.get(m.version ?? 0) ?? []), m.path ?? '']);
      expect([...byVersion.values()]).toEqual([['o/a/b/c'], ['o/a/b/d', 'o/x'], ['o', 'o/a', 'o/a/b'], ['o/a/b/c']]);
      expect(ws.copy).toEqual({ o: { a: { b: { c: 5 } } } });
      await Promise.all([ws.close(), writer.close()]);
    });

    it('a subscriber of another project sees nothing', async () => {
      const other = await t.otherProject();
      const spy = await t.socket(other.headers);
      await spy.request({ action: 'subscribe', path: '', id: 'root' });
      const writer = await t.socket();
      for (let i = 0; i < 20; i++) await writer.request({ action: 'set', path: `iso/${i}`, value: i, id: i });
      await t.app.services.tree.set(other.project.projectId, 'mine', 1);
      await spy.waitFor((m) => m.event === 'update');
      await sleep(50);
      expect(spy.events('update').map(({ path, value }) => ({ path, value }))).toEqual([{ path: 'mine', value: 1 }]);
      expect(spy.events('init')[0]?.value).toBeNull();
      await Promise.all([spy.close(), writer.close()]);
    });

    it('disconnects a client that never reads (1008) while server memory stays bounded', {
      timeout: 90_000,
    }, async () => {
      // Its own app keeps a short change log (on SQLite in memory, the log would hold what is
      // written) and a 2 MiB send buffer, so the flood is over well within the 30 s the server
      // gives a slow consumer to read its backlog before it drops the socket (1006, not 1008).
      const app = await startRealtimeApp(engine, {
        CDS_REALTIME_LOG_MAX_WRITES: '8',
        CDS_WS_MAX_BUFFER: String(2 * 1024 * 1024),
      });
      try {
        const chunk = 'x'.repeat(1024 * 1024);
        const total = 64; // 64 MiB of updates: 32 times the send buffer limit
        const write = (i: number) => app.app.services.tree.set(app.project.projectId, `flood/${i % 8}`, `${i}${chunk}`);
        // Warm up without a subscriber, so the storage's own memory is already in the baseline.
        for (let i = 0; i < 16; i++) await write(i);
        const reader = await app.socket();
        await reader.request({ action: 'subscribe', path: 'flood', id: 1 });
        reader.ws.pause();
        // What the process holds after a collection (the JS heap and Buffers, where a send queue
        // lives), not its RSS: freed memory the allocator keeps (the drivers' 1 MiB buffers) made RSS
        // grow 24 MiB once without anything held.
        const retained = () => {
          const { heapUsed, external } = process.memoryUsage();
          return heapUsed + external;
        };
        collectGarbage();
        const before = retained();
        let peak = before;
        for (let i = 0; i < total; i++) {
          await write(i);
          if (i % 4 === 3) {
            // Garbage (the strings of each write) is not what this measures: collect it first.
            collectGarbage();
            peak = Math.max(peak, retained());
          }
        }
        await sleep(100);
        collectGarbage();
        peak = Math.max(peak, retained());
        const growth = peak - before;
        reader.ws.resume();
        const closed = await reader.closed;
        expect(closed.code).toBe(1008);
        const received = reader.events('update').length;
        console.log(
          `[slow consumer] ${engine.name}: peak growth of heap and Buffers ${(growth / 2 ** 20).toFixed(1)} MiB while ${total} MiB were written; ${received}/${total} updates reached the client before 1008`,
        );
        expect(received).toBeGreaterThan(0);
        expect(received).toBeLessThan(total / 2);
        // The 2 MiB send buffer plus a message, far below the 64 MiB written (buffering them all would show).
        expect(growth).toBeLessThan(16 * 1024 * 1024);
        await eventually(() => app.app.realtime.connections === 0);
      } finally {
        await app.close();
      }
    });
  });
}
