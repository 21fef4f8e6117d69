/**
 * `POST /admin/projects/{id}/rules/test` (§9) on every engine: decisions as a named user under
 * given or current rules, `existing` standing in for stored documents and values, the lowest
 * granting rule, and the 400 / 422 answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFixture } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

const rule = (match: string, allow: Record<string, string>) => ({ match, allow });
const ALLOW = (rule: number) => ({ allowed: true, rule });
const DENY = { allowed: false, rule: null };

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`rules test route (§9) on ${engine.name}`, () => {
    let t: TestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    let url = '';
    let me = 0;
    let other = 0;
    beforeAll(async () => {
      t = await startTestApp(engine);
      f = await adminFixture(t);
      url = `/admin/projects/${f.projectId}/rules/test`;
      me = t.userId;
      other = (await t.app.services.accounts.createUser(f.projectId, { username: 'someone', password: 'password-123' }))
        .id;
      await t.app.services.documents.put(f.projectId, `posts/p1`, { owner: String(other), score: 5 });
      await t.app.services.tree.set(f.projectId, 'players/p1', { owner: String(other) });
    });
    afterAll(async () => {
      await t?.close();
    });

    const test = (body: object) => t.app.http.inject({ method: 'POST', url, headers: f.viewer.headers, payload: body });
    const results = async (body: object) => {
      const res = await test(body);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().results;
    };
    const doc = (method: string, path: string, user_id: number, extra: object = {}) => ({
      area: 'documents',
      method,
      path,
      user_id,
      ...extra,
    });

    it('decides an owner-only rule per user, under the given rules', async () => {
      const rules = { documents: [rule('users/{uid}', { read: 'request.auth.uid == uid' })] };
      const cases = [
        doc('get', `users/${me}`, me),
        doc('get', `users/${other}`, me),
        doc('list', `/users//${me}/`, me),
      ];
      expect(await results({ rules, cases })).toEqual([ALLOW(0), DENY, ALLOW(0)]);
      // No write op in the rules: a write is denied.
      expect(await results({ rules, cases: [doc('update', `users/${me}`, me, { data: {} })] })).toEqual([DENY]);
    });

    it('uses the current ruleset without `rules` (the open one until set)', async () => {
      expect(await results({ cases: [doc('delete', 'posts/p1', me)] })).toEqual([ALLOW(0)]);
    });

    it('reads the stored document unless `existing` stands in for it (null: absent)', async () => {
      const rules = {
        documents: [
          rule('posts/{id}', { update: 'resource.data.owner == request.auth.uid', create: 'resource == null' }),
        ],
      };
      const cases = [
        doc('update', 'posts/p1', other, { data: { x: 1 } }),
        doc('update', 'posts/p1', me, { data: { x: 1 } }),
        doc('update', 'posts/p1', me, { existing: { owner: String(me) } }),
        doc('create', 'posts/p1', me),
        doc('create', 'posts/p1', me, { existing: null }),
        doc('create', 'posts/p2', me),
      ];
      expect(await results({ rules, cases })).toEqual([ALLOW(0), DENY, ALLOW(0), DENY, ALLOW(0), ALLOW(0)]);
    });

    it('gives `data` as request.resource.data and the path variables to the expression', async () => {
      const rules = {
        documents: [rule('scores/{uid}', { write: 'uid == request.auth.uid && request.resource.data.score < 100' })],
      };
      const cases = [
        doc('create', `scores/${me}`, me, { data: { score: 10 } }),
        doc('create', `scores/${me}`, me, { data: { score: 1000 } }),
        doc('create', `scores/${other}`, me, { data: { score: 10 } }),
      ];
      expect(await results({ rules, cases })).toEqual([ALLOW(0), DENY, DENY]);
    });

    it('answers the lowest index among the granting rules', async () => {
      const rules = {
        documents: [
          rule('posts/{id}', { read: 'false' }),
          rule('{c}/{id}', { get: "request.auth.roles.exists(r, r == 'player')" }),
          rule('{path=**}', { read: 'true' }),
        ],
      };
      expect(await results({ rules, cases: [doc('get', 'posts/p1', me), doc('list', 'posts/p1', me)] })).toEqual([
        ALLOW(1),
        ALLOW(2),
      ]);
    });

    it('decides realtime cases with ancestor grants, the stored value or `existing`, and the written value', async () => {
      const rules = {
        realtime: [
          rule('players/{id}', { write: 'resource.value.owner == request.auth.uid', read: 'true' }),
          rule('lobby', { write: "request.resource.value == 'ready'" }),
        ],
      };
      const rt = (method: string, path: string, user_id: number, extra: object = {}) => ({
        area: 'realtime',
        method,
        path,
        user_id,
        ...extra,
      });
      const cases = [
        rt('read', 'players/p1/name', me),
        rt('read', 'players', me),
        rt('write', 'players/p1', other, { data: 1 }),
        rt('write', 'players/p1', me, { data: 1 }),
        rt('write', 'players/p1', me, { existing: { owner: String(me) } }),
        rt('write', 'players/p1', other, { existing: null }),
        rt('write', '/lobby/', me, { data: 'ready' }),
        rt('write', 'lobby', me),
      ];
      expect(await results({ rules, cases })).toEqual([ALLOW(0), DENY, ALLOW(0), DENY, ALLOW(0), DENY, ALLOW(1), DENY]);
    });

    it('refuses an unknown user and a method of another area with a 422 naming the case', async () => {
      const unknown = await test({ cases: [doc('get', 'posts/p1', me), doc('get', 'posts/p1', 999_999)] });
      expect(unknown.statusCode).toBe(422);
      expect(unknown.json().detail[0].loc).toEqual(['body', 'cases', 1, 'user_id']);
      const method = await test({ cases: [{ area: 'realtime', method: 'get', path: 'a', user_id: me }] });
      expect(method.statusCode).toBe(422);
      expect(method.json().detail[0].loc).toEqual(['body', 'cases', 0, 'method']);
      expect((await test({ cases: [{ ...doc('get', 'a/b', me), area: 'files' }] })).statusCode).toBe(422);
    });

    it('refuses invalid given rules with the PUT’s 400, and a bad path with a 400 naming the case', async () => {
      const bad = { documents: [rule('a/{b}', { read: 'true' }), rule('x', { write: 'nope' })] };
      const res = await test({ rules: bad, cases: [doc('get', 'posts/p1', me)] });
      expect(res.statusCode).toBe(400);
      const put = await t.app.http.inject({
        method: 'PUT',
        url: `/admin/projects/${f.projectId}/rules`,
        headers: f.owner.headers,
        payload: { rules: bad },
      });
      expect(res.json()).toEqual(put.json());
      expect(res.json().detail).toMatch(/^documents\[1\]\.allow\.write: /);
      const path = await test({ cases: [doc('get', 'posts', me)] });
      expect(path.statusCode).toBe(400);
      expect(path.json().detail).toMatch(/^cases\[0\]\.path: /);
    });
  });
}
