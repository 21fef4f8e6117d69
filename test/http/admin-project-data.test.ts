/** Admin query, admin realtime REST and admin leaderboard reads (§13) on every engine: roles, tenants, no rules. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFixture, type TestAdmin } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

type Method = 'GET' | 'PUT' | 'PATCH' | 'DELETE' | 'POST';
const DENY_ALL = { documents: [], realtime: [] };

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`admin project data routes (§13) on ${engine.name}`, () => {
    let t: TestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    let base = '';
    beforeAll(async () => {
      t = await startTestApp(engine);
      f = await adminFixture(t);
      base = `/admin/projects/${f.projectId}`;
      for (const [id, level] of [
        ['a', 3],
        ['b', 1],
        ['c', 2],
      ] as const) {
        await t.app.http.inject({
          method: 'PUT',
          url: `/documents/docs/heroes/${id}`,
          headers: t.headers,
          payload: { data: { level, name: id } },
        });
      }
      // Every client read and write is denied from here on; admins are not held to rules.
      const rules = await call('PUT', `${base}/rules`, { rules: DENY_ALL }, f.owner);
      expect(rules.statusCode).toBe(200);
    });
    afterAll(async () => {
      await t?.close();
    });

    const call = (method: Method, url: string, payload?: unknown, admin: TestAdmin = f.viewer) =>
      t.app.http.inject({
        method,
        url,
        headers: admin.headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });

    it('runs a §2 query for any admin role, not subject to rules', async () => {
      expect((await t.app.http.inject({ url: '/documents/docs/heroes/a', headers: t.headers })).statusCode).toBe(403);
      const res = await call('GET', `${base}/query/heroes?where=level__gte:2&order_by=-level&limit=5`);
      expect(res.statusCode).toBe(200);
      expect(res.json().documents.map((d: { path: string }) => d.path)).toEqual(['heroes/a', 'heroes/c']);
      const all = await call('GET', `${base}/query/heroes?order_by=level&offset=1`);
      expect(all.json().documents.map((d: { path: string }) => d.path)).toEqual(['heroes/c', 'heroes/a']);
    });

    it('answers the §2 errors on a bad query: 400 for a bad where, 422 for a bad limit', async () => {
      const bad = await call('GET', `${base}/query/heroes?where=level__near:2`);
      expect(bad.statusCode).toBe(400);
      expect(typeof bad.json().detail).toBe('string');
      const limit = await call('GET', `${base}/query/heroes?limit=0`);
      expect(limit.statusCode).toBe(422);
      expect(limit.json().detail[0].loc).toEqual(['query', 'limit']);
    });

    it('reads and writes the realtime tree: writes need document.manage, reads any role, rules do not apply', async () => {
      const put = await call('PUT', `${base}/realtime/db/rooms/r1`, { value: { name: 'Lobby', players: 2 } }, f.editor);
      expect(put.statusCode).toBe(200);
      expect(put.json()).toEqual({ path: 'rooms/r1', value: { name: 'Lobby', players: 2 } });
      expect(put.headers.etag).toMatch(/^".+"$/);
      const patch = await call('PATCH', `${base}/realtime/db/rooms`, { value: { 'r1/players': 3, r2: 'x' } }, f.owner);
      expect(patch.statusCode).toBe(200);
      const shallow = await call('GET', `${base}/realtime/db/rooms?shallow=true`);
      expect(shallow.json()).toEqual({ path: 'rooms', value: { r1: true, r2: true } });
      expect(shallow.headers.etag).toBeUndefined();
      const root = await call('GET', `${base}/realtime/db`);
      expect(root.json()).toEqual({ path: '', value: { rooms: { r1: { name: 'Lobby', players: 3 }, r2: 'x' } } });
      expect((await t.app.http.inject({ url: '/realtime/db/rooms', headers: t.headers })).statusCode).toBe(403);

      expect((await call('PUT', `${base}/realtime/db/rooms/r3`, { value: 1 })).statusCode).toBe(403);
      expect((await call('DELETE', `${base}/realtime/db/rooms/r2`)).statusCode).toBe(403);
      const deleted = await call('DELETE', `${base}/realtime/db/rooms/r2`, undefined, f.editor);
      expect(deleted.json()).toEqual({ deleted: 'rooms/r2' });
      const stale = await call('PUT', `${base}/realtime/db/rooms/r1`, { value: 0 }, f.editor);
      expect(stale.statusCode).toBe(200);
      const precondition = await t.app.http.inject({
        method: 'PUT',
        url: `${base}/realtime/db/rooms/r1`,
        headers: { ...f.editor.headers, 'if-match': '"nope"' },
        payload: { value: 1 },
      });
      expect(precondition.statusCode).toBe(412);
    });

    it('hides the project from another organisation (404) and refuses client tokens (401)', async () => {
      for (const url of [`${base}/query/heroes`, `${base}/realtime/db/rooms`, `${base}/leaderboards`]) {
        const stranger = await call('GET', url, undefined, f.stranger);
        expect(stranger.statusCode).toBe(404);
        expect(stranger.json()).toEqual({ detail: 'Project not found' });
        expect((await t.app.http.inject({ url, headers: t.headers })).statusCode).toBe(401);
      }
    });

    it('lists boards and pages standings and history for a viewer (the §5 read shapes, lowest league)', async () => {
      const created = await call('POST', `${base}/leaderboards`, { slug: 'score', name: 'Score' }, f.editor);
      expect(created.statusCode).toBe(201);
      const others: number[] = [];
      for (let i = 0; i < 3; i++) {
        const user = await t.app.services.accounts.createUser(f.projectId, {
          username: `std${i}`,
          password: 'pw-123456',
        });
        others.push(user.id);
        const stat = await call(
          'POST',
          `${base}/leaderboards/score/stats`,
          { user_id: user.id, value: 10 * (i + 1) },
          f.editor,
        );
        expect(stat.statusCode).toBe(200);
      }
      const list = await call('GET', `${base}/leaderboards`);
      expect(list.statusCode).toBe(200);
      expect(list.json().leaderboards.map((b: { slug: string }) => b.slug)).toContain('score');
      expect((await call('GET', `${base}/leaderboards/score`)).json().slug).toBe('score');

      const page = await call('GET', `${base}/leaderboards/score/users?limit=2&offset=1&expand=profile`);
      expect(page.statusCode).toBe(200);
      expect(page.json()).toMatchObject({
        league: 'global',
        pagination: { limit: 2, offset: 1, total: 3, has_more: false },
        users: [
          { rank: 2, user_id: others[1], stat_value: 20, profile: { nickname: expect.any(String) } },
          { rank: 3, user_id: others[0], stat_value: 10 },
        ],
      });
      expect((await call('GET', `${base}/leaderboards/score/history`)).statusCode).toBe(404);
      const reset = await call('POST', `${base}/leaderboards/score/reset`, {}, f.editor);
      expect(reset.statusCode).toBe(200);
      const history = await call('GET', `${base}/leaderboards/score/history?limit=1`);
      expect(history.statusCode).toBe(200);
      expect(history.json()).toMatchObject({
        league: 'global',
        me: null,
        pagination: { limit: 1, total: 3, has_more: true },
        standings: [{ rank: 1, user_id: others[2], stat_value: 30 }],
      });
      // Writes still need leaderboard.manage.
      expect((await call('POST', `${base}/leaderboards/score/reset`, {})).statusCode).toBe(403);
    });

    it('reads the window around a named user and a chosen set of users for a viewer (§18, as a server key reads them)', async () => {
      expect((await call('POST', `${base}/leaderboards`, { slug: 'near', name: 'Near' }, f.editor)).statusCode).toBe(
        201,
      );
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) {
        const user = await t.app.services.accounts.createUser(f.projectId, {
          username: `near${i}`,
          password: 'pw-123456',
        });
        ids.push(user.id);
        // near0 leads: stats 60, 50, …, 10.
        const stat = await call(
          'POST',
          `${base}/leaderboards/near/stats`,
          { user_id: user.id, value: 60 - 10 * i },
          f.editor,
        );
        expect(stat.statusCode).toBe(200);
      }
      const [first, second, third, fourth, fifth] = ids as [number, number, number, number, number, number];
      const around = await call('GET', `${base}/leaderboards/near/around?user_id=${fourth}&radius=1&expand=profile`);
      expect(around.statusCode).toBe(200);
      expect(around.json()).toMatchObject({
        league: 'global',
        me: { user_id: fourth, rank: 4, stat_value: 30, league: 'global', leaderboard_slug: 'near' },
        users: [
          { rank: 3, user_id: third, profile: { nickname: expect.any(String) } },
          { rank: 4, user_id: fourth },
          { rank: 5, user_id: fifth },
        ],
      });
      // Shifted inside the league at the top; a user without a stat sees the bottom radius + 1.
      const top = await call('GET', `${base}/leaderboards/near/around?user_id=${first}&radius=1`);
      expect(top.json().users.map((u: { rank: number }) => u.rank)).toEqual([1, 2, 3]);
      const unranked = await call('GET', `${base}/leaderboards/near/around?user_id=${t.userId}&radius=1`);
      expect(unranked.json()).toMatchObject({
        me: { user_id: t.userId, rank: null },
        users: [{ rank: 5 }, { rank: 6 }],
      });
      // The user must be named, and be one of the project's.
      expect((await call('GET', `${base}/leaderboards/near/around?radius=1`)).statusCode).toBe(422);
      const unknown = await call('GET', `${base}/leaderboards/near/around?user_id=999999`);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ detail: 'User not found' });
      expect((await call('GET', `${base}/leaderboards/none/around?user_id=${first}`)).statusCode).toBe(404);
      expect(
        (await call('GET', `${base}/leaderboards/near/around?user_id=${first}`, undefined, f.stranger)).statusCode,
      ).toBe(404);

      // A chosen set: in rank order, a user without a stat last (in the lowest league), unknown ids left out.
      const chosen = await call(
        'GET',
        `${base}/leaderboards/near/users?user_ids=${fifth},${t.userId},999999,${second}`,
      );
      expect(chosen.statusCode).toBe(200);
      expect(chosen.json()).toMatchObject({
        league: 'global',
        pagination: { total: 3 },
        users: [
          { rank: 2, user_id: second, stat_value: 50 },
          { rank: 5, user_id: fifth, stat_value: 20 },
          { rank: null, user_id: t.userId, stat_value: null },
        ],
      });
    });
  });
}
