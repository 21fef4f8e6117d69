/**
 * Regression tests for what the property-based fuzzing (test/fuzz) found, one per bug, on each
 * engine: each answered a 5xx or broke §0's error shape before its fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmin, orgOf } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';
import { definition } from '../support/leaderboards.js';

const UNSTORABLE = 'Strings and keys may not contain the NUL character or unpaired surrogates';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`inputs the fuzzing found, on ${engine.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(engine);
      await t.app.services.leaderboards.create(t.project.projectId, definition('score'));
    });
    afterAll(async () => {
      await t?.close();
    });

    const send = (method: string, url: string, body?: unknown, headers: Record<string, string> = t.headers) =>
      t.app.http.inject({
        method: method as 'GET',
        url,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });

    it('answers a URL whose percent-encoding is not UTF-8 with the §0 400 and a request id', async () => {
      for (const url of [
        '/documents/docs/%C3',
        '/realtime/db/%%41',
        '/document-store/1/1/docs/%FF',
        '/no/such/%E2%82',
      ]) {
        const res = await t.app.http.inject({ method: 'GET', url, headers: { ...t.headers, 'x-request-id': 'req-1' } });
        expect([url, res.statusCode, res.json()]).toEqual([
          url,
          400,
          { detail: 'Malformed URL: invalid percent-encoding' },
        ]);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.headers['x-request-id']).toBe('req-1');
      }
    });

    it('refuses NUL and lone surrogates in a profile with 422 and keeps the profile (PostgreSQL answered 500)', async () => {
      for (const nickname of ['a\u0000b', '\ud800x']) {
        const res = await send('PATCH', '/auth/me', { nickname });
        expect(res.statusCode).toBe(422);
        expect(res.json()).toEqual({ detail: [{ loc: ['body', 'nickname'], msg: UNSTORABLE, type: 'storableText' }] });
      }
      expect((await send('GET', '/auth/me')).json().nickname).toBe('player_main');
      const client = { 'x-client-id': t.project.clientId, 'x-client-secret': t.project.clientSecret };
      const signup = await send(
        'POST',
        '/auth/signup',
        { username: 'nul_user', password: 'password-123', nickname: '\u0000' },
        client,
      );
      expect(signup.statusCode).toBe(422);
      const guest = await send('POST', '/auth/guest', { device_id: 'dev\u0000ice' }, client);
      expect(guest.statusCode).toBe(422);
    });

    it('refuses NUL in query and path parameters with 422, never 500', async () => {
      const where = await send('GET', '/documents/query/c?where=name__exact:a%00b');
      expect(where.statusCode).toBe(422);
      expect(where.json().detail[0].loc[0]).toBe('query');
      const league = await send('GET', '/leaderboards/score/users?league=%00');
      expect(league.statusCode).toBe(422);
      const slug = await send('GET', '/leaderboards/sc%00re/bundle');
      expect(slug.statusCode).toBeLessThan(500);
      expect(Object.keys(slug.json())).toEqual(['detail']);
    });

    it('answers ids and numbers beyond what the stores hold with a 4xx, never 500 (PostgreSQL answered 500)', async () => {
      const owner = await createAdmin(t, await orgOf(t, t.project.projectId), 'owner');
      const project = `/admin/projects/${t.project.projectId}`;
      const huge = [2 ** 31, 2 ** 53, 1.7976931348623157e308];
      for (const userId of huge) {
        const stats = await send(
          'POST',
          `${project}/leaderboards/score/stats`,
          { user_id: userId, value: 1 },
          owner.headers,
        );
        expect([userId, stats.statusCode]).toEqual([userId, 422]);
        const rules = await send(
          'POST',
          `${project}/rules/test`,
          { cases: [{ area: 'documents', method: 'get', path: 'a/b', user_id: userId }] },
          owner.headers,
        );
        expect([userId, rules.statusCode]).toEqual([userId, 422]);
      }
      const board = (leagues: unknown, rewards: unknown) => ({ slug: 'big', name: 'Big', leagues, rewards });
      for (const body of [
        board([{ slug: 'g', name: 'G', order: 2 ** 31 }], []),
        board([{ slug: 'g', name: 'G', promote_top: 2 ** 31 }], []),
        board([{ slug: 'g', name: 'G' }], [{ league: 'g', rank_from: 1, rank_to: 2 ** 31, reward: 1 }]),
      ]) {
        const created = await send('POST', `${project}/leaderboards`, body, owner.headers);
        expect([JSON.stringify(body), created.statusCode]).toEqual([JSON.stringify(body), 422]);
      }
      for (const id of ['2147483648', '9999999999999999']) {
        for (const url of [
          `/admin/projects/${id}`,
          `${project}/users/${id}`,
          `${project}/server-keys/${id}`,
          `${project}/indexes/${id}`,
        ]) {
          const method = url.includes('keys') || url.includes('indexes') ? 'DELETE' : 'GET';
          const res = await send(method, url, undefined, owner.headers);
          expect([url, res.statusCode]).toEqual([url, 404]);
        }
      }
      const numbers = ['1e308', '1.7976931348623157e%2B308', '9223372036854775808', '2147483648'];
      for (const n of numbers) {
        for (const url of [
          `/documents/query/c?offset=${n}`,
          `/documents/query/c?limit=${n}`,
          `/documents/collections/c?limit=${n}`,
          `/leaderboards/score/users?offset=${n}`,
          `/leaderboards/score/users?limit=${n}`,
          `/leaderboards/score/history?limit=${n}`,
          `${project}/users?page=${n}`,
        ]) {
          const res = await send('GET', url, undefined, url.startsWith('/admin') ? owner.headers : t.headers);
          expect([url, res.statusCode < 500]).toEqual([url, true]);
          if (res.statusCode >= 400) expect(Object.keys(res.json())).toEqual(['detail']);
        }
      }
    });
  });
}
