/**
 * Two app instances over one PostgreSQL schema and one Redis bus writing one project's tree
 * concurrently, each batching its own writes: the project keeps one version order. Every write
 * gets its own version (1..N, none twice, none missing), the change log replays to the stored
 * tree, and a subscriber on each instance receives every write once, in that one order.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { commitChannel, decodeCommits } from '../../src/core/realtime/commit-event.js';
import { segmentsOf } from '../../src/core/realtime/tree-path.js';
import { setValueAt } from '../../src/core/realtime/tree-value.js';
import { createProjectWithPlayer } from '../support/app.js';
import { postgresEngine } from '../support/engines.js';
import { redisUnavailable } from '../support/services.js';
import { startTwoInstances, type TwoInstances } from '../support/two-instances.js';
import { open, type TestSocket } from '../support/ws-client.js';

const unavailable = postgresEngine.unavailable ?? (await redisUnavailable());

const CLIENTS = 8;
const WRITES = 15;

describe.skipIf(unavailable)('one version order for one project written from two instances', () => {
  let instances: TwoInstances;
  let apps: [App, App];
  let headers: Record<string, string>;
  let projectId: number;
  beforeAll(async () => {
    instances = await startTwoInstances();
    apps = instances.apps;
    const created = await createProjectWithPlayer(apps[0], 'org-order', 'two');
    headers = created.headers;
    projectId = created.project.projectId;
    for (const app of apps) await app.http.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await instances?.close();
  });

  const socketOn = async (app: App): Promise<TestSocket> => {
    const { port } = app.http.server.address() as AddressInfo;
    const ws = await open(`ws://127.0.0.1:${port}/realtime/ws`, headers);
    await ws.request({ action: 'subscribe', path: 'order', id: 'sub' });
    return ws;
  };

  it(`2 × ${CLIENTS} clients × ${WRITES} PUTs: versions 1..N once each, seen in one order on both`, async () => {
    const sockets = await Promise.all(apps.map(socketOn));
    const messages: string[] = [];
    const stop = await apps[0].services.bus.subscribe(commitChannel(projectId), (message) => messages.push(message));
    const client = async (app: App, instance: number, c: number) => {
      for (let i = 0; i < WRITES; i++) {
        const res = await app.http.inject({
          method: 'PUT',
          url: `/realtime/db/order/k${(c + i) % 5}`,
          headers,
          payload: { value: { instance, c, i } },
        });
        if (res.statusCode !== 200) throw new Error(res.body);
      }
    };
    await Promise.all(apps.flatMap((app, n) => Array.from({ length: CLIENTS }, (_, c) => client(app, n, c))));
    const total = 2 * CLIENTS * WRITES;
    // Writes did share commits: fewer bus messages than writes, together carrying each version once.
    // A write is answered once Redis took its PUBLISH; the other instance's subscription hears it a moment later.
    const carriedVersions = () => messages.flatMap((message) => decodeCommits(message) ?? []).map((c) => c.version);
    for (let waited = 0; carriedVersions().length < total && waited < 5_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await stop();
    const carried = carriedVersions();
    expect(messages.length).toBeLessThan(total);
    expect(carried.sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    const tree = apps[0].services.tree;
    const history = await tree.changesSince(projectId, 0);
    expect(history?.version).toBe(total);
    expect(history?.commits.map((commit) => commit.version)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    // The stored tree is the log replayed in version order.
    let replayed = null;
    for (const commit of history?.commits ?? []) {
      for (const change of commit.changes) replayed = setValueAt(replayed, segmentsOf(change.path), change.value);
    }
    const stored = (await tree.get(projectId, '')).value;
    expect(stored).toEqual(replayed);
    for (const ws of sockets) {
      await ws.waitForCount((m) => m.event === 'update', total, 30_000);
      const updates = ws.events('update');
      expect(updates.map((m) => m.version)).toEqual(history?.commits.map((commit) => commit.version));
      expect(updates.map((m) => ({ path: m.path, value: m.value }))).toEqual(
        history?.commits.map((commit) => commit.changes[0]),
      );
      expect(ws.copy).toEqual(stored);
      await ws.close();
    }
  }, 120_000);
});
