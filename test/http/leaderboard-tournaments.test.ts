/**
 * Tournaments and the board list (§18) on every engine: the board fields through the admin API,
 * `GET /leaderboards`, `POST /leaderboards/{slug}/join` (idempotent, full, not required, per
 * period, 50 racing joins for 10 places), and the refusals of a player's submission in their
 * order (window, join, limit, bounds) with exact bodies, each recording nothing; admin and
 * server-key submissions are trusted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFixture } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { ManualClock } from '../support/clock.js';
import { engines } from '../support/engines.js';
import { definition } from '../support/leaderboards.js';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`tournaments and the board list (§18) on ${engine.name}`, () => {
    let t: TestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    const clock = new ManualClock(T0);
    let devices = 0;
    beforeAll(async () => {
      t = await startTestApp(engine, { CDS_LEADERBOARD_RESET_CHECK_MS: '0' }, { clock });
      f = await adminFixture(t);
    });
    afterAll(async () => {
      await t?.close();
    });

    const boards = () => `/admin/projects/${t.project.projectId}/leaderboards`;
    const admin = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, headers = f.owner.headers) =>
      t.app.http.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    const create = async (body: object) => {
      const res = await admin('POST', boards(), body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    /** A new guest player of the test project. */
    const guest = async () => {
      const client = { 'x-client-id': t.project.clientId, 'x-client-secret': t.project.clientSecret };
      const res = await t.app.http.inject({
        method: 'POST',
        url: '/auth/guest',
        headers: client,
        payload: { device_id: `device-${engine.name}-${++devices}` },
      });
      expect(res.statusCode, res.body).toBe(200);
      return {
        id: res.json().user.id as number,
        headers: { ...client, authorization: `Bearer ${res.json().access_token}` },
      };
    };
    const join = (slug: string, headers: Record<string, string>, prefix = '/leaderboards') =>
      t.app.http.inject({ method: 'POST', url: `${prefix}/${slug}/join`, headers });
    const submit = (slug: string, value: number, headers: Record<string, string>) =>
      t.app.http.inject({ method: 'POST', url: `/leaderboards/${slug}/stats`, headers, payload: { value } });
    const me = async (slug: string, headers: Record<string, string>) =>
      (await t.app.http.inject({ method: 'GET', url: `/leaderboards/${slug}/bundle?include=me`, headers })).json().me;
    const list = async (headers: Record<string, string>, prefix = '/leaderboards') => {
      const res = await t.app.http.inject({ method: 'GET', url: prefix, headers });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().leaderboards as { slug: string; joined: boolean }[];
    };
    const expectRefusal = (res: { statusCode: number; json(): unknown }, status: number, detail: string) => {
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({ detail });
    };
    const counted = async (slug: string, userId: number) => {
      const board = await t.app.services.storage.leaderboards.get(t.project.projectId, slug);
      if (!board) throw new Error(`no board ${slug}`);
      return t.app.services.storage.leaderboards.participation(board.id, board.period.start, userId);
    };

    it('takes the tournament fields on create and edit, shows them (UTC) in the admin view and the bundle meta', async () => {
      clock.set(T0);
      const created = await create({
        slug: 'cup',
        name: 'Cup',
        join_required: true,
        max_participants: 3,
        max_submissions: 2,
        starts_at: '2026-11-22T11:00:00+01:00',
        ends_at: '2026-11-23T10:00Z',
      });
      const fields = {
        join_required: true,
        max_participants: 3,
        max_submissions: 2,
        starts_at: '2026-11-22T10:00:00.000Z',
        ends_at: '2026-11-23T10:00:00.000Z',
      };
      expect(created).toMatchObject(fields);
      expect((await admin('GET', `${boards()}/cup`)).json()).toEqual(created);
      const player = await guest();
      const meta = (
        await t.app.http.inject({
          method: 'GET',
          url: '/leaderboards/cup/bundle?include=meta',
          headers: player.headers,
        })
      ).json().meta;
      expect(meta).toMatchObject(fields);
      const edited = await admin('PATCH', `${boards()}/cup`, { max_submissions: null, starts_at: null });
      expect(edited.statusCode, edited.body).toBe(200);
      expect(edited.json()).toMatchObject({ ...fields, max_submissions: null, starts_at: null });
      const plain = await create({ slug: 'plain-board', name: 'Plain' });
      expect(plain).toMatchObject({
        join_required: false,
        max_participants: null,
        max_submissions: null,
        starts_at: null,
        ends_at: null,
      });
    });

    it('answers 422 for invalid tournament fields, on create and on edit', async () => {
      const invalid = async (
        body: object,
        loc: string,
        msg?: string,
        url = boards(),
        method: 'POST' | 'PATCH' = 'POST',
      ) => {
        const res = await admin(method, url, body);
        expect(res.statusCode, res.body).toBe(422);
        const issue = res.json().detail[0];
        expect(issue.loc).toEqual(['body', loc]);
        if (msg) expect(issue.msg).toBe(msg);
      };
      const base = { slug: 'bad', name: 'Bad' };
      await invalid(
        { ...base, starts_at: '2026-11-23T00:00:00Z', ends_at: '2026-11-22T00:00:00Z' },
        'ends_at',
        'must be after starts_at',
      );
      await invalid(
        { ...base, starts_at: '2026-11-23T00:00:00Z', ends_at: '2026-11-23T01:00+01:00' },
        'ends_at',
        'must be after starts_at',
      );
      await invalid({ ...base, starts_at: 'tomorrow' }, 'starts_at');
      await invalid({ ...base, ends_at: '2026-11-22' }, 'ends_at');
      await invalid(
        { ...base, starts_at: '2026-02-30T00:00:00Z' },
        'starts_at',
        'must be an ISO 8601 date and time with a zone (2026-11-22T10:00:00Z)',
      );
      await invalid({ ...base, join_required: true, max_participants: 0 }, 'max_participants');
      await invalid({ ...base, max_submissions: 1.5 }, 'max_submissions');
      await invalid({ ...base, join_required: 'yes' }, 'join_required');
      await invalid({ ...base, max_participants: 10 }, 'max_participants', 'applies to boards with join_required only');
      expect((await admin('GET', `${boards()}/bad`)).statusCode).toBe(404);
      await create({
        slug: 'window',
        name: 'Window',
        starts_at: '2026-12-01T00:00:00Z',
        join_required: true,
        max_participants: 5,
      });
      const edit = `${boards()}/window`;
      await invalid({ ends_at: '2026-11-30T00:00:00Z' }, 'ends_at', 'must be after starts_at', edit, 'PATCH');
      await invalid(
        { join_required: false },
        'max_participants',
        'applies to boards with join_required only',
        edit,
        'PATCH',
      );
      const loosened = await admin('PATCH', edit, { join_required: false, max_participants: null });
      expect(loosened.json()).toMatchObject({
        join_required: false,
        max_participants: null,
        starts_at: '2026-12-01T00:00:00.000Z',
      });
    });

    it('lists every board of the project by slug for the caller, also under /client', async () => {
      clock.set(T0);
      const other = await t.otherProject();
      const { leaderboards } = t.app.services;
      await leaderboards.create(other.project.projectId, definition('zeta', { reset: 'daily', joinRequired: true }));
      await leaderboards.create(other.project.projectId, definition('alpha'));
      await leaderboards.create(other.project.projectId, definition('Beta', { reset: 'weekly', joinRequired: true }));
      const expected = [
        {
          slug: 'Beta',
          name: 'Board Beta',
          type: 'CONTINUOUS',
          sort: 'desc',
          reset: 'weekly',
          period: { start: '2026-11-16T00:00:00.000Z', end: '2026-11-23T00:00:00.000Z' },
          next_reset_at: '2026-11-23T00:00:00.000Z',
          join_required: true,
          joined: false,
        },
        {
          slug: 'alpha',
          name: 'Board alpha',
          type: 'CONTINUOUS',
          sort: 'desc',
          reset: 'none',
          period: { start: iso(T0), end: null },
          next_reset_at: null,
          join_required: false,
          joined: false,
        },
        {
          slug: 'zeta',
          name: 'Board zeta',
          type: 'CONTINUOUS',
          sort: 'desc',
          reset: 'daily',
          period: { start: '2026-11-22T00:00:00.000Z', end: '2026-11-23T00:00:00.000Z' },
          next_reset_at: '2026-11-23T00:00:00.000Z',
          join_required: true,
          joined: false,
        },
      ];
      expect(await list(other.headers)).toEqual(expected);
      expect((await join('zeta', other.headers)).statusCode).toBe(200);
      // Joining a board without join_required records nothing: it stays "not joined".
      expect((await join('alpha', other.headers)).statusCode).toBe(200);
      const joined = expected.map((b) => ({ ...b, joined: b.slug === 'zeta' }));
      expect(await list(other.headers)).toEqual(joined);
      expect(await list(other.headers, '/client/leaderboards')).toEqual(joined);
      // Another project's boards are not listed; this project's player has not joined `zeta` of that project.
      expect((await list(t.headers)).map((b) => b.slug)).not.toContain('zeta');
    });

    it('joins once per period: the same 200 again, 409 when full (a member still gets 200), 404 for no board', async () => {
      clock.set(T0);
      await create({ slug: 'duel', name: 'Duel', join_required: true, max_participants: 2 });
      const [a, b, c] = [await guest(), await guest(), await guest()];
      for (const prefix of ['/leaderboards', '/client/leaderboards']) {
        const res = await join('duel', a.headers, prefix);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ joined: true, participants: 1 });
      }
      expect((await join('duel', b.headers)).json()).toEqual({ joined: true, participants: 2 });
      expectRefusal(await join('duel', c.headers), 409, 'Tournament is full');
      expect((await join('duel', a.headers)).json()).toEqual({ joined: true, participants: 2 });
      expect((await list(c.headers)).find((board) => board.slug === 'duel')?.joined).toBe(false);
      expectRefusal(await join('no-such-board', a.headers), 404, 'Leaderboard not found');
    });

    it('on a board without join_required, answers 200 and counts the players with a stat', async () => {
      clock.set(T0);
      await create({ slug: 'open', name: 'Open', leagues: [{ slug: 'low' }, { slug: 'high', min_stat: 100 }] });
      const [a, b, c] = [await guest(), await guest(), await guest()];
      expect((await join('open', a.headers)).json()).toEqual({ joined: true, participants: 0 });
      expect((await submit('open', 5, a.headers)).statusCode).toBe(200);
      expect((await submit('open', 500, b.headers)).statusCode).toBe(200);
      expect((await join('open', c.headers)).json()).toEqual({ joined: true, participants: 2 });
      expect((await submit('open', 1, c.headers)).statusCode).toBe(200);
    });

    it('needs client.leaderboard.submit to join and client.leaderboard to list', async () => {
      const { accounts } = t.app.services;
      await accounts.createRole(t.project.projectId, 'watcher', ['client.leaderboard']);
      const watcher = await accounts.createUser(t.project.projectId, {
        username: 'watcher',
        password: 'password-123',
        roles: ['watcher'],
      });
      const { access_token } = await accounts.issueToken(t.project.projectId, watcher.id);
      const headers = { ...t.headers, authorization: `Bearer ${access_token}` };
      expect((await list(headers)).length).toBeGreaterThan(0);
      expectRefusal(await join('duel', headers), 403, "Permission 'client.leaderboard.submit' required");
      const anonymous = { 'x-client-id': t.project.clientId, 'x-client-secret': t.project.clientSecret };
      expect((await t.app.http.inject({ method: 'GET', url: '/leaderboards', headers: anonymous })).statusCode).toBe(
        401,
      );
    });

    it('refuses a player’s submission in order: window (409), join (403), limit (429), bounds (422), recording nothing', async () => {
      clock.set(T0);
      await create({
        slug: 'ordered',
        name: 'Ordered',
        join_required: true,
        max_submissions: 1,
        starts_at: iso(T0 + HOUR),
        ends_at: iso(T0 + 2 * HOUR),
        stat_max: 100,
      });
      const p = await guest();
      // Before the window, every other rule broken as well: the window answers.
      expectRefusal(await submit('ordered', 1000, p.headers), 409, 'Tournament is not open');
      clock.set(T0 + HOUR);
      expectRefusal(await submit('ordered', 1000, p.headers), 403, 'Join the tournament first');
      // In bounds the join is checked by the write's transaction: the same answer, nothing recorded.
      expectRefusal(await submit('ordered', 50, p.headers), 403, 'Join the tournament first');
      expect(await counted('ordered', p.id)).toEqual({ joined: false, submissions: 0 });
      expect((await join('ordered', p.headers)).statusCode).toBe(200);
      const bound = await submit('ordered', 1000, p.headers);
      expect(bound.statusCode).toBe(422);
      expect(bound.json().detail).toEqual([{ loc: ['body', 'value'], msg: 'must be <= 100', type: 'maximum' }]);
      expect(await counted('ordered', p.id)).toEqual({ joined: true, submissions: 0 });
      expect((await submit('ordered', 50, p.headers)).json()).toMatchObject({ rank: 1, stat_value: 50 });
      // The limit answers before the bounds.
      expectRefusal(await submit('ordered', 1000, p.headers), 429, 'Submission limit reached');
      expectRefusal(await submit('ordered', 60, p.headers), 429, 'Submission limit reached');
      clock.set(T0 + 2 * HOUR);
      expectRefusal(await submit('ordered', 70, p.headers), 409, 'Tournament is not open');
      expect(await me('ordered', p.headers)).toMatchObject({ rank: 1, stat_value: 50 });
      expect(await counted('ordered', p.id)).toEqual({ joined: true, submissions: 1 });
      const listing = await admin('GET', `${boards()}/ordered/users`);
      expect(listing.json().users.map((u: { stat_value: number }) => u.stat_value)).toEqual([50]);
    });

    it('counts every accepted submission, one that changes nothing too; refused ones count nothing', async () => {
      clock.set(T0);
      await create({ slug: 'three-tries', name: 'Three tries', max_submissions: 3, stat_min: 0 });
      const p = await guest();
      expect((await submit('three-tries', -1, p.headers)).statusCode).toBe(422);
      for (const [value, stat] of [
        [10, 10],
        [5, 10],
        [20, 20],
      ] as const) {
        expect((await submit('three-tries', value, p.headers)).json()).toMatchObject({ stat_value: stat });
      }
      expectRefusal(await submit('three-tries', 30, p.headers), 429, 'Submission limit reached');
      expect(await me('three-tries', p.headers)).toMatchObject({ stat_value: 20 });
      expect(await counted('three-tries', p.id)).toEqual({ joined: false, submissions: 3 });
      // Concurrent submissions of one player never exceed the limit.
      const q = await guest();
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => submit('three-tries', i, q.headers)));
      expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(3);
      expect(answers.filter((a) => a.statusCode === 429)).toHaveLength(9);
      expect(await counted('three-tries', q.id)).toEqual({ joined: false, submissions: 3 });
    });

    it('trusts admin and server-key submissions: no window, join or limit, and they do not count', async () => {
      clock.set(T0);
      await create({
        slug: 'trusted',
        name: 'Trusted',
        join_required: true,
        max_submissions: 1,
        starts_at: iso(T0 + DAY),
      });
      const p = await guest();
      const byAdmin = await admin('POST', `${boards()}/trusted/stats`, { user_id: p.id, value: 5 });
      expect(byAdmin.statusCode, byAdmin.body).toBe(200);
      expect((await admin('POST', `${boards()}/trusted/stats`, { user_id: p.id, value: 7 })).json()).toMatchObject({
        stat_value: 7,
      });
      const key = await admin('POST', `/admin/projects/${t.project.projectId}/server-keys`, {
        name: 'game',
        role: 'editor',
      });
      expect(key.statusCode, key.body).toBe(201);
      const server = { authorization: `Bearer ${key.json().key}` };
      const byKey = await admin('POST', `${boards()}/trusted/stats`, { user_id: p.id, value: 9 }, server);
      expect(byKey.json()).toMatchObject({ user_id: p.id, stat_value: 9 });
      expect(await counted('trusted', p.id)).toEqual({ joined: false, submissions: 0 });
      // The player is still bound: not open yet; then open, joined, one submission of their own.
      expectRefusal(await submit('trusted', 11, p.headers), 409, 'Tournament is not open');
      clock.set(T0 + DAY);
      expectRefusal(await submit('trusted', 11, p.headers), 403, 'Join the tournament first');
      // One that would change nothing (not better than 9) is refused alike.
      expectRefusal(await submit('trusted', 3, p.headers), 403, 'Join the tournament first');
      expect((await join('trusted', p.headers)).statusCode).toBe(200);
      expect((await submit('trusted', 11, p.headers)).json()).toMatchObject({ stat_value: 11 });
      expectRefusal(await submit('trusted', 12, p.headers), 429, 'Submission limit reached');
    });

    it('keeps joins per period: after a reset players join again, and a join after the end resets first', async () => {
      clock.set(T0);
      await create({
        slug: 'daily-cup',
        name: 'Daily cup',
        reset: 'daily',
        join_required: true,
        max_participants: 1,
        max_submissions: 1,
      });
      const [a, b] = [await guest(), await guest()];
      expect((await join('daily-cup', a.headers)).json()).toEqual({ joined: true, participants: 1 });
      expectRefusal(await join('daily-cup', b.headers), 409, 'Tournament is full');
      expect((await submit('daily-cup', 10, a.headers)).statusCode).toBe(200);
      // The next day: the reset empties the joins and counts.
      clock.set(T0 + DAY);
      await t.app.services.leaderboards.runDueResets();
      const cup = (await list(a.headers)).find((board) => board.slug === 'daily-cup');
      expect(cup).toMatchObject({ joined: false, period: { start: '2026-11-23T00:00:00.000Z' } });
      expectRefusal(await submit('daily-cup', 20, a.headers), 403, 'Join the tournament first');
      expect((await join('daily-cup', b.headers)).json()).toEqual({ joined: true, participants: 1 });
      expectRefusal(await join('daily-cup', a.headers), 409, 'Tournament is full');
      expect((await submit('daily-cup', 30, b.headers)).json()).toMatchObject({ rank: 1, stat_value: 30 });
      // Two days on, with no reset run yet: the join resets the board first and joins the new period.
      clock.set(T0 + 2 * DAY);
      expect((await join('daily-cup', a.headers)).json()).toEqual({ joined: true, participants: 1 });
      expect((await list(a.headers)).find((board) => board.slug === 'daily-cup')).toMatchObject({
        joined: true,
        period: { start: '2026-11-24T00:00:00.000Z' },
      });
      expect((await submit('daily-cup', 40, a.headers)).json()).toMatchObject({ rank: 1, stat_value: 40 });
    });

    it('lets exactly 10 of 50 concurrent joins in for 10 places', async () => {
      clock.set(T0);
      await create({ slug: 'rush', name: 'Rush', join_required: true, max_participants: 10 });
      const players = await Promise.all(Array.from({ length: 50 }, guest));
      const answers = await Promise.all(players.map((p) => join('rush', p.headers)));
      const joined = answers.filter((a) => a.statusCode === 200);
      expect(joined).toHaveLength(10);
      expect(joined.map((a) => a.json().participants).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      for (const refused of answers.filter((a) => a.statusCode !== 200))
        expectRefusal(refused, 409, 'Tournament is full');
      const members = players.filter((_, i) => answers[i]?.statusCode === 200);
      expect((await join('rush', members[0]?.headers ?? {})).json()).toEqual({ joined: true, participants: 10 });
      const submitted = await Promise.all(players.map((p) => submit('rush', 1, p.headers)));
      expect(submitted.filter((a) => a.statusCode === 200)).toHaveLength(10);
    });
  });
}
