/**
 * An import (§8) is one commit of the project's documents (§10): a listener hears of it at once,
 * as one `changes` message at the import's version, with `previous` for what it replaced, and a
 * `since` replay gives the same message. On every engine; within 1 s, well before the feeds' 5 s
 * reconcile with the database would find it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProjectExport } from '../../src/core/transfer/export-format.js';
import { engines } from '../support/engines.js';
import { listenerMessages } from '../support/listener-copy.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';
import type { TestSocket } from '../support/ws-client.js';

const fileOf = (documents: ProjectExport['documents']): ProjectExport =>
  ({ format: 'cds-export', version: 1, documents, realtime: null, users: [], leaderboards: [] }) as ProjectExport;

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`an import reaches document listeners on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    let ws: TestSocket;
    beforeEach(async () => {
      t = await startRealtimeApp(engine);
      ws = await t.socket();
    });
    afterEach(async () => {
      await ws?.close();
      await t?.close();
    });

    it('sends the imported documents as one changes message at the import version', async () => {
      const project = t.project.projectId;
      await t.app.services.documents.put(project, 'items/a', { n: 1 });
      await ws.request({ action: 'listen', id: 'i', collection: 'items' });
      const before = await t.app.services.listeners.currentVersion(project);
      await t.app.services.transfer.importProject(
        project,
        fileOf([
          { path: 'items/a', data: { n: 2 } },
          { path: 'items/b', data: { n: 3 } },
        ]),
      );
      const version = await t.app.services.listeners.currentVersion(project);
      expect(version).toBe(before + 1);
      const changes = await ws.waitFor((m) => m.id === 'i' && (m.event as string) === 'changes', { timeoutMs: 1000 });
      expect(changes.version).toBe(version);
      const types = (changes as unknown as { changes: { type: string; document: { path: string } }[] }).changes.map(
        (c) => [c.type, c.document.path],
      );
      expect(types).toEqual([
        ['added', 'items/b'],
        ['modified', 'items/a'],
      ]);
      await ws.request({ action: 'listen', id: 'r', collection: 'items', since: before });
      await ws.waitFor((m) => m.id === 'r' && (m.event as string) === 'changes', { timeoutMs: 1000 });
      const replayed = listenerMessages(ws, 'r').filter((m) => m.event === 'changes');
      expect(replayed.map((m) => [m.version, m.changes])).toEqual([
        [changes.version, (changes as { changes?: unknown }).changes],
      ]);
    });
  });
}
