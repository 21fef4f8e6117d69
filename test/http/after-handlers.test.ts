/**
 * The outbox and after handlers (§16) on every engine: each committed document and tree write
 * records its event in its own transaction; handlers receive them in commit order, at least once,
 * narrowed by collection where asked; a write that fails records nothing; a handler that throws
 * is retried and later events wait behind it; the request never waits for a handler.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FunctionRegistry } from '../../src/core/functions/function-registry.js';
import { defineFunctions } from '../../src/functions/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

interface Seen {
  type: string;
  project_id: number;
  id: string;
  timestamp: string;
  data: Record<string, unknown>;
}

const seen = {
  all: [] as Seen[],
  chat: [] as Seen[],
  tree: [] as Seen[],
  flaky: [] as Seen[],
  handedAt: [] as string[],
};
let flakyFailures = 0;
/** Closed again for each engine's suite; the handler of `chat/slow` waits for it. */
let openGate = () => {};
let gate = Promise.resolve();

const handlers = defineFunctions({
  projects: '*',
  after: {
    'document.written': (_ctx, event) => {
      seen.all.push(event as Seen);
    },
    'document.written:chat': async (_ctx, event) => {
      const { data } = event.data as { data: { text?: string } | null };
      // Held until the test has its answer: a request that waited for its handler would never get one.
      if (data?.text === 'slow') await gate;
      seen.chat.push(event as Seen);
    },
    'realtime.written': (_ctx, event) => {
      const path = (event.data as { path: string }).path;
      seen.handedAt.push(path);
      if (path.startsWith('flaky/')) {
        if (flakyFailures < 2) {
          flakyFailures += 1;
          throw new Error('not yet');
        }
        seen.flaky.push(event as Seen);
        return;
      }
      seen.tree.push(event as Seen);
    },
  },
});

