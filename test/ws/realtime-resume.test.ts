/** Versions and resume (§4): a reconnecting client replays what it missed from the change log. */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import { engines } from '../support/engines.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`realtime resume (§4) on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    let small: RealtimeTestApp;
    beforeAll(async () => {
      t = await startRealtimeApp(engine);
      small = await startRealtimeApp(engine, { CDS_REALTIME_LOG_MAX_WRITES: '50' });
    });
    afterAll(async () => {
      await t?.close();
      await small?.close();
    });

    const stored = async (app: RealtimeTestApp, path: string): Promise<JsonValue> =>
      (await app.app.services.tree.snapshot(app.project.projectId, path)).value;

    it('every commit takes a larger version; init and updates carry it', async () => {
      const ws = await t.socket();
      const init = await ws.request({ action: 'subscribe', path: 'ver', id: 1 });
      const tree = t.app.services.tree;
      const first = await tree.set(t.project.projectId, 'ver/a', 1);
      const nothing = await tree.delete(t.project.projectId, 'never/there');
      const patched = await tree.patch(t.project.projectId, 'ver', {});
      expect(first.version).toBe((init.version ?? 0) + 1);
      expect(nothing.version).toBeGreaterThan(first.version);
      expect(patched.version).toBeGreaterThan(nothing.version);
      await ws.waitForCount((m) => m.event === 'update', 1);
      expect(ws.events('update')[0]?.version).toBe(first.version);
      await ws.close();
    });

    it('after 500 missed writes, subscribe with since replays exactly the missed updates', async () => {
      const { projectId } = t.project;
      const tree = t.app.services.tree;
      const first = await t.socket();
      await first.request({ action: 'subscribe', path: 'res', id: 1 });
      for (let i = 0; i < 10; i++) await tree.set(projectId, `res/k${i}`, i);
      await first.waitForCount((m) => m.event === 'update', 10);
      const since = first.events('update').at(-1)?.version ?? 0;
      const copy = first.copy;
      await first.close();

      let concerning = 0;
      for (let i = 0; i < 500; i++) {
        if (i % 5 === 0) {
          await tree.set(projectId, `elsewhere/${i}`, i);
        } else if (i % 7 === 0) {
          await tree.patch(projectId, '', { [`res/k${i % 13}`]: { i }, [`beside/${i}`]: i });
          concerning += 1;
        } else if (i % 11 === 0) {
          await tree.delete(projectId, `res/k${i % 13}`);
          concerning += 1;
        } else {
          await tree.set(projectId, `res/k${i % 13}/v`, [i, `w${i}`]);
          concerning += 1;
        }
      }

      const second = await t.socket();
      second.copy = copy;
      const answer = await second.request({ action: 'subscribe', path: 'res', id: 2, since });
      expect(answer).toEqual({ event: 'resume', path: 'res', version: since, id: 2 });
      await second.waitForCount((m) => m.event === 'update', concerning);
      await sleep(50);
      const replayed = second.events('update');
      expect(replayed).toHaveLength(concerning);
      expect(second.events('init')).toHaveLength(0);
      const versions = replayed.map((m) => m.version ?? 0);
      expect(versions.every((v, i) => v > since && (i === 0 || v > (versions[i - 1] ?? 0)))).toBe(true);
      expect(isDeepStrictEqual(second.copy, { res: await stored(t, 'res') })).toBe(true);

      // Live updates follow the replay.
      await tree.set(projectId, 'res/live', true);
      await second.waitForCount((m) => m.event === 'update', concerning + 1);
      expect(second.events('update').at(-1)).toMatchObject({ path: 'res/live', value: true });
      await second.close();
    });

    it('answers init when the log no longer covers the gap, or since is negative or in the future', async () => {
      const { projectId } = small.project;
      const tree = small.app.services.tree;
      const first = await small.socket();
      const init = await first.request({ action: 'subscribe', path: 'gap', id: 1 });
      await first.close();
      for (let i = 0; i < 100; i++) await tree.set(projectId, `gap/${i % 10}`, i);

      const second = await small.socket();
      const answer = await second.request({ action: 'subscribe', path: 'gap', id: 2, since: init.version });
      expect(answer).toMatchObject({ event: 'init', path: 'gap', id: 2 });
      expect(isDeepStrictEqual(answer.value, await stored(small, 'gap'))).toBe(true);
      const current = await tree.currentVersion(projectId);
      expect(answer.version).toBe(current);

      for (const since of [-1, current + 5]) {
        const reply = await second.request({ action: 'subscribe', path: 'gap', id: `s${since}`, since });
        expect(reply).toMatchObject({ event: 'init', version: current });
      }
      const covered = await second.request({ action: 'subscribe', path: 'gap', id: 'c', since: current - 10 });
      expect(covered).toEqual({ event: 'resume', path: 'gap', version: current - 10, id: 'c' });
      await second.close();
    });
  });
}
