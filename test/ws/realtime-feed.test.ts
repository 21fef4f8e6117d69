/**
 * The per-project feed under publisher failures: commits published out of order are delivered in
 * version order; a commit never published is read from the change log; when the log no longer
 * covers the gap, subscribers are told to reconnect (1012). On every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import { commitChannel, encodeCommit } from '../../src/core/realtime/commit-event.js';
import { planSet } from '../../src/core/realtime/tree-write.js';
import { engines } from '../support/engines.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';

const KEEP = { maxWrites: 50, maxAgeMs: 600_000 };

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`realtime feed ordering on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    beforeAll(async () => {
      t = await startRealtimeApp(engine, { CDS_REALTIME_LOG_MAX_WRITES: '50' });
    });
    afterAll(async () => {
      await t?.close();
    });

    /** Commits straight to the store: nothing is published, as if the writer died after COMMIT. */
    const commitUnpublished = (path: string, value: JsonValue) =>
      t.app.services.storage.tree.set(t.project.projectId, planSet(path, value), KEEP);
    const publish = (commit: { version: number; changes: { path: string; value: JsonValue }[] }) =>
      t.app.services.bus.publish(
        commitChannel(t.project.projectId),
        encodeCommit({ projectId: t.project.projectId, ...commit }),
      );

    it('delivers commits published out of order in version order', async () => {
      const ws = await t.socket();
      await ws.request({ action: 'subscribe', path: 'ooo', id: 1 });
      const first = await commitUnpublished('ooo/a', 1);
      const second = await commitUnpublished('ooo/a', 2);
      await publish(second);
      await publish(first);
      await ws.waitForCount((m) => m.event === 'update', 2);
      expect(ws.events('update').map((m) => [m.version, m.value])).toEqual([
        [first.version, 1],
        [second.version, 2],
      ]);
      await ws.close();
    });

    it('reads a commit that was never published from the change log', async () => {
      const ws = await t.socket();
      await ws.request({ action: 'subscribe', path: 'lost', id: 1 });
      const lost = await commitUnpublished('lost/a', 'never published');
      const next = await t.app.services.tree.set(t.project.projectId, 'lost/b', 'published');
      await ws.waitForCount((m) => m.event === 'update', 2);
      expect(ws.events('update').map((m) => [m.version, m.path, m.value])).toEqual([
        [lost.version, 'lost/a', 'never published'],
        [next.version, 'lost/b', 'published'],
      ]);
      expect(ws.copy).toEqual({ lost: { a: 'never published', b: 'published' } });
      await ws.close();
    });

    it('sends the init of a snapshot holding an unpublished commit without waiting for a later write', async () => {
      const ws = await t.socket();
      await ws.request({ action: 'subscribe', path: 'other', id: 0 });
      const lost = await commitUnpublished('quiet/a', 1);
      const init = await ws.request({ action: 'subscribe', path: 'quiet', id: 1 }, 2_000);
      expect(init).toMatchObject({ event: 'init', value: { a: 1 }, version: lost.version });
      await ws.close();
    });

    it('delivers an unpublished commit to live subscribers when the feed reconciles with the database', async () => {
      const ws = await t.socket();
      await ws.request({ action: 'subscribe', path: 'idle', id: 1 });
      const lost = await commitUnpublished('idle/a', 'late');
      const update = await ws.waitFor((m) => m.event === 'update', { timeoutMs: 8_000 });
      expect(update).toEqual({ event: 'update', path: 'idle/a', value: 'late', version: lost.version });
      await ws.close();
    }, 15_000);

    it('asks subscribers to reconnect (1012) when the log no longer covers a gap', async () => {
      const ws = await t.socket();
      await ws.request({ action: 'subscribe', path: 'far', id: 1 });
      for (let i = 0; i < 60; i++) await commitUnpublished('far/a', i);
      await t.app.services.tree.set(t.project.projectId, 'far/b', 1);
      expect((await ws.closed).code).toBe(1012);
      const again = await t.socket();
      const init = await again.request({ action: 'subscribe', path: 'far', id: 2 });
      expect(init.value).toEqual({ a: 59, b: 1 });
      await again.close();
    });
  });
}
