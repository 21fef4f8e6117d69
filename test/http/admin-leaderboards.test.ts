/** Leaderboard administration (§6) on every engine: create, edit with re-homing, stats for any user, reset now. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFixture, type TestAdmin } from '../support/admin.js';
import { createProjectWithPlayer, startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

type Method = 'GET' | 'POST' | 'PATCH';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`leaderboard administration (§6) on ${engine.name}`, () => {
    let t: TestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    let base = '';
    const players: number[] = [];
    beforeAll(async () => {
      t = await startTestApp(engine);
      f = await adminFixture(t);
      base = `/admin/projects/${f.projectId}/leaderboards`;
      players.push(t.userId);
      for (let i = 0; i < 5; i++) {
        const user = await t.app.services.accounts.createUser(f.projectId, {
          username: `lb_player${i}`,
          password: 'password-123',
        });
        players.push(user.id);
      }
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
    const bundle = (slug: string, include: string, headers = t.headers) =>
      t.app.http.inject({ method: 'GET', url: `/leaderboards/${slug}/bundle?include=${include}`, headers });
    const submit = (slug: string, userId: number, value: number) =>
      call('POST', `${base}/${slug}/stats`, { user_id: userId, value });

    it('creates a board with the §5 defaults (one league `global`)', async () => {
      const res = await call('POST', base, { slug: 'plain', name: 'Plain' });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({
        slug: 'plain',
        name: 'Plain',
        description: '',
        type: 'CONTINUOUS',
        sort: 'desc',
        operator: 'best',
        reset: 'none',
        period: { end: null },
        leagues: [{ slug: 'global', name: 'Global', order: 0, min_stat: null, promote_top: null, demote_bottom: null }],
        rewards: [],
        client_submit: true,
        stat_min: null,
        stat_max: null,
      });
      const meta = (await bundle('plain', 'meta')).json().meta;
      expect(meta).toMatchObject({
        id: res.json().id,
        slug: 'plain',
        period: res.json().period,
        client_submit: true,
        stat_min: null,
        stat_max: null,
      });
    });

    it('creates a board with leagues and rewards; the slug is unique (409) and the definition checked (422)', async () => {
      const body = {
        slug: 'tiers',
        name: 'Tiers',
        description: 'By level',
        leagues: [
          { slug: 'gold', name: 'Gold', order: 2, min_stat: 1000 },
          { slug: 'bronze', name: 'Bronze', order: 0 },
          { slug: 'silver', name: 'Silver', order: 1, min_stat: 100 },
        ],
        rewards: [{ league: 'gold', rank_from: 1, rank_to: 3, reward: { gems: 10 } }],
      };
      const res = await call('POST', base, body);
      expect(res.statusCode).toBe(201);
      expect(res.json().leagues.map((l: { slug: string }) => l.slug)).toEqual(['bronze', 'silver', 'gold']);
      expect(res.json().rewards).toEqual([{ league: 'gold', rank_from: 1, rank_to: 3, reward: { gems: 10 } }]);
      expect((await call('GET', `${base}/tiers`)).json()).toEqual(res.json());

      const again = await call('POST', base, body);
      expect(again.statusCode).toBe(409);
      expect(again.json()).toEqual({ detail: "Leaderboard 'tiers' already exists" });
      const atResetNoSchedule = await call('POST', base, { slug: 'bad', name: 'Bad', type: 'AT_RESET' });
      expect(atResetNoSchedule.statusCode).toBe(422);
      expect(atResetNoSchedule.json().detail[0].loc).toEqual(['body', 'reset']);
      const badReward = await call('POST', base, {
        slug: 'bad',
        name: 'Bad',
        rewards: [{ league: 'nope', rank_from: 1, rank_to: 1, reward: 1 }],
      });
      expect(badReward.json().detail[0].loc).toEqual(['body', 'rewards', '0', 'league']);
      expect((await call('POST', base, { slug: 'bad', name: 'Bad', sort: 'sideways' })).statusCode).toBe(422);
      expect((await call('GET', `${base}/bad`)).json()).toEqual({ detail: 'Leaderboard not found' });
    });

    it('lists the project’s boards by slug', async () => {
      const res = await call('GET', base);
      expect(res.json().leaderboards.map((b: { slug: string }) => b.slug)).toEqual(['plain', 'tiers']);
      const theirs = await call('GET', `/admin/projects/${f.other.projectId}/leaderboards`, undefined, f.stranger);
      expect(theirs.json()).toEqual({ leaderboards: [] });
    });

    it('submits a stat for any user of the project and answers that user’s `me`', async () => {
      const [me, a, b] = players as [number, number, number];
      const mine = await submit('tiers', me, 150);
      expect(mine.statusCode).toBe(200);
      expect(mine.json()).toEqual({
        leaderboard_id: expect.any(Number),
        leaderboard_slug: 'tiers',
        leaderboard_name: 'Tiers',
        user_id: me,
        rank: 1,
        stat_value: 150,
        league: 'silver',
        expired: false,
      });
      expect((await bundle('tiers', 'me')).json().me).toEqual(mine.json());
      expect((await submit('tiers', a, 2000)).json()).toMatchObject({ user_id: a, league: 'gold', rank: 1 });
      expect((await submit('tiers', b, 50)).json()).toMatchObject({ user_id: b, league: 'bronze', rank: 1 });
      // The board's operator applies: `best` keeps the higher stat.
      expect((await submit('tiers', me, 120)).json()).toMatchObject({ stat_value: 150 });

      const unknownUser = await submit('tiers', 999_999, 1);
      expect(unknownUser.statusCode).toBe(404);
      expect(unknownUser.json()).toEqual({ detail: 'User not found' });
      const otherPlayer = await createProjectWithPlayer(t.app, 'org-lb', 'lbproj');
      const foreign = await submit('tiers', otherPlayer.userId + 1000, 1);
      expect(foreign.statusCode).toBe(404);
      expect((await submit('missing', me, 1)).json()).toEqual({ detail: 'Leaderboard not found' });
      expect((await call('POST', `${base}/tiers/stats`, { user_id: me, value: 'high' })).statusCode).toBe(422);
      expect((await call('POST', `${base}/tiers/stats`, { value: 1 })).statusCode).toBe(422);
    });

    it('edits name, description, operator; type, sort and reset cannot change (400)', async () => {
      const res = await call('PATCH', `${base}/tiers`, {
        name: 'Tiers 2',
        description: 'New',
        operator: 'latest',
        type: 'CONTINUOUS',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ slug: 'tiers', name: 'Tiers 2', description: 'New', operator: 'latest' });
      expect((await submit('tiers', players[0] as number, 120)).json()).toMatchObject({ stat_value: 120 });
      for (const change of [{ type: 'AT_RESET' }, { sort: 'asc' }, { reset: 'daily' }]) {
        const refused = await call('PATCH', `${base}/tiers`, change);
        expect(refused.statusCode).toBe(400);
        expect(refused.json().detail).toMatch(/cannot be changed/);
      }
      const invalid = await call('PATCH', `${base}/tiers`, { leagues: [] });
      expect(invalid.statusCode).toBe(422);
      expect((await call('GET', `${base}/tiers`)).json().leagues).toHaveLength(3);
      expect((await call('PATCH', `${base}/missing`, { name: 'x' })).json()).toEqual({
        detail: 'Leaderboard not found',
      });
    });

    it('new leagues re-home the entries of a CONTINUOUS board by stat, and ranks follow', async () => {
      // Stats now: me 120 (silver), a 2000 (gold), b 50 (bronze).
      const [me, a, b] = players as [number, number, number];
      const res = await call('PATCH', `${base}/tiers`, {
        leagues: [
          { slug: 'bronze', name: 'Bronze' },
          { slug: 'platinum', name: 'Platinum', min_stat: 40 },
        ],
        rewards: [{ league: 'platinum', rank_from: 1, rank_to: 1, reward: 'crown' }],
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().leagues.map((l: { slug: string }) => l.slug)).toEqual(['bronze', 'platinum']);
      const entries = (await bundle('tiers', 'entries&league=platinum')).json().entries;
      expect(entries.entries.map((e: { user_id: number; rank: number }) => [e.user_id, e.rank])).toEqual([
        [a, 1],
        [me, 2],
        [b, 3],
      ]);
      expect((await bundle('tiers', 'me')).json().me).toMatchObject({ league: 'platinum', rank: 2, stat_value: 120 });
      const leagues = (await bundle('tiers', 'leagues')).json().leagues;
      expect(leagues.map((l: { slug: string; users: number }) => [l.slug, l.users])).toEqual([
        ['bronze', 0],
        ['platinum', 3],
      ]);
    });

    it('reset now archives the standings with rewards and starts a new period', async () => {
      const before = (await call('GET', `${base}/tiers`)).json();
      const res = await call('POST', `${base}/tiers/reset`);
      expect(res.statusCode).toBe(200);
      const { archived, leaderboard } = res.json();
      expect(archived.start).toBe(before.period.start);
      expect(Date.parse(archived.end)).toBeGreaterThan(Date.parse(archived.start));
      expect(leaderboard.period.start).toBe(archived.end);
      expect(leaderboard.period.end).toBeNull();

      const history = await t.app.http.inject({
        method: 'GET',
        url: '/leaderboards/tiers/history?league=platinum',
        headers: t.headers,
      });
      expect(history.statusCode).toBe(200);
      expect(history.json().period).toEqual({ start: archived.start, end: archived.end });
      expect(history.json().standings.map((s: { rank: number; reward: unknown }) => [s.rank, s.reward])).toEqual([
        [1, 'crown'],
        [2, null],
        [3, null],
      ]);
      const fresh = (await bundle('tiers', 'me,entries&league=platinum')).json();
      expect(fresh.entries.entries).toEqual([]);
      expect(fresh.me).toMatchObject({ rank: null, stat_value: null });

      const twice = await call('POST', `${base}/tiers/reset`);
      expect(twice.statusCode).toBe(200);
      expect(twice.json().archived.start).toBe(leaderboard.period.start);
    });

    it('on an AT_RESET board, reset now promotes and demotes; removing a league moves its users to the lowest', async () => {
      const created = await call('POST', base, {
        slug: 'ladder',
        name: 'Ladder',
        type: 'AT_RESET',
        reset: 'weekly',
        leagues: [
          { slug: 'bronze', promote_top: 1 },
          { slug: 'silver', promote_top: 1, demote_bottom: 1 },
          { slug: 'gold', demote_bottom: 1 },
        ],
      });
      expect(created.statusCode).toBe(201);
      const [p0, p1, p2] = players as [number, number, number];
      for (const [user, value] of [
        [p0, 30],
        [p1, 20],
        [p2, 10],
      ] as const) {
        expect((await submit('ladder', user, value)).json().league).toBe('bronze');
      }
      const reset = await call('POST', `${base}/ladder/reset`);
      expect(reset.statusCode).toBe(200);
      // Weekly: the new period ends where the calendar week ends.
      expect(reset.json().leaderboard.period.end).toBe(created.json().period.end);
      const standing = async (user: number) => (await submit('ladder', user, 1)).json().league;
      expect(await standing(p0)).toBe('silver');
      expect(await standing(p1)).toBe('bronze');

      const edited = await call('PATCH', `${base}/ladder`, {
        leagues: [
          { slug: 'bronze', promote_top: 1 },
          { slug: 'gold', demote_bottom: 1 },
        ],
      });
      expect(edited.statusCode).toBe(200);
      // p0 came back from the removed silver league; p1 and p2 stayed in bronze.
      const users = await t.app.http.inject({
        method: 'GET',
        url: '/leaderboards/ladder/users?league=bronze&source=assigned',
        headers: t.headers,
      });
      expect(
        users
          .json()
          .users.map((u: { user_id: number }) => u.user_id)
          .sort(),
      ).toEqual([p0, p1, p2].sort());
      expect((await submit('ladder', p0, 5)).json().league).toBe('bronze');
    });

    describe('anti-cheat boards (§9)', () => {
      const clientSubmit = (slug: string, value: number, prefix = '/leaderboards') =>
        t.app.http.inject({ method: 'POST', url: `${prefix}/${slug}/stats`, headers: t.headers, payload: { value } });
      const myStat = async (slug: string) => (await bundle(slug, 'me')).json().me.stat_value;
      const refusedValue = (res: { statusCode: number; json: () => { detail: unknown } }) => {
        expect(res.statusCode).toBe(422);
        expect(res.json().detail).toEqual([
          { loc: ['body', 'value'], msg: expect.any(String), type: expect.any(String) },
        ]);
      };

      it('a board with client_submit false refuses clients (403) on both prefixes; the admin route still submits', async () => {
        const created = await call('POST', base, { slug: 'server-only', name: 'Server only', client_submit: false });
        expect(created.statusCode).toBe(201);
        expect(created.json()).toMatchObject({ client_submit: false, stat_min: null, stat_max: null });
        expect((await bundle('server-only', 'meta')).json().meta).toMatchObject({ client_submit: false });
        for (const prefix of ['/leaderboards', '/client/leaderboards']) {
          const refused = await clientSubmit('server-only', 10, prefix);
          expect(refused.statusCode).toBe(403);
          expect(refused.json()).toEqual({ detail: 'Leaderboard accepts server submissions only' });
        }
        expect(await myStat('server-only')).toBeNull();
        const byServer = await submit('server-only', t.userId, 10);
        expect(byServer.statusCode).toBe(200);
        expect(byServer.json()).toMatchObject({ user_id: t.userId, stat_value: 10, rank: 1 });
        // The §1 checks come first: no token is 401, not 403.
        const anonymous = await t.app.http.inject({
          method: 'POST',
          url: '/leaderboards/server-only/stats',
          headers: { ...t.headers, authorization: '' },
          payload: { value: 1 },
        });
        expect(anonymous.statusCode).toBe(401);
        expect((await clientSubmit('no-such-board', 1)).statusCode).toBe(404);
      });

      it('accepts values in [stat_min, stat_max] inclusive; outside → 422 on every route, nothing written', async () => {
        const created = await call('POST', base, {
          slug: 'bounded',
          name: 'Bounded',
          operator: 'latest',
          stat_min: 0,
          stat_max: 100,
        });
        expect(created.json()).toMatchObject({ client_submit: true, stat_min: 0, stat_max: 100 });
        expect((await bundle('bounded', 'meta')).json().meta).toMatchObject({ stat_min: 0, stat_max: 100 });
        expect((await clientSubmit('bounded', 0)).statusCode).toBe(200);
        expect((await clientSubmit('bounded', 100, '/client/leaderboards')).statusCode).toBe(200);
        for (const value of [-0.001, 100.001, -1e300, 1e300]) {
          refusedValue(await clientSubmit('bounded', value));
          refusedValue(await clientSubmit('bounded', value, '/client/leaderboards'));
          refusedValue(await submit('bounded', t.userId, value));
        }
        expect(await myStat('bounded')).toBe(100);
        const other = players[1] as number;
        expect((await submit('bounded', other, 0)).json()).toMatchObject({ stat_value: 0 });
        expect((await submit('bounded', other, 100)).json()).toMatchObject({ stat_value: 100 });
        refusedValue(await submit('bounded', other, 101));
        expect((await bundle('bounded', 'entries')).json().entries.pagination.total).toBe(2);
        // A server-only board checks the client's permission before the value: 403, not 422.
        await call('POST', base, { slug: 'strict', name: 'Strict', client_submit: false, stat_max: 1 });
        expect((await clientSubmit('strict', 5)).statusCode).toBe(403);
        refusedValue(await submit('strict', other, 5));
      });

      it('a one-sided bound limits that side only, and stat_min may equal stat_max', async () => {
        await call('POST', base, { slug: 'floor', name: 'Floor', operator: 'latest', stat_min: 10 });
        expect((await clientSubmit('floor', 1e300)).statusCode).toBe(200);
        refusedValue(await clientSubmit('floor', 9.99));
        await call('POST', base, { slug: 'ceiling', name: 'Ceiling', operator: 'latest', stat_max: -10 });
        expect((await clientSubmit('ceiling', -1e300)).statusCode).toBe(200);
        refusedValue(await clientSubmit('ceiling', -9));
        const exact = await call('POST', base, { slug: 'exact', name: 'Exact', stat_min: 7, stat_max: 7 });
        expect(exact.statusCode).toBe(201);
        expect((await clientSubmit('exact', 7)).statusCode).toBe(200);
        refusedValue(await clientSubmit('exact', 8));
      });

      it('stat_min > stat_max is a 422 on creation and edit; edits change the fields, null removing a bound', async () => {
        const inverted = await call('POST', base, { slug: 'inverted', name: 'Inverted', stat_min: 5, stat_max: 1 });
        expect(inverted.statusCode).toBe(422);
        expect(inverted.json().detail).toEqual([
          { loc: ['body', 'stat_min'], msg: 'must be <= stat_max', type: 'value_error' },
        ]);
        expect((await call('GET', `${base}/inverted`)).statusCode).toBe(404);
        for (const body of [{ client_submit: 'no' }, { stat_min: 'low' }, { stat_max: [1] }]) {
          expect((await call('POST', base, { slug: 'typed', name: 'Typed', ...body })).statusCode).toBe(422);
        }

        const crossing = await call('PATCH', `${base}/bounded`, { stat_min: 200 });
        expect(crossing.statusCode).toBe(422);
        expect(crossing.json().detail[0].loc).toEqual(['body', 'stat_min']);
        expect((await call('GET', `${base}/bounded`)).json()).toMatchObject({ stat_min: 0, stat_max: 100 });

        const edited = await call('PATCH', `${base}/bounded`, { client_submit: false, stat_max: null, stat_min: 50 });
        expect(edited.statusCode).toBe(200);
        expect(edited.json()).toMatchObject({ client_submit: false, stat_min: 50, stat_max: null });
        expect((await clientSubmit('bounded', 60)).statusCode).toBe(403);
        expect((await submit('bounded', t.userId, 1e6)).json()).toMatchObject({ stat_value: 1e6 });
        refusedValue(await submit('bounded', t.userId, 49));

        // An edit that leaves the fields out keeps them.
        const renamed = await call('PATCH', `${base}/bounded`, { name: 'Renamed' });
        expect(renamed.json()).toMatchObject({ name: 'Renamed', client_submit: false, stat_min: 50, stat_max: null });
        const reopened = await call('PATCH', `${base}/bounded`, { client_submit: true, stat_min: null });
        expect(reopened.json()).toMatchObject({ client_submit: true, stat_min: null, stat_max: null });
        expect((await bundle('bounded', 'meta')).json().meta).toMatchObject({
          client_submit: true,
          stat_min: null,
          stat_max: null,
        });
        expect((await clientSubmit('bounded', -5)).json()).toMatchObject({ stat_value: -5 });
      });
    });
  });
}
