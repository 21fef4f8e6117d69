/**
 * A connection's writes sent back to back (§4): each is placed in commit order as soon as it is
 * checked, without waiting for the previous one's commit, so they share commits; yet every reply
 * comes in message order, a refused write is answered alone in its place, the versions follow the
 * messages, and a message after the writes (subscribe) sees them all committed. On every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitChannel, decodeCommits } from '../../src/core/realtime/commit-event.js';
import { engines } from '../support/engines.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';

const WRITES = 60;

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`pipelined WebSocket writes on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    beforeAll(async () => {
      t = await startRealtimeApp(engine);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('answers back-to-back writes in message order, shares their commits, and subscribes after them', async () => {
      const { tree, bus } = t.app.services;
      const projectId = t.project.projectId;
      const watcher = await t.socket();
      await watcher.request({ action: 'subscribe', path: 'pipe', id: 'w' });
      const before = await tree.currentVersion(projectId);
      const heard: string[] = [];
      const stop = await bus.subscribe(commitChannel(projectId), (message) => heard.push(message));
      const writer = await t.socket();
      try {
        for (let i = 0; i < WRITES; i++) {
          // Every tenth message is refused (a key that cannot name a child): answered in its place.
          const value = i % 10 === 5 ? { 'a/b': i } : { n: i };
          writer.send({ action: 'set', path: `pipe/k${i % 7}`, value, id: i });
        }
        writer.send({ action: 'patch', path: 'pipe', value: { last: true }, id: 'patch' });
        writer.send({ action: 'subscribe', path: 'pipe', id: 'sub' });
        const init = await writer.waitFor((m) => m.event === 'init' && m.id === 'sub');
        const replies = writer.messages.filter((m) => m.event === 'ack' || m.event === 'error');
        expect(replies.map((m) => m.id)).toEqual([...Array.from({ length: WRITES }, (_, i) => i), 'patch']);
        expect(replies.map((m) => m.event)).toEqual([
          ...Array.from({ length: WRITES }, (_, i) => (i % 10 === 5 ? 'error' : 'ack')),
          'ack',
        ]);
        // The subscribe came after the writes: its snapshot holds them all.
        const expected: Record<string, unknown> = { last: true };
        for (let i = 0; i < WRITES; i++) if (i % 10 !== 5) expected[`k${i % 7}`] = { n: i };
        expect(init.value).toEqual(expected);
        const accepted = WRITES - WRITES / 10 + 1;
        expect(init.version).toBe(before + accepted);
        // Placed one after another, in message order: fewer commits messages than writes, versions in order.
        const commits = heard.flatMap((message) => decodeCommits(message) ?? []);
        expect(commits.map((commit) => commit.version)).toEqual(
          Array.from({ length: accepted }, (_, i) => before + i + 1),
        );
        expect(heard.length).toBeLessThan(accepted);
        const written = commits.slice(0, -1).map((commit) => commit.changes[0]?.value);
        expect(written).toEqual(
          Array.from({ length: WRITES }, (_, i) => i)
            .filter((i) => i % 10 !== 5)
            .map((n) => ({ n })),
        );
      } finally {
        await stop();
      }
      await watcher.waitForCount((m) => m.event === 'update', WRITES - WRITES / 10 + 1);
      expect(watcher.copy).toEqual({ pipe: (await tree.get(projectId, 'pipe')).value });
      await writer.close();
      await watcher.close();
    });
  });
}
