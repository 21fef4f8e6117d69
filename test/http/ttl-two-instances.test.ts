/**
 * Expiring documents (§17) on two app instances over one PostgreSQL schema and one Redis bus: a
 * TTL set on one is in force on the other within 1 s, and of the two sweepers one sweeps at a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createProjectWithPlayer } from '../support/app.js';
import { postgresEngine } from '../support/engines.js';
import { redisUnavailable } from '../support/services.js';
import { startTwoInstances, type TwoInstances } from '../support/two-instances.js';

const unavailable = postgresEngine.unavailable ?? (await redisUnavailable());

describe.skipIf(unavailable)('expiring documents on two instances over one PostgreSQL and one Redis', () => {
  let instances: TwoInstances;
  let apps: [App, App];
  let projectId: number;
  let headers: Record<string, string>;
  beforeAll(async () => {
    instances = await startTwoInstances();
    apps = instances.apps;
    // The test drives the rounds itself: no timer's round comes between.
    for (const app of apps) await app.services.ttlSweeper.stop();
    const created = await createProjectWithPlayer(apps[0], 'org-ttl', 'two');
    projectId = created.project.projectId;
    headers = created.headers;
  });
  afterAll(async () => {
    await instances?.close();
  });

  const get = (app: App, path: string) =>
    app.http.inject({ method: 'GET', url: `/documents/docs/${path}`, headers }).then((res) => res.statusCode);

  it('a setting made on one instance hides expired documents on the other within 1 s', async () => {
    const [a, b] = apps;
    await a.services.documents.put(projectId, 'codes/c1', { until: Date.now() - 1000 });
    expect(await get(b, 'codes/c1')).toBe(200);
    await a.services.ttl.set(projectId, 'codes', 'until');
    const started = Date.now();
    while ((await get(b, 'codes/c1')) !== 404) {
      expect(Date.now() - started).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await get(a, 'codes/c1')).toBe(404);
  });

  it('one instance sweeps at a time: the other finds the lease taken', async () => {
    const [a, b] = apps;
    await a.services.ttl.set(projectId, 'rooms', 'until');
    await a.services.indexes.whenBuilt();
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => a.services.documents.put(projectId, `rooms/r${i}`, { until: i })),
    );
    const [swept, other] = await Promise.all([a.services.ttlSweeper.sweep(), b.services.ttlSweeper.sweep()]);
    expect([swept, other].sort((x, y) => x - y)).toEqual([0, 51]);
    // The holder keeps its lease from round to round; the other still finds it taken.
    const holder = swept > 0 ? a : b;
    const waiting = swept > 0 ? b : a;
    await holder.services.documents.put(projectId, 'rooms/again', { until: 1 });
    expect(await waiting.services.ttlSweeper.sweep()).toBe(0);
    expect(await holder.services.ttlSweeper.sweep()).toBe(1);
  });
});