/** Waits until `check` holds (the handlers run in the background). */
async function eventually(check: () => boolean, ms = 8000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the handlers');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`after handlers and the outbox (§16) on ${engine.name}`, () => {
    let t: TestApp;
    const call = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
      t.app.http.inject({
        method: method as 'PUT',
        url,
        headers: { ...t.headers, ...headers },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const writtenAt = (list: Seen[], prefix: string) =>
      list.filter((event) => String(event.data.path).startsWith(prefix));

    beforeAll(async () => {
      for (const list of Object.values(seen)) list.length = 0;
      flakyFailures = 0;
      gate = new Promise<void>((resolve) => {
        openGate = resolve;
      });
      const functions = FunctionRegistry.of([{ file: 'handlers.ts', definition: handlers }]);
      t = await startTestApp(engine, {}, { functions });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('hands each document write to the handler as document.written, with its data before and after', async () => {
      const put = await call('PUT', '/documents/docs/items/a', { data: { n: 1 } });
      const version = Number(String(put.headers.etag).replaceAll('"', ''));
      await call('PATCH', '/documents/docs/items/a', { data: { m: 2 } });
      await call('DELETE', '/documents/docs/items/a');
      await eventually(() => writtenAt(seen.all, 'items/a').length === 3);
      const [created, patched, deleted] = writtenAt(seen.all, 'items/a') as [Seen, Seen, Seen];
      expect(created).toMatchObject({
        type: 'document.written',
        project_id: t.project.projectId,
        data: { path: 'items/a', data: { n: 1 }, previous: null, version, deleted: false },
      });
      expect(created.data.id).toBe(put.json().id);
      expect(new Date(created.timestamp).toISOString()).toBe(created.timestamp);
      expect(patched.data).toMatchObject({ data: { n: 1, m: 2 }, previous: { n: 1 }, version: version + 1 });
      expect(deleted.data).toMatchObject({ data: null, previous: { n: 1, m: 2 }, deleted: true });
      expect(new Set([created.id, patched.id, deleted.id]).size).toBe(3);
    });

    it('keeps commit order, records nothing for a write that failed, and an admin write like any other', async () => {
      const writes = Array.from({ length: 20 }, (_, i) =>
        call('PUT', `/documents/docs/order/o${i % 3}`, { data: { i } }),
      );
      await Promise.all(writes);
      expect(
        (await call('PUT', '/documents/docs/order/o0', { data: { bad: true } }, { 'if-match': '"1"' })).statusCode,
      ).toBe(412);
      expect((await call('PATCH', '/documents/docs/order/missing', { data: {} })).statusCode).toBe(404);
      await t.app.services.documents.put(t.project.projectId, 'order/admin', { by: 'admin' });
      await eventually(() => writtenAt(seen.all, 'order/').length === 21);
      const versions = writtenAt(seen.all, 'order/').map((event) => event.data.version as number);
      expect(versions).toEqual([...versions].sort((a, b) => a - b));
      expect(writtenAt(seen.all, 'order/').some((event) => (event.data.data as { bad?: boolean })?.bad)).toBe(false);
      expect(writtenAt(seen.all, 'order/missing')).toHaveLength(0);
    });

    it('narrows document.written to a collection, and gives a batch one event per document', async () => {
      const batch = await call('POST', '/documents/batch', {
        writes: [
          { op: 'put', path: 'chat/m1', data: { text: 'hi' } },
          { op: 'put', path: 'rooms/r1/chat/m2', data: { text: 'nested' } },
          { op: 'put', path: 'other/x', data: {} },
        ],
      });
      expect(batch.statusCode, batch.body).toBe(200);
      await eventually(() => seen.chat.length === 2);
      expect(seen.chat.map((event) => event.data.path)).toEqual(['chat/m1', 'rooms/r1/chat/m2']);
      expect(new Set(seen.chat.map((event) => event.data.version))).toEqual(new Set([batch.json().version]));
    });

    it('never holds the request up for a handler', async () => {
      const res = await call('PUT', '/documents/docs/chat/slow', { data: { text: 'slow' } });
      expect(res.statusCode).toBe(200);
      expect(seen.chat.some((event) => event.data.path === 'chat/slow')).toBe(false);
      openGate();
      await eventually(() => seen.chat.some((event) => event.data.path === 'chat/slow'));
    });

    it('hands tree writes over as realtime.written: a set, a PATCH’s keys, a delete', async () => {
      await call('PUT', '/realtime/db/rooms/r1', { value: { a: 1 } });
      await call('PATCH', '/realtime/db/rooms/r1', { value: { b: 2, 'c/d': 3 } });
      await call('DELETE', '/realtime/db/rooms/r1');
      await eventually(() => writtenAt(seen.tree, 'rooms/r1').length === 3);
      const [set, patched, deleted] = writtenAt(seen.tree, 'rooms/r1') as [Seen, Seen, Seen];
      expect(set).toMatchObject({ type: 'realtime.written', data: { path: 'rooms/r1', value: { a: 1 } } });
      expect(patched.data).toMatchObject({ path: 'rooms/r1', value: { b: 2, 'c/d': 3 } });
      expect(deleted.data).toMatchObject({ path: 'rooms/r1', value: null });
      expect((patched.data.version as number) - (set.data.version as number)).toBe(1);
    });

    it('retries a handler that throws, with later events waiting behind it', async () => {
      await call('PUT', '/realtime/db/flaky/one', { value: 1 });
      await call('PUT', '/realtime/db/after-flaky', { value: 2 });
      // Two failures: retried after 1 s, then 2 s; the next event is handed over only after it.
      await eventually(() => seen.flaky.length === 1, 10_000);
      expect(flakyFailures).toBe(2);
      await eventually(() => writtenAt(seen.tree, 'after-flaky').length === 1);
      const handedOver = (event: Seen | undefined) => Number(event?.data.version);
      expect(handedOver(writtenAt(seen.tree, 'after-flaky')[0])).toBeGreaterThan(handedOver(seen.flaky[0]));
      expect(seen.handedAt.lastIndexOf('flaky/one')).toBeLessThan(seen.handedAt.indexOf('after-flaky'));
    }, 15_000);
  });
}
