/**
 * Access rules management (§9) on every engine: GET at revision 0, PUT / GET / revisions, each
 * class of invalid ruleset with its exact 400 location, the roles, and the test route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPEN_RULESET } from '../../src/core/rules/ruleset.js';
import { adminFixture, type TestAdmin } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

type Method = 'GET' | 'PUT' | 'POST';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const rule = (match: string, allow: Record<string, string>) => ({ match, allow });
const OWNER_ONLY = {
  documents: [rule('users/{uid}', { read: 'request.auth.uid == uid', write: 'request.auth.uid == uid' })],
  realtime: [rule('players/{uid}', { read: 'true', write: 'request.auth.uid == uid' })],
};

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`access rules administration (§9) on ${engine.name}`, () => {
    let t: TestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    let base = '';
    let other = 0;
    beforeAll(async () => {
      t = await startTestApp(engine);
      f = await adminFixture(t);
      base = `/admin/projects/${f.projectId}/rules`;
      other = (
        await t.app.services.accounts.createUser(f.projectId, { username: 'other_one', password: 'password-123' })
      ).id;
    });
    afterAll(async () => {
      await t?.close();
    });

    const call = (method: Method, url: string, payload?: unknown, admin: TestAdmin = f.editor) =>
      t.app.http.inject({
        method,
        url,
        headers: admin.headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    /** A fresh project of the fixture's organisation, for tests that count revisions. */
    const freshProject = async () => {
      const created = await call('POST', `/admin/orgs/${f.orgId}/projects`, { name: 'rules' }, f.owner);
      return `/admin/projects/${created.json().project_id}/rules`;
    };

    it('answers the open ruleset at revision 0 for a project that never set rules, with no revisions', async () => {
      const url = await freshProject();
      const res = await call('GET', url, undefined, f.viewer);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ rules: OPEN_RULESET, revision: 0, updated_at: null });
      expect((await call('GET', `${url}/revisions`, undefined, f.viewer)).json()).toEqual({ revisions: [] });
    });

    it('numbers every accepted PUT (identical rules too) and lists revisions newest first', async () => {
      const url = await freshProject();
      const first = await call('PUT', url, { rules: OWNER_ONLY });
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({ rules: OWNER_ONLY, revision: 1, updated_at: expect.stringMatching(ISO_MS) });
      expect((await call('GET', url, undefined, f.viewer)).json()).toEqual(first.json());
      const same = await call('PUT', url, { rules: OWNER_ONLY }, f.owner);
      expect(same.json().revision).toBe(2);
      // A missing area counts as [].
      const partial = await call('PUT', url, { rules: { realtime: [] } });
      expect(partial.json()).toMatchObject({ rules: { documents: [], realtime: [] }, revision: 3 });
      const listed = (await call('GET', `${url}/revisions`, undefined, f.viewer)).json().revisions;
      expect(listed.map((r: { revision: number }) => r.revision)).toEqual([3, 2, 1]);
      expect(listed[2]).toEqual(first.json());
      for (const item of listed) expect(item.updated_at).toMatch(ISO_MS);
    });

    it('keeps at least the last 20 revisions; a rollback is a PUT of an older one’s rules', async () => {
      const url = await freshProject();
      for (let i = 1; i <= 23; i++) {
        const rules = { documents: [rule(`notes/n${i}`, { read: 'true' })] };
        expect((await call('PUT', url, { rules })).json().revision).toBe(i);
      }
      const listed = (await call('GET', `${url}/revisions`)).json().revisions as { revision: number; rules: object }[];
      expect(listed.length).toBeGreaterThanOrEqual(20);
      expect(listed.slice(0, 20).map((r) => r.revision)).toEqual(Array.from({ length: 20 }, (_, i) => 23 - i));
      const older = listed.find((r) => r.revision === 5);
      const rollback = await call('PUT', url, { rules: older?.rules });
      expect(rollback.json()).toMatchObject({ revision: 24, rules: older?.rules });
    });

    it.each([
      [
        'an unknown op',
        { documents: [rule('a/{b}', { read: 'true' }), rule('a/{b}', {}), rule('x/{y}', { frob: 'true' })] },
        'documents[2].allow.frob: unknown op',
      ],
      ['an unknown top-level key', { documents: [], extra: [] }, 'extra: unknown key'],
      [
        'an unknown key in a rule',
        { realtime: [{ match: 'a', allow: {}, when: 'x' }] },
        'realtime[0].when: unknown key',
      ],
      ['a bad pattern', { realtime: [rule('a/{rest=**}/b', { read: 'true' })] }, 'realtime[0].match: '],
      [
        'a segment part literal, part variable',
        { documents: [rule('a{b}/c', { read: 'true' })] },
        'documents[0].match: ',
      ],
      [
        'a duplicate variable',
        { documents: [rule('{a}/{a}', { read: 'true' })] },
        "documents[0].match: duplicate variable 'a'",
      ],
      [
        'an expression that does not compile',
        { documents: [rule('a/{b}', { write: 'request.auth.uid ==' })] },
        'documents[0].allow.write: ',
      ],
      [
        'an unknown variable',
        { documents: [rule('a/{b}', { update: 'c == "x"' })] },
        'documents[0].allow.update: Unknown variable: c',
      ],
      [
        'an expression over 2,000 characters',
        { documents: [rule('a/{b}', { get: `'${'x'.repeat(2001)}' == 'y'` })] },
        'documents[0].allow.get: longer than 2000 characters',
      ],
      [
        'more than 500 rules',
        { realtime: Array.from({ length: 501 }, () => rule('a', { read: 'true' })) },
        'realtime: more than 500 rules',
      ],
    ])('refuses %s with a 400 naming where, and changes nothing', async (_name, rules, detail) => {
      const before = (await call('GET', base)).json();
      const res = await call('PUT', base, { rules });
      expect(res.statusCode).toBe(400);
      expect(res.json().detail.startsWith(detail)).toBe(true);
      expect((await call('GET', base)).json()).toEqual(before);
    });

    it('refuses a `rules` value that is not an object with a 422', async () => {
      for (const rules of [[], 'x', null, 3]) {
        const res = await call('PUT', base, { rules });
        expect(res.statusCode).toBe(422);
        expect(res.json().detail[0].loc).toEqual(['body', 'rules']);
      }
      expect((await call('PUT', base, {})).statusCode).toBe(422);
    });

    it('lets a viewer read and test rules but not set them; strangers see no project', async () => {
      expect((await call('GET', base, undefined, f.viewer)).statusCode).toBe(200);
      expect((await call('GET', `${base}/revisions`, undefined, f.viewer)).statusCode).toBe(200);
      const put = await call('PUT', base, { rules: OWNER_ONLY }, f.viewer);
      expect(put.statusCode).toBe(403);
      const testCase = { area: 'documents', method: 'get', path: 'users/1', user_id: t.userId };
      expect((await call('POST', `${base}/test`, { cases: [testCase] }, f.viewer)).statusCode).toBe(200);
      for (const [method, url] of [
        ['GET', base],
        ['PUT', base],
        ['GET', `${base}/revisions`],
        ['POST', `${base}/test`],
      ] as const) {
        const res = await call(method, url, method === 'GET' ? undefined : { rules: {}, cases: [] }, f.stranger);
        expect(res.statusCode).toBe(404);
      }
      expect((await t.app.http.inject({ method: 'GET', url: base, headers: t.headers })).statusCode).toBe(401);
    });

    it('puts a PUT in force at once on the instance that answered it', async () => {
      const res = await call('PUT', base, { rules: OWNER_ONLY });
      const compiled = await t.app.services.rules.compiled(f.projectId);
      expect(compiled.rules).toEqual(OWNER_ONLY);
      expect(compiled.documentCheck('get', `users/${t.userId}`).decide(facts(t.userId)).allowed).toBe(true);
      expect(compiled.documentCheck('get', `users/${other}`).decide(facts(t.userId)).allowed).toBe(false);
      expect(res.json().revision).toBe((await call('GET', base)).json().revision);
    });
  });
}

/** Rule facts of a read by user `uid` of a missing document. */
function facts(uid: number) {
  return {
    auth: { uid: String(uid), username: 'x', roles: ['player'] },
    time: new Date(),
    resource: null,
    requestResource: null,
  };
}
