/**
 * Realtime GET of a large subtree (§3, §11 ETag) on two app instances over one PostgreSQL schema:
 * the JSON an instance keeps between GETs (`CDS_REALTIME_READ_CACHE_MB`, on by default) never
 * hides a write made through the other instance, which it hears of only through the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createProjectWithPlayer } from '../support/app.js';
import { postgresEngine } from '../support/engines.js';
import { redisUnavailable } from '../support/services.js';
import { startTwoInstances, type TwoInstances } from '../support/two-instances.js';

const unavailable = postgresEngine.unavailable ?? (await redisUnavailable());

/** A room of 400 leaves: about 6 KB of JSON, large enough to be kept. */
const room = (seed: number) => Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`p${i}`, seed + i]));

describe.skipIf(unavailable)('large subtree GETs on two instances over one PostgreSQL', () => {
  let instances: TwoInstances;
  let headers: Record<string, string>;
  beforeAll(async () => {
    instances = await startTwoInstances();
    headers = (await createProjectWithPlayer(instances.apps[0] as App, 'org-tree-reads', 'two')).headers;
  });
  afterAll(async () => {
    await instances?.close();
  });

  it('answers every write made through the other instance at, below or above the path, and keeps its answer beside it', async () => {
    const [a, b] = instances.apps as [App, App];
    const put = (url: string, value: unknown) =>
      a.http.inject({ method: 'PUT', url: `/realtime/db/${url}`, headers, payload: { value } });
    const read = async () => {
      const res = await b.http.inject({ method: 'GET', url: '/realtime/db/rooms/r1', headers });
      expect(res.statusCode).toBe(200);
      return { value: res.json().value as Record<string, unknown>, etag: res.headers.etag };
    };
    await put('rooms/r1', room(0));
    const first = await read();
    expect(first.value).toEqual(room(0));
    await put('rooms/r10', 'a sibling whose name starts with r1');
    expect(await read()).toEqual(first);

    await put('rooms/r1/p7', 'below');
    const below = await read();
    expect(below.value).toEqual({ ...room(0), p7: 'below' });
    expect(below.etag).not.toBe(first.etag);

    await put('rooms', { r1: room(5) });
    expect((await read()).value).toEqual(room(5));
    await a.http.inject({ method: 'DELETE', url: '/realtime/db/rooms', headers });
    expect((await read()).value).toBeNull();
  }, 60_000);
});
