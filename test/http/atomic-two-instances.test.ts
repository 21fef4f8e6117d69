/**
 * Atomic increments (§11) from two app instances over one PostgreSQL schema and one Redis bus:
 * concurrent clients on both end exact, for documents and for the realtime tree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createProjectWithPlayer } from '../support/app.js';
import { postgresEngine } from '../support/engines.js';
import { redisUnavailable } from '../support/services.js';
import { startTwoInstances, type TwoInstances } from '../support/two-instances.js';

const unavailable = postgresEngine.unavailable ?? (await redisUnavailable());

describe.skipIf(unavailable)('atomic increments on two instances over one PostgreSQL and one Redis', () => {
  let instances: TwoInstances;
  let apps: App[];
  let headers: Record<string, string>;
  beforeAll(async () => {
    instances = await startTwoInstances();
    apps = instances.apps;
    headers = (await createProjectWithPlayer(apps[0] as App, 'org-atomic', 'two')).headers;
  });
  afterAll(async () => {
    await instances?.close();
  });

  /** `clients` clients on each instance, each sending `times` requests one after another. */
  async function onBoth(
    clients: number,
    times: number,
    request: (app: App) => Promise<{ statusCode: number; body: string }>,
  ) {
    const client = async (app: App) => {
      for (let i = 0; i < times; i++) {
        const res = await request(app);
        if (res.statusCode !== 200) throw new Error(res.body);
      }
    };
    await Promise.all(apps.flatMap((app) => Array.from({ length: clients }, () => client(app))));
  }

  it('2 × 25 clients × 100 document increments end at exactly 5,000, with 5,000 ETags', async () => {
    const [a] = apps as [App];
    await a.http.inject({ method: 'PUT', url: '/documents/docs/counters/c', headers, payload: { data: { n: 0 } } });
    const etags = new Set<string>();
    await onBoth(25, 100, async (app) => {
      const res = await app.http.inject({
        method: 'PATCH',
        url: '/documents/docs/counters/c',
        headers,
        payload: { transforms: { n: { increment: 1 } } },
      });
      etags.add(res.headers.etag as string);
      return res;
    });
    const stored = await a.http.inject({ method: 'GET', url: '/documents/docs/counters/c', headers });
    expect(stored.json().data).toEqual({ n: 5000 });
    expect(etags.size).toBe(5000);
  }, 120_000);

  it('2 × 10 clients × 50 tree increments end at exactly 1,000', async () => {
    const [, b] = apps as [App, App];
    await onBoth(10, 50, (app) =>
      app.http.inject({
        method: 'PUT',
        url: '/realtime/db/counters/t',
        headers,
        payload: { value: { '.sv': { increment: 1 } } },
      }),
    );
    const stored = await b.http.inject({ method: 'GET', url: '/realtime/db/counters/t', headers });
    expect(stored.json()).toMatchObject({ value: 1000 });
  }, 120_000);
});
