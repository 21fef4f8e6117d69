/** Document listeners (§10) under access rules (§9): filtered snapshots and changes, denials, rule changes. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { engines } from '../support/engines.js';
import { copyOf, listenerMessages, sortedPaths } from '../support/listener-copy.js';
import { freshProject, type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';
import { addPlayer, MemoryRulesSource } from '../support/rules.js';
import type { TestSocket } from '../support/ws-client.js';

const DENIED = 'Permission denied by rules';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Players list the notes they own and get their own inbox; `public` is open to all. */
const NOTE_RULES = {
  documents: [
    { match: 'notes/{note}', allow: { read: 'resource.data.owner == request.auth.uid', write: 'true' } },
    { match: 'inbox/{uid}', allow: { read: 'request.auth.uid == uid', write: 'true' } },
    { match: 'public/{rest=**}', allow: { read: 'true', write: 'true' } },
  ],
};

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`document listeners under rules (§9, §10) on ${engine.name}`, () => {
    // One app per engine; each test gets a project of its own on it (freshProject).
    let shared: RealtimeTestApp;
    let t: RealtimeTestApp;
    let rules: MemoryRulesSource;
    let ws: TestSocket;
    let me: string;
    let project: number;
    beforeAll(async () => {
      rules = new MemoryRulesSource();
      shared = await startRealtimeApp(engine, {}, { rules });
    });
    afterAll(async () => {
      await shared?.close();
    });
    beforeEach(async () => {
      t = await freshProject(shared);
      project = t.project.projectId;
      me = String(t.userId);
      rules.set(project, NOTE_RULES);
      ws = await t.socket();
    });
    afterEach(async () => {
      await ws?.close();
    });

    const put = (path: string, data: JsonObject) => t.app.services.documents.put(project, path, data);

    it('a query listener sees only what the user may list, in its snapshot and its changes', async () => {
      await put('notes/mine', { owner: me, text: 'a' });
      await put('notes/theirs', { owner: 'someone', text: 'b' });
      await ws.request({ action: 'listen', id: 'n', collection: 'notes' });
      expect(sortedPaths(copyOf(ws, 'n').documents)).toEqual(['notes/mine']);
      await put('notes/given', { owner: 'someone' });
      await put('notes/given', { owner: me }); // starts being allowed: added
      await put('notes/mine', { owner: 'someone' }); // stops: removed
      await put('notes/theirs', { owner: 'someone', text: 'c' }); // never visible: nothing
      await sleep(200);
      const changes = listenerMessages(ws, 'n').filter((m) => m.event === 'changes');
      expect(changes.map((m) => m.changes?.map((c) => [c.type, c.document.path]))).toEqual([
        [['added', 'notes/given']],
        [['removed', 'notes/mine']],
      ]);
    });

    it("each listen needs client.documents besides the socket's client.realtime", async () => {
      await t.app.services.storage.accounts.upsertRole(project, {
        name: 'tree-only',
        permissions: ['client.realtime'],
      });
      const other = await addPlayer(t, 'tree_only', ['tree-only']);
      const socket = await t.socket(other.headers);
      try {
        expect(await socket.request({ action: 'listen', id: 1, collection: 'public' })).toEqual({
          event: 'error',
          id: 1,
          message: "Permission 'client.documents' required",
        });
        expect(await socket.request({ action: 'unlisten', id: 1 })).toMatchObject({ message: 'Unknown listener' });
      } finally {
        await socket.close();
      }
    });

    it('a listener of one project hears nothing of another project', async () => {
      await ws.request({ action: 'listen', id: 'iso', collection: 'public' });
      await t.app.services.documents.put(project + 1000, 'public/x', { n: 1 });
      await put('public/mine', { n: 1 });
      await ws.waitFor((m) => m.id === 'iso' && (m.event as string) === 'changes');
      await sleep(100);
      expect(sortedPaths(copyOf(ws, 'iso').documents)).toEqual(['public/mine']);
    });

    it('a doc listener needs get: denied at listen is an error and nothing is registered', async () => {
      expect(await ws.request({ action: 'listen', id: 'i', doc: 'inbox/someone' })).toEqual({
        event: 'error',
        id: 'i',
        message: DENIED,
      });
      expect(await ws.request({ action: 'unlisten', id: 'i' })).toMatchObject({ message: 'Unknown listener' });
      expect(await ws.request({ action: 'listen', id: 'i', doc: `inbox/${me}` })).toMatchObject({ event: 'snapshot' });
    });

    it('a rule change cancels a doc listener no longer granted and refilters a query listener', async () => {
      await put('public/a', { n: 1 });
      await put(`inbox/${me}`, { unread: 1 });
      await ws.request({ action: 'listen', id: 'box', doc: `inbox/${me}` });
      await ws.request({ action: 'listen', id: 'pub', collection: 'public' });
      rules.set(project, {
        documents: [{ match: 'public/{p}', allow: { read: 'resource.data.n > 1', write: 'true' } }],
      });
      const cancel = await ws.waitFor((m) => m.event === 'cancel');
      expect(cancel).toEqual({ event: 'cancel', id: 'box', message: DENIED });
      await ws.waitFor((m) => m.id === 'pub' && (m.event as string) === 'changes');
      expect(sortedPaths(copyOf(ws, 'pub').documents)).toEqual([]);
      await put(`inbox/${me}`, { unread: 2 });
      await put('public/b', { n: 2 });
      await ws.waitFor((m) => m.id === 'pub' && JSON.stringify(m).includes('public/b'));
      expect(listenerMessages(ws, 'box').filter((m) => m.event === 'changes')).toEqual([]);
      expect(sortedPaths(copyOf(ws, 'pub').documents)).toEqual(['public/b']);
    });
  });
}
