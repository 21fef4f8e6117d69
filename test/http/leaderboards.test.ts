/** The §5 routes on every engine: shapes, validation and exact messages, permissions, aliases, isolation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { ManualClock } from '../support/clock.js';
import { engines } from '../support/engines.js';
import { definition, ladder } from '../support/leaderboards.js';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const DAY = 86_400_000;

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`leaderboard routes (§5) on ${engine.name}`, () => {
    let t: TestApp;
    const clock = new ManualClock(T0);
    const players: { id: number; headers: Record<string, string> }[] = [];
    beforeAll(async () => {
      t = await startTestApp(engine, { CDS_LEADERBOARD_RESET_CHECK_MS: '0' }, { clock });
      const { projectId } = t.project;
      const { leaderboards, accounts } = t.app.services;
      await leaderboards.create(projectId, definition('score'));
      await leaderboards.create(projectId, ladder('ladder'));
      for (const name of ['ann', 'bob', 'cat']) {
        const user = await accounts.createUser(projectId, { username: name, password: 'password-123' });
        const { access_token } = await accounts.issueToken(projectId, user.id);
        players.push({ id: user.id, headers: { ...t.headers, authorization: `Bearer ${access_token}` } });
      }
    });
    afterAll(async () => {
      await t?.close();
    });

    const get = (url: string, headers = t.headers) => t.app.http.inject({ method: 'GET', url, headers });
    const submit = (slug: string, value: unknown, headers = t.headers, prefix = '/leaderboards') =>
      t.app.http.inject({ method: 'POST', url: `${prefix}/${slug}/stats`, headers, payload: { value } as object });

    it('POST stats answers the caller’s me; the bundle has all six keys with unrequested ones null', async () => {
      const res = await submit('score', 120);
      expect(res.statusCode).toBe(200);
      const board = await t.app.services.storage.leaderboards.get(t.project.projectId, 'score');
      expect(res.json()).toEqual({
        leaderboard_id: board?.id,
        leaderboard_slug: 'score',
        leaderboard_name: 'Board score',
        user_id: t.userId,
        rank: 1,
        stat_value: 120,
        league: 'global',
        expired: false,
      });
      clock.advance(1);
      await submit('score', 300, players[0]?.headers);
      const bundle = await get('/leaderboards/score/bundle?include=me,meta');
      expect(bundle.statusCode).toBe(200);
      expect(bundle.headers['content-type']).toMatch(/^application\/json/);
      const body = bundle.json();
      expect(Object.keys(body).sort()).toEqual(['entries', 'leagues', 'me', 'meta', 'rewards', 'users']);
      expect(body).toMatchObject({
        leagues: null,
        rewards: null,
        entries: null,
        users: null,
        me: { rank: 2, stat_value: 120 },
      });
      expect(body.meta).toEqual({
        id: board?.id,
        slug: 'score',
        name: 'Board score',
        description: 'About score',
        type: 'CONTINUOUS',
        sort: 'desc',
        operator: 'best',
        reset: 'none',
        period: { start: new Date(T0).toISOString(), end: null },
        client_submit: true,
        stat_min: null,
        stat_max: null,
        join_required: false,
        max_participants: null,
        max_submissions: null,
        starts_at: null,
        ends_at: null,
      });
    });

    it('serves every section, with profiles on request, also under /client and with repeated include', async () => {
      const url =
        '/client/leaderboards/ladder/bundle?include=meta&include=leagues,rewards&include=entries,users,me&expand=profile';
      await submit('ladder', 7, players[1]?.headers, '/client/leaderboards');
      const res = await get(url, players[1]?.headers);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.leagues.map((l: { slug: string; users: number }) => [l.slug, l.users])).toEqual([
        ['bronze', 1],
        ['silver', 0],
        ['gold', 0],
      ]);
      expect(body.rewards[0]).toEqual({ league: 'gold', rank_from: 1, rank_to: 1, reward: { gems: 100 } });
      expect(body.entries).toEqual({
        pagination: { limit: 50, offset: 0, total: 1, has_more: false },
        league: 'bronze',
        entries: [
          {
            rank: 1,
            user_id: players[1]?.id,
            stat_value: 7,
            league: 'bronze',
            updated_at: new Date(T0 + 1).toISOString(),
            profile: { nickname: 'bob', avatar_url: null },
          },
        ],
      });
      expect(body.users).toEqual({
        pagination: { limit: 100, offset: 0, total: 1, has_more: false },
        league: 'bronze',
        users: [
          {
            rank: 1,
            user_id: players[1]?.id,
            stat_value: 7,
            league: 'bronze',
            profile: { nickname: 'bob', avatar_url: null },
          },
        ],
      });
      expect(body.me).toMatchObject({ user_id: players[1]?.id, rank: 1, league: 'bronze', expired: false });
      const users = await get('/client/leaderboards/ladder/users?source=assigned', players[1]?.headers);
      expect(users.json().users).toEqual([{ rank: 1, user_id: players[1]?.id, stat_value: 7, league: 'bronze' }]);
    });

    it.each([
      ['', 'include must name at least one of: meta, leagues, rewards, entries, users, me'],
      ['?include=', 'include must name at least one of: meta, leagues, rewards, entries, users, me'],
      ['?include=,', 'include must name at least one of: meta, leagues, rewards, entries, users, me'],
      ['?include=meta,foo', "Unknown include value 'foo'"],
      ['?include=Me', "Unknown include value 'Me'"],
    ])('bundle%s answers 400 with the §5 message', async (query, detail) => {
      const res = await get(`/leaderboards/score/bundle${query}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ detail });
    });

    it.each([
      ['limit=abc', 'limit'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['offset=-1', 'offset'],
      ['source=everyone', 'source'],
      ['expand=friends', 'expand'],
    ])('users?%s answers 422 naming the query parameter', async (query, name) => {
      for (const path of ['/leaderboards/score/users', '/leaderboards/score/bundle']) {
        const res = await get(`${path}?include=users&${query}`);
        expect(res.statusCode).toBe(422);
        expect(res.json().detail[0].loc).toEqual(['query', name]);
      }
    });

    it('pages the users list and computes has_more', async () => {
      await submit('score', 10, players[2]?.headers);
      const first = await get('/leaderboards/score/users?limit=2');
      expect(first.json()).toEqual({
        pagination: { limit: 2, offset: 0, total: 3, has_more: true },
        league: 'global',
        users: [
          { rank: 1, user_id: players[0]?.id, stat_value: 300, league: 'global' },
          { rank: 2, user_id: t.userId, stat_value: 120, league: 'global' },
        ],
      });
      const last = await get('/leaderboards/score/users?limit=2&offset=2');
      expect(last.json().pagination).toEqual({ limit: 2, offset: 2, total: 3, has_more: false });
      expect(last.json().users.map((u: { rank: number }) => u.rank)).toEqual([3]);
      expect((await get('/leaderboards/score/users?offset=50')).json().users).toEqual([]);
    });

    it('answers 400 for source=assigned on a CONTINUOUS board and 404 for unknown boards and leagues', async () => {
      const assigned = await get('/leaderboards/score/users?source=assigned');
      expect(assigned.statusCode).toBe(400);
      expect(assigned.json()).toEqual({ detail: 'source=assigned is only allowed for AT_RESET leaderboards' });
      for (const url of [
        '/leaderboards/nope/users',
        '/leaderboards/nope/bundle?include=meta',
        '/leaderboards/nope/history',
      ]) {
        const res = await get(url);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ detail: 'Leaderboard not found' });
      }
      for (const url of [
        '/leaderboards/score/users?league=gold',
        '/leaderboards/score/bundle?include=entries&league=gold',
      ]) {
        const res = await get(url);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ detail: 'League not found' });
      }
      const missing = await submit('nope', 1);
      expect(missing.statusCode).toBe(404);
    });

    it('validates the stat body (422) and the permissions of §1 (401, 403)', async () => {
      for (const body of [{}, { value: 'high' }, { value: null }]) {
        const res = await t.app.http.inject({
          method: 'POST',
          url: '/leaderboards/score/stats',
          headers: t.headers,
          payload: body,
        });
        expect(res.statusCode).toBe(422);
        expect(res.json().detail[0].loc[0]).toBe('body');
      }
      const anonymous = await t.app.http.inject({
        method: 'GET',
        url: '/leaderboards/score/users',
        headers: { 'x-client-id': t.project.clientId, 'x-client-secret': t.project.clientSecret },
      });
      expect(anonymous.statusCode).toBe(401);
      const { accounts } = t.app.services;
      await accounts.createRole(t.project.projectId, 'reader', ['client.leaderboard']);
      const reader = await accounts.createUser(t.project.projectId, {
        username: 'reader',
        password: 'password-123',
        roles: ['reader'],
      });
      const { access_token } = await accounts.issueToken(t.project.projectId, reader.id);
      const headers = { ...t.headers, authorization: `Bearer ${access_token}` };
      expect((await get('/leaderboards/score/users', headers)).statusCode).toBe(200);
      const denied = await submit('score', 1, headers);
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toEqual({ detail: "Permission 'client.leaderboard.submit' required" });
    });

    it('keeps projects apart: another project cannot see or write this project’s board', async () => {
      const other = await t.otherProject();
      expect((await get('/leaderboards/score/users', other.headers)).statusCode).toBe(404);
      expect((await submit('score', 1_000_000, other.headers)).statusCode).toBe(404);
      expect((await get('/leaderboards/score/users')).json().users[0].stat_value).toBe(300);
    });

    it('archives the period at its end and serves it at /history', async () => {
      const none = await get('/leaderboards/ladder/history', players[1]?.headers);
      expect(none.statusCode).toBe(404);
      expect(none.json()).toEqual({ detail: 'Period not found' });
      clock.set(Date.parse('2026-11-23T00:00:00.000Z'));
      expect((await get('/leaderboards/ladder/bundle?include=me', players[1]?.headers)).json().me.expired).toBe(true);
      expect(await t.app.services.leaderboards.runDueResets()).toBe(1);
      const history = await get('/client/leaderboards/ladder/history?expand=profile', players[1]?.headers);
      expect(history.statusCode).toBe(200);
      expect(history.json()).toEqual({
        period: { start: '2026-11-22T00:00:00.000Z', end: '2026-11-23T00:00:00.000Z' },
        archived_at: '2026-11-23T00:00:00.000Z',
        league: 'bronze',
        pagination: { limit: 100, offset: 0, total: 1, has_more: false },
        standings: [
          {
            rank: 1,
            user_id: players[1]?.id,
            stat_value: 7,
            league: 'bronze',
            updated_at: new Date(T0 + 1).toISOString(),
            reward: 'badge',
            profile: { nickname: 'bob', avatar_url: null },
          },
        ],
        me: {
          rank: 1,
          user_id: players[1]?.id,
          stat_value: 7,
          league: 'bronze',
          updated_at: new Date(T0 + 1).toISOString(),
          reward: 'badge',
        },
      });
      const byStart = await get('/leaderboards/ladder/history?period=2026-11-22T00:00:00.000Z', players[1]?.headers);
      expect(byStart.statusCode).toBe(200);
      expect((await get('/leaderboards/ladder/history?period=yesterday')).statusCode).toBe(422);
      // Bob was promoted to silver for the new period, where he is assigned without a stat.
      const users = await get('/leaderboards/ladder/users?source=assigned', players[1]?.headers);
      expect(users.json()).toEqual({
        pagination: { limit: 100, offset: 0, total: 1, has_more: false },
        league: 'silver',
        users: [{ rank: null, user_id: players[1]?.id, stat_value: null, league: 'silver' }],
      });
      clock.advance(DAY);
    });
  });
}
