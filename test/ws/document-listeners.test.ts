/** Document listeners over the WebSocket (§10) on both engines: snapshot, changes, windows, resume, errors. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseDocumentJson } from '../../src/core/documents/document-service.js';
import type { JsonObject } from '../../src/core/json.js';
import { engines } from '../support/engines.js';
import { copyOf, listenerMessages, sortedPaths } from '../support/listener-copy.js';
import { freshProject, type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';
import type { TestSocket } from '../support/ws-client.js';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`document listeners (§10) on ${engine.name}`, () => {
    // One app per engine; each test gets a project of its own on it (freshProject).
    let shared: RealtimeTestApp;
    let t: RealtimeTestApp;
    let ws: TestSocket;
    let project: number;
    beforeAll(async () => {
      shared = await startRealtimeApp(engine);
    });
    afterAll(async () => {
      await shared?.close();
    });
    beforeEach(async () => {
      t = await freshProject(shared);
      project = t.project.projectId;
      ws = await t.socket();
    });
    afterEach(async () => {
      await ws?.close();
    });

    const documents = () => t.app.services.documents;
    const put = (path: string, data: JsonObject) => documents().put(project, path, data);
    const remove = (path: string) => documents().delete(project, path);
    const query = async (
      collection: string,
      request: { where?: string[]; orderBy?: string; limit?: number; parentPath?: string } = {},
    ) =>
      (await documents().query(project, collection, { where: request.where ?? [], ...request })).map(parseDocumentJson);
    const settle = async (id: string | number) => {
      // Changes that do not touch a listener send nothing: wait a little past the last commit.
      await new Promise((resolve) => setTimeout(resolve, 150));
      return copyOf(ws, id);
    };

    it('a doc listener gets its snapshot, then added, modified and removed', async () => {
      const first = (await ws.request({ action: 'listen', id: 'd', doc: 'rooms/r1' })) as unknown as Record<
        string,
        unknown
      >;
      expect(first).toMatchObject({ event: 'snapshot', id: 'd', documents: [] });
      await put('rooms/r1', { n: 1 });
      await put('rooms/r1', { n: 2 });
      await put('rooms/r2', { n: 9 });
      await remove('rooms/r1');
      await ws.waitForCount((m) => m.id === 'd' && (m.event as string) === 'changes', 3);
      const changes = listenerMessages(ws, 'd')
        .filter((m) => m.event === 'changes')
        .map((m) => m.changes?.map((c) => [c.type, c.document.path, c.document.data]));
      expect(changes).toEqual([
        [['added', 'rooms/r1', { n: 1 }]],
        [['modified', 'rooms/r1', { n: 2 }]],
        [['removed', 'rooms/r1', undefined]],
      ]);
      const versions = listenerMessages(ws, 'd').map((m) => m.version ?? 0);
      expect(versions).toEqual([...versions].sort((a, b) => a - b));
    });

    it('a query listener follows where and parent_path; its copy ends equal to the query', async () => {
      await put('games/g1', { level: 3, open: true });
      await put('games/g2', { level: 7, open: true });
      await put('p/1/games/g3', { level: 9, open: true });
      const answer = await ws.request({
        action: 'listen',
        id: 7,
        collection: 'games',
        where: ['level__gte:5', 'open__exact:true'],
      });
      expect(answer).toMatchObject({ event: 'snapshot', id: 7 });
      expect(sortedPaths(copyOf(ws, 7).documents)).toEqual(['games/g2', 'p/1/games/g3']);
      await ws.request({ action: 'listen', id: '7', collection: 'games', parent_path: 'p/1' });
      await put('games/g1', { level: 5, open: true }); // enters
      await put('games/g2', { level: 7, open: false }); // leaves
      await put('p/1/games/g3', { level: 10, open: true }); // modified
      await put('other/x', { level: 50, open: true }); // another collection
      await remove('p/1/games/g3');
      const copy = await settle(7);
      expect(sortedPaths(copy.documents)).toEqual(
        (await query('games', { where: ['level__gte:5', 'open__exact:true'] })).map((d) => d.path),
      );
      expect([...copy.documents.values()].map((d) => d.data)).toEqual([{ level: 5, open: true }]);
      // The string id "7" is another listener: parent p/1 only.
      expect(sortedPaths(copyOf(ws, '7').documents)).toEqual([]);
      const oneCommit = listenerMessages(ws, 7).filter((m) => m.event === 'changes');
      expect(oneCommit.every((m) => (m.changes?.length ?? 0) === 1)).toBe(true);
    });

    it('a limit window pushes out and refills, ordered by order_by, equal to the query at the end', async () => {
      for (const [name, score] of [
        ['a', 10],
        ['b', 20],
        ['c', 30],
        ['d', 40],
      ] as const)
        await put(`scores/${name}`, { score });
      const request = { where: [] as string[], orderBy: '-score', limit: 2 };
      await ws.request({ action: 'listen', id: 'top', collection: 'scores', order_by: '-score', limit: 2 });
      expect(sortedPaths(copyOf(ws, 'top').documents)).toEqual(['scores/c', 'scores/d']);
      await put('scores/e', { score: 35 }); // enters, pushes c out
      await remove('scores/d'); // leaves: the window is read again, c comes back
      await put('scores/e', { score: 1 }); // moves to the end: c and b
      await put('scores/f', { score: 5 }); // beyond the window
      const copy = await settle('top');
      expect(sortedPaths(copy.documents)).toEqual((await query('scores', request)).map((d) => d.path).sort());
      expect(sortedPaths(copy.documents)).toEqual(['scores/b', 'scores/c']);
      const pushed = listenerMessages(ws, 'top').find((m) => m.event === 'changes');
      expect(pushed?.changes?.map((c) => [c.type, c.document.path])).toEqual([
        ['removed', 'scores/c'],
        ['added', 'scores/e'],
      ]);
    });

    it('resumes from a version the log covers with the changes missed; otherwise a snapshot', async () => {
      await put('items/a', { n: 1 });
      await put('items/b', { n: 2 });
      await ws.request({ action: 'listen', id: 'r', collection: 'items', where: ['n__lte:5'] });
      const since = copyOf(ws, 'r').version;
      await ws.request({ action: 'unlisten', id: 'r' });
      await put('items/a', { n: 3 }); // modified
      await put('items/b', { n: 9 }); // leaves
      await put('items/c', { n: 4 }); // added
      await put('items/c', { n: 4 }); // unchanged: nothing to send
      const resumed = await ws.request({ action: 'listen', id: 'r', collection: 'items', where: ['n__lte:5'], since });
      expect(resumed).toEqual({ event: 'resume', id: 'r', version: since });
      const copy = await settle('r');
      expect(sortedPaths(copy.documents)).toEqual(['items/a', 'items/c']);
      const afterResume = listenerMessages(ws, 'r').slice(
        listenerMessages(ws, 'r').findIndex((m) => m.event === 'resume'),
      );
      expect(afterResume.filter((m) => m.event === 'changes').map((m) => m.changes?.map((c) => c.type))).toEqual([
        ['modified'],
        ['removed'],
        ['added'],
      ]);
      await ws.request({ action: 'unlisten', id: 'r' });
      expect(await ws.request({ action: 'listen', id: 'r', collection: 'items', since: 10_000 })).toMatchObject({
        event: 'snapshot',
      });
      expect(await ws.request({ action: 'listen', id: 'w', collection: 'items', limit: 5, since })).toMatchObject({
        event: 'snapshot',
      });
    });

    it('200 PUTs sent at once reach a query listener as 200 changes with their ETags, live and on resume', async () => {
      await ws.request({ action: 'listen', id: 'rapid', collection: 'rapid' });
      const start = copyOf(ws, 'rapid').version;
      // Sent in one turn: the engines commit them together, each still with a version of its own.
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          t.app.http.inject({
            method: 'PUT',
            url: `/documents/docs/rapid/d${i % 10}`,
            headers: t.headers,
            payload: { data: { i } },
          }),
        ),
      );
      const etags = answers.map((answer) => Number(JSON.parse(answer.headers.etag as string))).sort((a, b) => a - b);
      expect(new Set(etags).size).toBe(200);
      await ws.waitForCount((m) => m.id === 'rapid' && (m.event as string) === 'changes', 200);
      const live = listenerMessages(ws, 'rapid').filter((m) => m.event === 'changes');
      expect(live.map((m) => m.version)).toEqual(etags);
      expect(live.every((m) => m.changes?.length === 1)).toBe(true);
      await ws.request({ action: 'unlisten', id: 'rapid' });
      const resumed = await ws.request({ action: 'listen', id: 'again', collection: 'rapid', since: start });
      expect(resumed).toEqual({ event: 'resume', id: 'again', version: start });
      await ws.waitForCount((m) => m.id === 'again' && (m.event as string) === 'changes', 200);
      const replayed = listenerMessages(ws, 'again').filter((m) => m.event === 'changes');
      expect(replayed.map((m) => [m.version, m.changes])).toEqual(live.map((m) => [m.version, m.changes]));
    });

    it('keeps the copy exact under writes racing the snapshot', async () => {
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 60; i++) writes.push(put(`race/r${i % 15}`, { i, even: i % 2 === 0 }));
      const answer = ws.request({ action: 'listen', id: 'x', collection: 'race', where: ['even__exact:true'] });
      for (let i = 60; i < 120; i++)
        writes.push(
          i % 7 === 0 ? remove(`race/r${i % 15}`).catch(() => null) : put(`race/r${i % 15}`, { i, even: i % 3 === 0 }),
        );
      await answer;
      await Promise.all(writes);
      const copy = await settle('x');
      const want = await query('race', { where: ['even__exact:true'] });
      expect(sortedPaths(copy.documents)).toEqual(want.map((d) => d.path));
      expect([...copy.documents.values()].sort((a, b) => (a.path < b.path ? -1 : 1))).toEqual(want);
    });

    it('answers errors as §10 says and acks unlisten', async () => {
      expect(await ws.request({ action: 'listen', id: 'e', collection: 'a/b' })).toMatchObject({
        event: 'error',
        message: 'Collection must be a single path segment',
      });
      expect(await ws.request({ action: 'listen', id: 'e', doc: 'a' })).toMatchObject({
        event: 'error',
        message: 'Path must point to a document (even number of segments)',
      });
      expect(await ws.request({ action: 'listen', id: 'e', collection: 'a', where: ['bad'] })).toMatchObject({
        event: 'error',
        message: "Invalid where clause 'bad': expected field__lookup:value",
      });
      expect(await ws.request({ action: 'listen', id: 'e', collection: 'a', limit: 0 })).toMatchObject({
        event: 'error',
        message: 'Invalid limit',
      });
      expect(await ws.request({ action: 'listen', id: 'e', collection: 'a', limit: 1001 })).toMatchObject({
        event: 'error',
        message: 'Invalid limit',
      });
      expect(await ws.request({ action: 'listen', id: 'e', collection: 'a', parent_path: 'x' })).toMatchObject({
        event: 'error',
        message: 'parent_path must point to a document (even number of segments)',
      });
      expect(await ws.request({ action: 'unlisten', id: 'nobody' })).toEqual({
        event: 'error',
        id: 'nobody',
        message: 'Unknown listener',
      });
      expect(await ws.request({ action: 'listen', id: 'e', collection: 'a' })).toMatchObject({ event: 'snapshot' });
      expect(await ws.request({ action: 'listen', id: 'e', collection: 'b' })).toMatchObject({
        event: 'error',
        id: 'e',
      });
      expect(await ws.request({ action: 'unlisten', id: 'e' })).toEqual({ event: 'ack', action: 'unlisten', id: 'e' });
    });
  });
}
