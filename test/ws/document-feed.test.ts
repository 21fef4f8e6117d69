/**
 * The per-project document feed (§10) under publisher failures: commits published out of order
 * are delivered in version order; one never published is read from the change log; when the log
 * no longer covers the gap, listeners read their result again and stay equal to the query. On every engine.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocumentJson } from '../../src/core/documents/document-service.js';
import { putMutation } from '../../src/core/documents/document-writes.js';
import type { JsonObject } from '../../src/core/json.js';
import {
  type DocumentCommitEvent,
  documentChannel,
  encodeDocumentCommits,
} from '../../src/core/listeners/document-commit-event.js';
import { parseDocumentPath } from '../../src/core/paths.js';
import { engines } from '../support/engines.js';
import { copyOf, listenerMessages, sortedPaths } from '../support/listener-copy.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';
import type { TestSocket } from '../support/ws-client.js';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`document feed ordering on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    let ws: TestSocket;
    const unpublished: DocumentCommitEvent[] = [];
    // Written past `DocumentCommits`, as if each writer died between COMMIT and publish: nothing is announced.
    const retention = { maxWrites: 5, maxAgeMs: 600_000 };
    beforeEach(async () => {
      t = await startRealtimeApp(engine);
      ws = await t.socket();
      unpublished.length = 0;
    });
    afterEach(async () => {
      await ws?.close();
      await t?.close();
    });

    const put = async (path: string, data: JsonObject) => {
      const { commit } = await t.app.services.storage.documents.apply(
        t.project.projectId,
        [putMutation(parseDocumentPath(path), data, crypto.randomUUID())],
        retention,
      );
      const event = { projectId: t.project.projectId, commits: [commit] };
      unpublished.push(event);
      return { ...event, version: commit.version };
    };
    const publish = ({ projectId, commits }: DocumentCommitEvent) =>
      t.app.services.bus.publish(documentChannel(projectId), encodeDocumentCommits({ projectId, commits }));
    const changeVersions = (id: string) =>
      listenerMessages(ws, id)
        .filter((m) => m.event === 'changes')
        .map((m) => m.version);

    it('delivers commits published out of order in version order', async () => {
      await ws.request({ action: 'listen', id: 'o', collection: 'ooo' });
      const first = await put('ooo/a', { n: 1 });
      const second = await put('ooo/a', { n: 2 });
      await publish(second);
      await publish(first);
      await ws.waitForCount((m) => m.id === 'o' && (m.event as string) === 'changes', 2);
      expect(changeVersions('o')).toEqual([first.version, second.version]);
      expect([...copyOf(ws, 'o').documents.values()].map((d) => d.data)).toEqual([{ n: 2 }]);
    });

    it('reads a commit that was never published from the change log', async () => {
      await ws.request({ action: 'listen', id: 'l', collection: 'lost' });
      const lost = await put('lost/a', { n: 1 });
      const seen = await put('lost/b', { n: 2 });
      await publish(seen);
      await ws.waitForCount((m) => m.id === 'l' && (m.event as string) === 'changes', 2);
      expect(changeVersions('l')).toEqual([lost.version, seen.version]);
    });

    it('re-reads the result when the log no longer covers the gap, and stays equal to the query', async () => {
      await ws.request({ action: 'listen', id: 'g', collection: 'gap', where: ['n__gte:3'] });
      for (let n = 0; n < 12; n++) await put(`gap/d${n % 4}`, { n });
      await publish(unpublished[unpublished.length - 1] as DocumentCommitEvent);
      const want = (await t.app.services.documents.query(t.project.projectId, 'gap', { where: ['n__gte:3'] })).map(
        parseDocumentJson,
      );
      await ws.waitFor((m) => m.id === 'g' && (m.event as string) === 'changes');
      expect(sortedPaths(copyOf(ws, 'g').documents)).toEqual(want.map((d) => d.path));
      expect(ws.ws.readyState).toBe(ws.ws.OPEN);
    });
  });
}
