/**
 * Document listeners (§10) on two instances over one PostgreSQL and one Redis: listeners on both
 * instances follow writes committed by both, in commit order, and each ends equal to the REST
 * query. Scaled down from the 50 × 5,000 to 50 listeners × 2,000 writes so it runs in
 * seconds on a shared machine (CDS_LISTENER_WRITES raises it).
 */
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { parseDocumentJson } from '../../src/core/documents/document-service.js';
import { createProjectWithPlayer } from '../support/app.js';
import { postgresEngine } from '../support/engines.js';
import { copyOf, sortedPaths } from '../support/listener-copy.js';
import { redisUnavailable } from '../support/services.js';
import { startTwoInstances, type TwoInstances } from '../support/two-instances.js';
import { open, type TestSocket } from '../support/ws-client.js';

const unavailable = postgresEngine.unavailable ?? (await redisUnavailable());
const LISTENERS = 50;
const WRITES = Number(process.env.CDS_LISTENER_WRITES ?? 2000);
const DOCUMENTS = 200;

describe.skipIf(unavailable)('document listeners on two instances over one PostgreSQL and one Redis', () => {
  let instances: TwoInstances;
  let apps: [App, App];
  const sockets: TestSocket[] = [];
  beforeAll(async () => {
    instances = await startTwoInstances();
    apps = instances.apps;
    for (const app of apps) await app.http.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const socket of sockets) await socket.close();
    await instances?.close();
  });

  it(`${LISTENERS} listeners end equal to the query after ${WRITES} writes from both instances`, async () => {
    const [a, b] = apps;
    const { project, headers } = await createProjectWithPlayer(a, 'org-listen', 'two');
    const projectId = project.projectId;
    const where = ['score__gte:50'];
    for (let i = 0; i < LISTENERS; i++) {
      const app = i % 2 === 0 ? a : b;
      const { port } = app.http.server.address() as AddressInfo;
      const socket = await open(`ws://127.0.0.1:${port}/realtime/ws`, headers);
      sockets.push(socket);
      // Half of them start while the writes run: their snapshots race the commits.
      if (i < LISTENERS / 2) await socket.request({ action: 'listen', id: 'q', collection: 'cells', where });
    }
    let next = 0;
    const writer = async (app: App) => {
      while (next < WRITES) {
        const i = next++;
        const path = `cells/c${(i * 7919) % DOCUMENTS}`;
        if (i % 11 === 0) await app.services.documents.delete(projectId, path).catch(() => null);
        else await app.services.documents.put(projectId, path, { score: (i * 31) % 100, i });
      }
    };
    const late = sockets
      .slice(LISTENERS / 2)
      .map((socket) => socket.request({ action: 'listen', id: 'q', collection: 'cells', where }));
    await Promise.all([writer(a), writer(b), writer(a), writer(b), ...late]);
    const want = (await a.services.documents.query(projectId, 'cells', { where })).map(parseDocumentJson);
    const wantPaths = want.map((document) => document.path);
    const deadline = Date.now() + 20_000;
    const held = (socket: TestSocket) =>
      [...copyOf(socket, 'q').documents.values()].sort((x, y) => (x.path < y.path ? -1 : 1));
    for (const [i, socket] of sockets.entries()) {
      // Until the last change arrives: one that only changes data leaves the paths as they were.
      while (!isDeepStrictEqual(held(socket), want)) {
        if (Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(sortedPaths(copyOf(socket, 'q').documents), `listener ${i}`).toEqual(wantPaths);
      expect(held(socket), `listener ${i}`).toEqual(want);
    }
  }, 90_000);

  it('200 PUTs sent at once through both instances reach listeners on both as 200 changes with their ETags', async () => {
    const [a, b] = apps;
    const { headers } = await createProjectWithPlayer(a, 'org-rapid', 'two');
    const listeners: TestSocket[] = [];
    for (const app of apps) {
      const { port } = app.http.server.address() as AddressInfo;
      const socket = await open(`ws://127.0.0.1:${port}/realtime/ws`, headers);
      sockets.push(socket);
      listeners.push(socket);
      await socket.request({ action: 'listen', id: 'rapid', collection: 'rapid' });
    }
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        (i % 2 === 0 ? a : b).http.inject({
          method: 'PUT',
          url: `/documents/docs/rapid/d${i % 10}`,
          headers,
          payload: { data: { i } },
        }),
      ),
    );
    const etags = answers.map((answer) => Number(JSON.parse(answer.headers.etag as string))).sort((x, y) => x - y);
    expect(new Set(etags).size).toBe(200);
    for (const socket of listeners) {
      await socket.waitForCount((m) => m.id === 'rapid' && (m.event as string) === 'changes', 200);
      const versions = socket.messages
        .filter((m) => m.id === 'rapid' && (m.event as string) === 'changes')
        .map((m) => m.version);
      expect(versions).toEqual(etags);
    }
  }, 60_000);
});
