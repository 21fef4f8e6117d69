/**
 * Tree writes arriving in one event-loop turn share one commit (§4 under batching): the valid
 * ones take consecutive versions in arrival order and travel as one bus message, each refused one
 * (invalid value, failed precondition) is answered alone, and subscribers see every committed
 * write in version order. On every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import type { JsonValue } from '../../src/core/json.js';
import { commitChannel, decodeCommits } from '../../src/core/realtime/commit-event.js';
import { engines } from '../support/engines.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';

/** A value nested one level deeper than §0 allows. */
const tooDeep = (): JsonValue => {
  let value: JsonValue = 1;
  for (let i = 0; i < 65; i++) value = { k: value };
  return value;
};

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`realtime write batches on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    beforeAll(async () => {
      t = await startRealtimeApp(engine);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('commits the valid writes of one turn together and answers each refused one alone', async () => {
      const { tree, bus } = t.app.services;
      const projectId = t.project.projectId;
      const ws = await t.socket();
      await ws.request({ action: 'subscribe', path: 'batch', id: 1 });
      const before = await tree.currentVersion(projectId);
      const heard: string[] = [];
      const stop = await bus.subscribe(commitChannel(projectId), (message) => heard.push(message));
      try {
        // Called in one turn: all reach the commit queue before it runs.
        const results = await Promise.allSettled([
          tree.set(projectId, 'batch/a', 1),
          tree.set(projectId, 'batch/deep', tooDeep()),
          tree.set(projectId, 'batch/b', 2, undefined, { ifMatch: ['not-the-etag'] }),
          tree.patch(projectId, 'batch', { c: 3, 'p/x': 4 }),
          tree.set(projectId, 'batch/n', { '.sv': { increment: 5 } }),
          tree.delete(projectId, 'batch/gone'),
          tree.set(projectId, 'batch/n', { '.sv': { increment: 1 } }),
        ]);
        expect(results.map((result) => result.status)).toEqual([
          'fulfilled',
          'rejected',
          'rejected',
          'fulfilled',
          'fulfilled',
          'fulfilled',
          'fulfilled',
        ]);
        const reasonOf = (i: number) => (results[i] as PromiseRejectedResult).reason as AppError;
        expect(reasonOf(1)).toBeInstanceOf(AppError);
        expect(reasonOf(1).code).toBe('validation');
        expect(reasonOf(2).code).toBe('precondition_failed');
        // Consecutive versions in the order the writes reached the queue (a PATCH takes one await less).
        const versions = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.version] : []));
        const ascending = [...versions].sort((a, b) => a - b);
        expect(ascending).toEqual([1, 2, 3, 4, 5].map((n) => before + n));
        expect((results[3] as PromiseFulfilledResult<{ value: JsonValue }>).value.value).toMatchObject({ c: 3 });
        expect(heard).toHaveLength(1);
        expect(decodeCommits(heard[0] as string)?.map((commit) => commit.version)).toEqual(ascending);
      } finally {
        await stop();
      }
      const final = { a: 1, c: 3, p: { x: 4 }, n: 6 };
      expect((await tree.get(projectId, 'batch')).value).toEqual(final);
      const updates = (n: number) => ws.waitForCount((m) => m.event === 'update', n);
      await updates(6);
      const received = ws.events('update').map((m) => m.version);
      expect(received).toEqual([...received].sort((a, b) => (a ?? 0) - (b ?? 0)));
      expect(ws.copy).toEqual({ batch: final });
      await ws.close();
    });

    it('answers concurrent REST writes, a precondition failure among them, on their own', async () => {
      const url = (path: string) => `/realtime/db/rest/${path}`;
      const responses = await Promise.all([
        ...Array.from({ length: 20 }, (_, i) =>
          t.app.http.inject({ method: 'PUT', url: url(`k${i % 5}`), headers: t.headers, payload: { value: i } }),
        ),
        t.app.http.inject({
          method: 'PUT',
          url: url('k0'),
          headers: { ...t.headers, 'if-match': '"not-the-etag"' },
          payload: { value: 'refused' },
        }),
        t.app.http.inject({ method: 'PUT', url: url('deep'), headers: t.headers, payload: { value: tooDeep() } }),
      ]);
      expect(responses.map((res) => res.statusCode)).toEqual([...Array(20).fill(200), 412, 422]);
      const stored = await t.app.http.inject({ method: 'GET', url: '/realtime/db/rest', headers: t.headers });
      expect(stored.json().value).toEqual({ k0: 15, k1: 16, k2: 17, k3: 18, k4: 19 });
    });
  });
}
