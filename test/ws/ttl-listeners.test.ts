/** Document listeners (§10) of expiring documents (§17) on both engines: snapshots leave them out, the sweep removes them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { ManualClock } from '../support/clock.js';
import { engines } from '../support/engines.js';
import { copyOf, listenerMessages } from '../support/listener-copy.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`listeners of expiring documents (§17) on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    const clock = new ManualClock(Date.now());
    beforeAll(async () => {
      t = await startRealtimeApp(engine, {}, { clock });
      await t.app.services.ttl.set(t.project.projectId, 'lobbies', 'closes_at');
      await t.app.services.indexes.whenBuilt();
    });
    afterAll(async () => {
      await t?.close();
    });

    const put = (path: string, data: JsonObject) => t.app.services.documents.put(t.project.projectId, path, data);
    type Listened = {
      event: string;
      id?: string;
      documents?: { path: string }[];
      changes?: { document: { path: string } }[];
    };
    const listen = async (ws: Awaited<ReturnType<RealtimeTestApp['socket']>>, message: Record<string, unknown>) =>
      (await ws.request(message as { id: string })) as unknown as Listened;
    const paths = (m: Listened) => (m.documents ?? []).map((d) => d.path);
    const changeTypes = (ws: Awaited<ReturnType<RealtimeTestApp['socket']>>, id: string) =>
      listenerMessages(ws, id)
        .filter((m) => m.event === 'changes')
        .flatMap((m) => m.changes?.map((c) => `${c.type} ${c.document.path}`) ?? []);

    it('snapshots leave expired documents out; changes hide expired writes; the sweep removes what listeners hold', async () => {
      const T = clock.now() + 60_000;
      await put('lobbies/a', { closes_at: T, n: 1 });
      await put('lobbies/b', { closes_at: new Date(T + 3_600_000).toISOString(), n: 2 });
      const ws = await t.socket();
      try {
        const early = await listen(ws, { action: 'listen', id: 'early', collection: 'lobbies' });
        expect(paths(early)).toEqual(['lobbies/a', 'lobbies/b']);
        clock.set(T + 1);
        const late = await listen(ws, { action: 'listen', id: 'late', collection: 'lobbies', order_by: 'n' });
        expect(paths(late)).toEqual(['lobbies/b']);
        const doc = await listen(ws, { action: 'listen', id: 'doc', doc: 'lobbies/a' });
        expect(paths(doc)).toEqual([]);
        // Written already expired: no listener sees it; written live later: it is added.
        await put('lobbies/c', { closes_at: T, n: 3 });
        // A held document written with a time already past leaves the result at once.
        await put('lobbies/b', { closes_at: T - 5, n: 2 });
        await put('lobbies/d', { closes_at: T + 60_000, n: 4 });
        await ws.waitForCount((m) => m.id === 'late' && (m as unknown as Listened).event === 'changes', 2);
        expect(changeTypes(ws, 'late')).toEqual(['removed lobbies/b', 'added lobbies/d']);
        // The early listener still holds a (expired, not swept yet) until the sweep deletes it.
        await t.app.services.ttlSweeper.sweep();
        const sweptA = (m: Listened) => (m.changes ?? []).some((c) => c.document.path === 'lobbies/a');
        await ws.waitFor((m) => m.id === 'early' && sweptA(m as unknown as Listened));
        expect(changeTypes(ws, 'early')).toEqual(['removed lobbies/b', 'added lobbies/d', 'removed lobbies/a']);
        expect([...copyOf(ws, 'early').documents.keys()]).toEqual(['lobbies/d']);
        expect(changeTypes(ws, 'doc')).toEqual([]);
        expect(await t.app.services.storage.documents.get(t.project.projectId, 'lobbies/c')).toBeNull();
      } finally {
        await ws.close();
      }
    });
  });
}
