/**
 * §18's reads centred on players on every engine: around me (players and server keys), a chosen
 * set of users (`user_ids`), and my history across resets driven by the test clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { ManualClock } from '../support/clock.js';
import { engines } from '../support/engines.js';
import { definition, ladder, league } from '../support/leaderboards.js';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MIDNIGHT = Date.parse('2026-11-22T00:00:00.000Z');

interface Player {
  id: number;
  headers: Record<string, string>;
}

interface Item {
  rank: number | null;
  user_id: number;
  stat_value: number | null;
  league: string;
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`leaderboard reads centred on players (§18) on ${engine.name}`, () => {
    let t: TestApp;
    const clock = new ManualClock(T0);
    /** 15 ranked players of `score` (ties included), then `idle`, who has no stat anywhere. */
    const ranked: Player[] = [];
    let idle: Player;
    let key = '';
    let otherProjectUser = 0;

    const get = (url: string, headers: Record<string, string> = t.headers) =>
      t.app.http.inject({ method: 'GET', url, headers });
    const submit = (slug: string, player: Player, value: number) =>
      t.app.services.leaderboards.submit(t.project.projectId, slug, player.id, value);
    const newPlayer = async (username: string): Promise<Player> => {
      const { accounts } = t.app.services;
      const user = await accounts.createUser(t.project.projectId, { username, password: 'password-123' });
      const { access_token } = await accounts.issueToken(t.project.projectId, user.id);
      return { id: user.id, headers: { ...t.headers, authorization: `Bearer ${access_token}` } };
    };
    /** The whole ranked listing of a league, as the users route pages it. */
    const listing = async (slug: string, leagueSlug?: string): Promise<Item[]> => {
      const res = await get(`/leaderboards/${slug}/users?limit=1000${leagueSlug ? `&league=${leagueSlug}` : ''}`);
      expect(res.statusCode).toBe(200);
      return res.json().users;
    };

    beforeAll(async () => {
      t = await startTestApp(engine, { CDS_LEADERBOARD_RESET_CHECK_MS: '0' }, { clock });
      const { projectId } = t.project;
      const { leaderboards, serverKeys } = t.app.services;
      await leaderboards.create(projectId, definition('score'));
      await leaderboards.create(
        projectId,
        definition('tiers', { leagues: [league('low', 0), league('high', 1, { minStat: 100 })] }),
      );
      await leaderboards.create(projectId, ladder('ladder'));
      // Stats with ties: 90 three times (two of them at the same instant: the lower id first), 50 twice.
      const stats = [100, 90, 90, 90, 80, 70, 60, 50, 50, 40, 30, 20, 10, 5, 1];
      for (const i of stats.keys()) ranked.push(await newPlayer(`player${i}`));
      // Submitted from the last to the first, p1 and p2 at the same instant.
      for (let i = stats.length - 1; i >= 0; i--) {
        await submit('score', ranked[i] as Player, stats[i] as number);
        if (i !== 2) clock.advance(1);
      }
      idle = await newPlayer('idle');
      key = (await serverKeys.create(projectId, { name: 'game server', role: 'viewer' })).key;
      // Ids count per project: the other project's 41st user has an id no user of this one has.
      const other = await t.otherProject();
      for (let i = 0; i < 40; i++) {
        otherProjectUser = (await t.app.services.auth.guest(other.project.projectId, `device-${i}`)).user.id;
      }
    });
    afterAll(async () => {
      await t?.close();
    });

    describe('around me', () => {
      it('centres 2 × radius + 1 ranked users on the caller, with ties ranked as in the listing', async () => {
        const all = await listing('score');
        expect(all).toHaveLength(15);
        expect(all.map((u) => u.stat_value)).toEqual([100, 90, 90, 90, 80, 70, 60, 50, 50, 40, 30, 20, 10, 5, 1]);
        // Equal stats: the earlier submission first (p3), then at the same instant the lower id (p1, p2).
        expect(all.slice(1, 4).map((u) => u.user_id)).toEqual([3, 1, 2].map((i) => ranked[i]?.id));
        for (const [i, me] of all.entries()) {
          const player = ranked.find((p) => p.id === me.user_id) as Player;
          const res = await get('/leaderboards/score/around?radius=2', player.headers);
          expect(res.statusCode).toBe(200);
          const body = res.json();
          expect(body.league).toBe('global');
          expect(body.me).toMatchObject({
            user_id: me.user_id,
            rank: i + 1,
            stat_value: me.stat_value,
            league: 'global',
          });
          const from = Math.min(Math.max(i - 2, 0), 15 - 5);
          expect(body.users).toEqual(all.slice(from, from + 5));
        }
      });

      it('keeps the window inside the league: rank 1 gets ranks 1–11, the last rank the last 11', async () => {
        const all = await listing('score');
        const first = ranked.find((p) => p.id === all[0]?.user_id) as Player;
        const last = ranked.find((p) => p.id === all[14]?.user_id) as Player;
        const top = (await get('/leaderboards/score/around', first.headers)).json();
        expect(top.me.rank).toBe(1);
        expect(top.users.map((u: Item) => u.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        const bottom = (await get('/leaderboards/score/around?radius=5', last.headers)).json();
        expect(bottom.me.rank).toBe(15);
        expect(bottom.users).toEqual(all.slice(4));
        // A league smaller than the window: all of it.
        const wide = (await get('/client/leaderboards/score/around?radius=50', last.headers)).json();
        expect(wide.users).toEqual(all);
      });

      it('gives a caller without a stat `rank: null` and the bottom radius + 1 ranked users', async () => {
        const all = await listing('score');
        const res = await get('/leaderboards/score/around?radius=3&expand=profile', idle.headers);
        expect(res.statusCode).toBe(200);
        const body = res.json();
        expect(body.me).toMatchObject({ user_id: idle.id, rank: null, stat_value: null, league: 'global' });
        expect(body.users.map((u: Item) => u.rank)).toEqual([12, 13, 14, 15]);
        expect(body.users[0]).toEqual({ ...all[11], profile: { nickname: expect.any(String), avatar_url: null } });
        // Nobody ranked in the league: an empty window.
        const empty = (await get('/leaderboards/ladder/around', idle.headers)).json();
        expect(empty).toMatchObject({ league: 'bronze', me: { rank: null }, users: [] });
      });

      it('stays in the caller’s league at league boundaries', async () => {
        const tiers: Player[] = ranked.slice(0, 8);
        // low: 10..40 (4 users), high: 100..130 (4 users).
        for (const [i, player] of tiers.entries())
          await submit('tiers', player, i < 4 ? 10 * (i + 1) : 100 + 10 * (i - 4));
        const high = await listing('tiers', 'high');
        const low = await listing('tiers', 'low');
        expect([high.length, low.length]).toEqual([4, 4]);
        const lowestOfHigh = (await get('/leaderboards/tiers/around?radius=1', tiers[4]?.headers)).json();
        expect(lowestOfHigh.league).toBe('high');
        expect(lowestOfHigh.me).toMatchObject({ rank: 4, league: 'high' });
        expect(lowestOfHigh.users).toEqual(high.slice(1));
        const topOfLow = (await get('/leaderboards/tiers/around?radius=1', tiers[3]?.headers)).json();
        expect(topOfLow.league).toBe('low');
        expect(topOfLow.users).toEqual(low.slice(0, 3));
        // Without a stat the caller is in the lowest league.
        const none = (await get('/leaderboards/tiers/around?radius=1', idle.headers)).json();
        expect(none).toEqual({ league: 'low', me: expect.objectContaining({ rank: null }), users: low.slice(2) });
      });

      it.each(['radius=0', 'radius=51', 'radius=abc', 'radius=2.5', 'expand=friends'])(
        '?%s answers 422 naming the parameter',
        async (query) => {
          const res = await get(`/leaderboards/score/around?${query}`);
          expect(res.statusCode).toBe(422);
          expect(res.json().detail[0].loc).toEqual(['query', query.split('=')[0]]);
        },
      );

      it('answers 404 for an unknown board, 401 without a token and 403 without client.leaderboard', async () => {
        for (const path of ['/leaderboards/nope/around', '/client/leaderboards/nope/around']) {
          const res = await get(path);
          expect(res.statusCode).toBe(404);
          expect(res.json()).toEqual({ detail: 'Leaderboard not found' });
        }
        const { authorization: _, ...anonymous } = t.headers;
        expect((await get('/leaderboards/score/around', anonymous)).json()).toEqual({
          detail: 'Invalid or expired token',
        });
        const { accounts } = t.app.services;
        await accounts.createRole(t.project.projectId, 'nobody', []);
        const user = await accounts.createUser(t.project.projectId, {
          username: 'no-reads',
          password: 'password-123',
          roles: ['nobody'],
        });
        const { access_token } = await accounts.issueToken(t.project.projectId, user.id);
        const denied = await get('/leaderboards/score/around', {
          ...t.headers,
          authorization: `Bearer ${access_token}`,
        });
        expect(denied.statusCode).toBe(403);
        expect(denied.json()).toEqual({ detail: "Permission 'client.leaderboard' required" });
      });

      it('lets a server key alone read around a user it names with user_id', async () => {
        const all = await listing('score');
        const asKey = { authorization: `Bearer ${key}` };
        const player = ranked.find((p) => p.id === all[7]?.user_id) as Player;
        const res = await get(`/leaderboards/score/around?radius=1&user_id=${player.id}`, asKey);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({
          league: 'global',
          me: expect.objectContaining({ user_id: player.id, rank: 8, leaderboard_slug: 'score' }),
          users: all.slice(6, 9),
        });
        // With client credentials too, and on the /client prefix.
        const both = await get(`/client/leaderboards/score/around?radius=1&user_id=${player.id}`, {
          ...t.headers,
          ...asKey,
        });
        expect(both.json().me.user_id).toBe(player.id);
        // A player's own token ignores user_id.
        const own = await get(`/leaderboards/score/around?user_id=${player.id}`, idle.headers);
        expect(own.json().me.user_id).toBe(idle.id);
        // A user without a stat is named as well.
        expect((await get(`/leaderboards/score/around?user_id=${idle.id}`, asKey)).json().me).toMatchObject({
          user_id: idle.id,
          rank: null,
        });
      });

      it('requires user_id with a server key (422) and answers 404 for an unknown or foreign user', async () => {
        const asKey = { authorization: `Bearer ${key}` };
        const missing = await get('/leaderboards/score/around', asKey);
        expect(missing.statusCode).toBe(422);
        expect(missing.json().detail[0].loc).toEqual(['query', 'user_id']);
        for (const userId of [987_654, otherProjectUser]) {
          const res = await get(`/leaderboards/score/around?user_id=${userId}`, asKey);
          expect(res.statusCode).toBe(404);
          expect(res.json()).toEqual({ detail: 'User not found' });
        }
        expect((await get('/leaderboards/score/around?user_id=abc', asKey)).statusCode).toBe(422);
        const unknownBoard = await get(`/leaderboards/nope/around?user_id=${idle.id}`, asKey);
        expect(unknownBoard.json()).toEqual({ detail: 'Leaderboard not found' });
        // A key that is not one, and a key on other client routes: 401.
        const forged = await get(`/leaderboards/score/around?user_id=${idle.id}`, {
          authorization: `Bearer sk_${'A'.repeat(43)}`,
        });
        expect(forged.statusCode).toBe(401);
        expect(forged.json()).toEqual({ detail: 'Invalid or expired token' });
        expect((await get('/leaderboards/score/users', { ...t.headers, ...asKey })).statusCode).toBe(401);
        expect((await get('/leaderboards/score/history/me', { ...t.headers, ...asKey })).statusCode).toBe(401);
      });
    });

    describe('a chosen set of users', () => {
      it('lists the chosen users of the league by rank, with their ranks in the full listing, the statless last', async () => {
        const all = await listing('score');
        const pick = [all[9], all[2], all[3], all[0]] as Item[];
        const ids = [idle.id, ...pick.map((u) => u.user_id), 987_654, 99_999_999_999];
        const res = await get(`/leaderboards/score/users?user_ids=${ids.join(',')}&offset=7`);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({
          pagination: { limit: 100, offset: 0, total: 5, has_more: false },
          league: 'global',
          users: [all[0], all[2], all[3], all[9], { rank: null, user_id: idle.id, stat_value: null, league: 'global' }],
        });
        const limited = (await get(`/client/leaderboards/score/users?user_ids=${ids.join(',')}&limit=2`)).json();
        expect(limited.users).toEqual([all[0], all[2]]);
        expect(limited.pagination).toEqual({ limit: 2, offset: 0, total: 2, has_more: false });
        const profiled = (await get(`/leaderboards/score/users?user_ids=${idle.id}&expand=profile`)).json();
        expect(profiled.users[0].profile).toEqual({ nickname: 'idle', avatar_url: null });
        // Repeated ids count once.
        const twice = (await get(`/leaderboards/score/users?user_ids=${all[1]?.user_id},${all[1]?.user_id}`)).json();
        expect(twice.users).toEqual([all[1]]);
      });

      it('keeps to the listed league: users of another league are left out', async () => {
        const high = await listing('tiers', 'high');
        const low = await listing('tiers', 'low');
        const ids = [high[0], low[1], high[3], low[3]].map((u) => u?.user_id).join(',');
        const lowChosen = (await get(`/leaderboards/tiers/users?user_ids=${ids},${idle.id}`, idle.headers)).json();
        expect(lowChosen.league).toBe('low');
        expect(lowChosen.users).toEqual([
          low[1],
          low[3],
          { rank: null, user_id: idle.id, stat_value: null, league: 'low' },
        ]);
        const highChosen = (await get(`/leaderboards/tiers/users?user_ids=${ids},${idle.id}&league=high`)).json();
        expect(highChosen.users).toEqual([high[0], high[3]]);
        expect(highChosen.pagination.total).toBe(2);
        const unknownLeague = await get(`/leaderboards/tiers/users?user_ids=${ids}&league=gold`);
        expect(unknownLeague.json()).toEqual({ detail: 'League not found' });
      });

      it('lists users assigned to an AT_RESET league without a stat as rank null; source=assigned works too', async () => {
        const [a, b] = ranked as [Player, Player];
        await submit('ladder', a, 5);
        const ids = `${a.id},${b.id},${idle.id}`;
        const res = (await get(`/leaderboards/ladder/users?user_ids=${ids}&source=assigned`, a.headers)).json();
        expect(res).toMatchObject({ league: 'bronze', pagination: { total: 3 } });
        expect(res.users).toEqual([
          { rank: 1, user_id: a.id, stat_value: 5, league: 'bronze' },
          { rank: null, user_id: b.id, stat_value: null, league: 'bronze' },
          { rank: null, user_id: idle.id, stat_value: null, league: 'bronze' },
        ]);
        const onContinuous = await get(`/leaderboards/score/users?user_ids=${ids}&source=assigned`);
        expect(onContinuous.statusCode).toBe(400);
      });

      it.each([
        ['an id that is not an integer', '1,x'],
        ['a decimal id', '1.5'],
        ['an empty list', ''],
        ['an empty id', '1,,2'],
        ['a negative id', '-1'],
        ['more than 100 ids', Array.from({ length: 101 }, (_, i) => i + 1).join(',')],
      ])('answers 422 for %s', async (_, value) => {
        const res = await get(`/leaderboards/score/users?user_ids=${value}`);
        expect(res.statusCode).toBe(422);
        expect(res.json().detail[0].loc).toEqual(['query', 'user_ids']);
      });

      it('takes 100 ids, and answers 404 for an unknown board', async () => {
        const hundred = Array.from({ length: 99 }, (_, i) => 500_000 + i).concat(ranked[0]?.id as number);
        const res = await get(`/leaderboards/score/users?user_ids=${hundred.join(',')}`);
        expect(res.statusCode).toBe(200);
        expect(res.json().users.map((u: Item) => u.user_id)).toEqual([ranked[0]?.id]);
        const unknown = await get(`/leaderboards/nope/users?user_ids=${ranked[0]?.id}`);
        expect(unknown.statusCode).toBe(404);
        expect(unknown.json()).toEqual({ detail: 'Leaderboard not found' });
      });
    });

    describe('my history', () => {
      it('lists the caller’s archived periods newest first with rewards, and the best over all of them', async () => {
        const { projectId } = t.project;
        await t.app.services.leaderboards.create(
          projectId,
          definition('daily', {
            reset: 'daily',
            leagues: [league('low', 0), league('high', 1, { minStat: 100 })],
            rewards: [
              { league: 'high', rankFrom: 1, rankTo: 1, reward: { gems: 10 } },
              { league: 'low', rankFrom: 1, rankTo: 1, reward: 'medal' },
            ],
          }),
        );
        const [a, b, c] = (await Promise.all(['hist_a', 'hist_b', 'hist_c'].map(newPlayer))) as [
          Player,
          Player,
          Player,
        ];
        const history = async (player: Player, query = '') => {
          const res = await get(`/leaderboards/daily/history/me${query}`, player.headers);
          expect(res.statusCode).toBe(200);
          return res.json();
        };
        expect(await history(a)).toEqual({ periods: [], best: null });
        const plays: [Player, number][][] = [
          [
            [a, 150],
            [b, 50],
            [c, 40],
          ],
          [
            [a, 30],
            [b, 60],
          ],
          [
            [a, 20],
            [b, 70],
            [c, 80],
          ],
        ];
        const periods: { start: string; end: string }[] = [];
        for (const [day, round] of plays.entries()) {
          for (const [player, value] of round) {
            await submit('daily', player, value);
            clock.advance(1);
          }
          const start = MIDNIGHT + (day + 1) * DAY;
          periods.push({ start: new Date(start - DAY).toISOString(), end: new Date(start).toISOString() });
          clock.set(start + HOUR);
          // The daily board (and the ladder, also daily).
          expect(await t.app.services.leaderboards.runDueResets()).toBeGreaterThanOrEqual(1);
        }
        const [p0, p1, p2] = periods;
        expect(await history(a)).toEqual({
          periods: [
            { period: p2, rank: 3, stat_value: 20, league: 'low', reward: null },
            { period: p1, rank: 2, stat_value: 30, league: 'low', reward: null },
            { period: p0, rank: 1, stat_value: 150, league: 'high', reward: { gems: 10 } },
          ],
          best: { rank: 1, period: p0 },
        });
        // `limit` cuts the periods, not the best.
        expect(await history(a, '?limit=2')).toEqual({
          periods: [expect.objectContaining({ period: p2 }), expect.objectContaining({ period: p1 })],
          best: { rank: 1, period: p0 },
        });
        // Rank 1 twice: the newest is the best.
        expect((await history(b)).best).toEqual({ rank: 1, period: p1 });
        expect((await history(b)).periods.map((p: { rank: number }) => p.rank)).toEqual([2, 1, 1]);
        // Only the periods where the caller had a stat.
        const mine = await t.app.http.inject({
          method: 'GET',
          url: '/client/leaderboards/daily/history/me?limit=100',
          headers: c.headers,
        });
        expect(mine.json()).toEqual({
          periods: [
            { period: p2, rank: 1, stat_value: 80, league: 'low', reward: 'medal' },
            { period: p0, rank: 2, stat_value: 40, league: 'low', reward: null },
          ],
          best: { rank: 1, period: p2 },
        });
      });

      it.each(['limit=0', 'limit=101', 'limit=abc'])('?%s answers 422', async (query) => {
        const res = await get(`/leaderboards/daily/history/me?${query}`);
        expect(res.statusCode).toBe(422);
        expect(res.json().detail[0].loc).toEqual(['query', 'limit']);
      });

      it('answers 404 for an unknown board', async () => {
        const res = await get('/leaderboards/nope/history/me');
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ detail: 'Leaderboard not found' });
      });
    });
  });
}
