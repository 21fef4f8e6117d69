/**
 * The behaviour every LeaderboardStore must have (§5 storage), run against each engine by
 * test/storage/leaderboard-store.test.ts. Real databases, no mocks; each test uses its own project.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Leaderboard,
  type LeaderboardDefinition,
  type LeaderboardEntry,
  TOURNAMENT_DEFAULTS,
} from '../../src/core/leaderboards/leaderboard-model.js';
import type { LeaderboardStore } from '../../src/core/leaderboards/leaderboard-store.js';
import { resetRewrite } from '../../src/core/leaderboards/listing-rewrite.js';
import { compareRankKeys, keyOfEntry, type RankKey, scoreOf } from '../../src/core/leaderboards/rank-order.js';
import type { Storage } from '../../src/core/ports.js';
import type { EngineFixture } from '../support/engines.js';
import { createBoard, definition, ladder, league } from '../support/leaderboards.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-22T00:00:00.000Z');

let nextProject = 1000;

/** Registers the LeaderboardStore suite for one engine. */
export function leaderboardStoreCases(engine: EngineFixture): void {
  describe.skipIf(engine.unavailable)(`LeaderboardStore on ${engine.name}`, () => {
    let storage: Storage;
    let store: LeaderboardStore;
    beforeAll(async () => {
      storage = await engine.create();
      store = storage.leaderboards;
    });
    afterAll(async () => {
      if (storage) await engine.destroy(storage);
    });

    const entry = (userId: number, statValue: number, updatedAt: number, leagueSlug = 'global'): LeaderboardEntry => ({
      userId,
      statValue,
      league: leagueSlug,
      updatedAt,
    });

    /** Writes a fresh entry (no previous), asserting it was written. */
    async function put(board: Leaderboard, e: LeaderboardEntry, assign: string | null = null) {
      const result = await store.writeEntry(board.id, {
        periodStart: board.period.start,
        revision: board.revision,
        previous: null,
        next: e,
        score: scoreOf(board.sort, e.statValue),
        assign,
      });
      expect(result).toBe('written');
    }

    /** Reads a whole league listing in batches of `batch`. */
    async function scanAll(board: Leaderboard, leagueSlug: string, batch: number): Promise<RankKey[]> {
      const keys: RankKey[] = [];
      let after: RankKey | null = null;
      for (;;) {
        const page = await store.scanLeague(board.id, leagueSlug, after, batch);
        keys.push(...page);
        if (page.length < batch) return keys;
        after = page[page.length - 1] as RankKey;
      }
    }

    it('creates a board with its leagues and rewards and reads it back by slug', async () => {
      const project = nextProject++;
      const def = ladder('weekly-ladder');
      const created = await createBoard(store, project, def, { start: T0, end: T0 + DAY });
      expect(created).toMatchObject({ ...def, projectId: project, revision: 1, period: { start: T0, end: T0 + DAY } });
      expect(created.id).toBeGreaterThan(0);
      expect(await store.get(project, 'weekly-ladder')).toEqual(created);
      expect(await store.get(project, 'other')).toBeNull();
      expect(await store.get(project + 1, 'weekly-ladder')).toBeNull();
      expect((await store.listAll()).some((b) => b.id === created.id)).toBe(true);
    });

    it('keeps min_stat values and JSON rewards exactly, and refuses a taken slug', async () => {
      const project = nextProject++;
      const def = definition('tiers', {
        leagues: [league('low', 0), league('mid', 1, { minStat: 10.5 }), league('top', 2, { minStat: 1e12 })],
        rewards: [
          { league: 'top', rankFrom: 1, rankTo: 3, reward: { items: ['a', 'b'], n: 1.5, ok: true, none: null } },
        ],
      });
      const created = await createBoard(store, project, def, { start: T0, end: null });
      expect(created.leagues).toEqual(def.leagues);
      expect(created.rewards).toEqual(def.rewards);
      expect(await store.create(project, def, { start: T0, end: null })).toBe('taken');
      // The same slug in another project is another board.
      await createBoard(store, project + 1, def, { start: T0, end: null });
    });

    it('keeps anti-cheat settings (§9) exactly, and a board created without them has the defaults', async () => {
      const project = nextProject++;
      const guarded = definition('guarded', { clientSubmit: false, statMin: -0.5, statMax: 1e15 });
      const created = await createBoard(store, project, guarded, { start: T0, end: null });
      expect(created).toMatchObject({ clientSubmit: false, statMin: -0.5, statMax: 1e15 });
      expect(await store.get(project, 'guarded')).toEqual(created);
      expect((await store.listAll()).find((b) => b.id === created.id)).toEqual(created);
      const halfOpen = await createBoard(store, project, definition('floor', { statMin: 0 }), { start: T0, end: null });
      expect(halfOpen).toMatchObject({ clientSubmit: true, statMin: 0, statMax: null });
      const open = await createBoard(store, project, definition('open'), { start: T0, end: null });
      expect(open).toMatchObject({ clientSubmit: true, statMin: null, statMax: null });
    });

    it('reads a standing: nothing, then the entry and the assignment', async () => {
      const board = await createBoard(store, nextProject++, ladder('standing'), { start: T0, end: T0 + DAY });
      expect(await store.standing(board.id, 5)).toEqual({ entry: null, assignedLeague: null });
      await put(board, entry(5, 42, T0 + 1, 'bronze'), 'bronze');
      expect(await store.standing(board.id, 5)).toEqual({
        entry: entry(5, 42, T0 + 1, 'bronze'),
        assignedLeague: 'bronze',
      });
    });

    it('reads the standings of several users at once: every asked user, none for a stranger', async () => {
      const board = await createBoard(store, nextProject++, ladder('standings'), { start: T0, end: T0 + DAY });
      await put(board, entry(5, 42, T0 + 1, 'bronze'), 'bronze');
      await put(board, entry(6, 40, T0 + 2, 'bronze'), 'bronze');
      expect(await resetNow(board, T0 + DAY, T0 + 2 * DAY)).toBe(true);
      const next = (await store.get(board.projectId, board.slug)) as Leaderboard;
      // 5 and 6 were promoted to silver without a stat; 5 plays again.
      await put(next, entry(5, 7, T0 + DAY + 1, 'silver'));
      const standings = await store.standingsOf(board.id, [5, 6, 77]);
      expect([...standings.keys()].sort((a, b) => a - b)).toEqual([5, 6, 77]);
      expect(standings.get(5)).toEqual({ entry: entry(5, 7, T0 + DAY + 1, 'silver'), assignedLeague: 'silver' });
      expect(standings.get(6)).toEqual({ entry: null, assignedLeague: 'silver' });
      expect(standings.get(77)).toEqual({ entry: null, assignedLeague: null });
      for (const userId of [5, 6, 77]) expect(standings.get(userId)).toEqual(await store.standing(board.id, userId));
      expect(await store.standingsOf(board.id, [])).toEqual(new Map());
      const other = await createBoard(store, nextProject++, definition('standings'), { start: T0, end: null });
      expect((await store.standingsOf(other.id, [5])).get(5)).toEqual({ entry: null, assignedLeague: null });
    });

    it('reads one user’s archived periods newest first, with period, rank, stat, league and reward', async () => {
      let board = await createBoard(store, nextProject++, ladder('mine'), { start: T0, end: T0 + DAY });
      const other = await createBoard(store, nextProject++, ladder('mine'), { start: T0, end: T0 + DAY });
      await put(other, entry(1, 1, T0, 'bronze'), 'bronze');
      const day = (n: number) => T0 + n * DAY;
      // Period 0: 1 is first of bronze (badge). Period 1: 1 does not play. Period 2: 1 is second of silver.
      await put(board, entry(1, 50, day(0) + 1, 'bronze'), 'bronze');
      await put(board, entry(2, 60, day(0) + 2, 'bronze'), 'bronze');
      for (let n = 0; n < 3; n++) {
        if (n === 2) {
          await put(board, entry(1, 5, day(2) + 1, 'silver'));
          await put(board, entry(2, 9, day(2) + 2, 'silver'));
        }
        expect(await resetNow(board, day(n + 1), day(n + 2))).toBe(true);
        board = (await store.get(board.projectId, board.slug)) as Leaderboard;
      }
      expect(await store.periodsOf(board.id, 1)).toEqual([
        { periodStart: day(2), periodEnd: day(3), rank: 2, statValue: 5, league: 'silver', reward: null },
        { periodStart: day(0), periodEnd: day(1), rank: 2, statValue: 50, league: 'bronze', reward: 'badge' },
      ]);
      expect((await store.periodsOf(board.id, 2)).map((p) => [p.periodStart, p.rank])).toEqual([
        [day(2), 1],
        [day(0), 1],
      ]);
      expect(await store.periodsOf(board.id, 3)).toEqual([]);
      expect(await store.periodsOf(other.id, 1)).toEqual([]);
    });

    it('writes only over the entry it read (compare-and-set), only in the current period and board revision', async () => {
      const board = await createBoard(store, nextProject++, definition('cas'), { start: T0, end: null });
      const first = entry(1, 10, T0 + 1);
      await put(board, first);
      const again = await store.writeEntry(board.id, {
        periodStart: T0,
        revision: board.revision,
        previous: null,
        next: first,
        score: -10,
        assign: null,
      });
      expect(again).toBe('conflict');
      const stale = await store.writeEntry(board.id, {
        periodStart: T0,
        revision: board.revision,
        previous: entry(1, 9, T0 + 1),
        next: entry(1, 20, T0 + 2),
        score: -20,
        assign: null,
      });
      expect(stale).toBe('conflict');
      const ok = await store.writeEntry(board.id, {
        periodStart: T0,
        revision: board.revision,
        previous: first,
        next: entry(1, 20, T0 + 2),
        score: -20,
        assign: null,
      });
      expect(ok).toBe('written');
      const next = { previous: entry(1, 20, T0 + 2), next: entry(1, 30, T0 + 3), score: -30, assign: null };
      const moved = await store.writeEntry(board.id, { ...next, periodStart: T0 - 1, revision: board.revision });
      expect(moved).toBe('board_changed');
      // Leagues chosen under another revision of the board (an admin edit since) are refused too.
      const edited = await store.writeEntry(board.id, { ...next, periodStart: T0, revision: board.revision + 1 });
      expect(edited).toBe('board_changed');
      expect((await store.standing(board.id, 1)).entry).toEqual(entry(1, 20, T0 + 2));
    });

    it('scans a league in rank order with ties broken by time then user id, by keyset batches', async () => {
      const board = await createBoard(store, nextProject++, definition('ties'), { start: T0, end: null });
      const entries = [
        entry(9, 100, T0 + 5),
        entry(3, 100, T0 + 5),
        entry(4, 100, T0 + 2),
        entry(1, 50, T0 + 1),
        entry(2, 200, T0 + 9),
        entry(8, -5, T0),
        entry(7, 0, T0),
      ];
      for (const e of entries) await put(board, e);
      const keys = await scanAll(board, 'global', 2);
      expect(keys.map((k) => k.userId)).toEqual([2, 4, 3, 9, 1, 7, 8]);
      expect(keys[0]).toEqual({ score: -200, updatedAt: T0 + 9, userId: 2 });
      expect(await scanAll(board, 'global', 100)).toEqual(keys);
      expect(await store.scanLeague(board.id, 'nobody', null, 10)).toEqual([]);
    });

    it('scans an asc board lowest first', async () => {
      const board = await createBoard(store, nextProject++, definition('speedrun', { sort: 'asc' }), {
        start: T0,
        end: null,
      });
      for (const e of [entry(1, 61.5, T0), entry(2, 59.25, T0), entry(3, 60, T0)]) await put(board, e);
      expect((await scanAll(board, 'global', 10)).map((k) => k.userId)).toEqual([2, 3, 1]);
    });

    it('lists assigned users without a stat after the ranked ones, by user id', async () => {
      const leagues = [league('bronze', 0, { promoteTop: 1 }), league('silver', 1), league('gold', 2)];
      const board = await createBoard(store, nextProject++, ladder('assigned', { leagues, rewards: [] }), {
        start: T0,
        end: T0 + DAY,
      });
      await put(board, entry(30, 5, T0, 'silver'), 'silver');
      await put(board, entry(10, 7, T0, 'silver'), 'silver');
      // Assigned without a stat: an entry-less assignment, made by an earlier reset in real life.
      await put(board, entry(99, 1, T0, 'bronze'), 'bronze');
      const reset = await resetNow(board, T0 + DAY, T0 + 2 * DAY);
      expect(reset).toBe(true);
      const next = (await store.get(board.projectId, board.slug)) as Leaderboard;
      // After the reset nobody has a stat: 99 was promoted out of bronze (its top 1), 10 and 30 stay in silver.
      const silver = await scanAll(next, 'silver', 1);
      expect(silver.map((k) => [k.userId, k.score])).toEqual([
        [10, Number.POSITIVE_INFINITY],
        [30, Number.POSITIVE_INFINITY],
        [99, Number.POSITIVE_INFINITY],
      ]);
      await put(next, entry(30, 3, T0 + DAY + 1, 'silver'));
      expect((await scanAll(next, 'silver', 2)).map((k) => k.userId)).toEqual([30, 10, 99]);
    });

    it('loads 1,500 entries in order through keyset batches', async () => {
      const board = await createBoard(store, nextProject++, definition('big'), { start: T0, end: null });
      const entries = Array.from({ length: 1500 }, (_, i) => entry(i + 1, (i * 7919) % 500, T0 + (i % 13)));
      for (const e of entries) await put(board, e);
      const expected = entries.map((e) => keyOfEntry('desc', e)).sort(compareRankKeys);
      expect(await scanAll(board, 'global', 256)).toEqual(expected);
    });

    async function resetNow(board: Leaderboard, now: number, nextEnd: number, owner = 'me'): Promise<boolean> {
      if (!(await store.acquireResetLease(board.id, board.period.start, { owner, now, until: now + 60_000 })))
        return false;
      return store.resetPeriod(board.id, {
        owner,
        periodStart: board.period.start,
        next: { start: board.period.end as number, end: nextEnd },
        archivedAt: now,
        plan: resetRewrite,
      });
    }

    it('gives the reset lease to one owner at a time, only once the period has ended', async () => {
      const board = await createBoard(store, nextProject++, definition('lease', { reset: 'daily' }), {
        start: T0,
        end: T0 + DAY,
      });
      expect(
        await store.acquireResetLease(board.id, T0, { owner: 'a', now: T0 + DAY - 1, until: T0 + DAY + 1000 }),
      ).toBe(false);
      expect(await store.acquireResetLease(board.id, T0, { owner: 'a', now: T0 + DAY, until: T0 + DAY + 1000 })).toBe(
        true,
      );
      expect(
        await store.acquireResetLease(board.id, T0, { owner: 'b', now: T0 + DAY + 10, until: T0 + DAY + 2000 }),
      ).toBe(false);
      // An expired lease (its holder died) can be taken over.
      expect(
        await store.acquireResetLease(board.id, T0, { owner: 'b', now: T0 + DAY + 1000, until: T0 + DAY + 2000 }),
      ).toBe(true);
      const attempt = (owner: string) =>
        store.resetPeriod(board.id, {
          owner,
          periodStart: T0,
          next: { start: T0 + DAY, end: T0 + 2 * DAY },
          archivedAt: T0 + DAY,
          plan: resetRewrite,
        });
      expect(await attempt('a')).toBe(false);
      expect(await attempt('b')).toBe(true);
      expect(await attempt('b')).toBe(false);
      expect((await store.get(board.projectId, board.slug))?.period).toEqual({ start: T0 + DAY, end: T0 + 2 * DAY });
      expect(
        await store.acquireResetLease(board.id, T0 + DAY, { owner: 'a', now: T0 + DAY + 5000, until: T0 + DAY + 9000 }),
      ).toBe(false);
    });

    it('lists the boards that are due', async () => {
      const project = nextProject++;
      const due = await createBoard(store, project, definition('due', { reset: 'daily' }), {
        start: T0 - DAY,
        end: T0,
      });
      const later = await createBoard(store, project, definition('later', { reset: 'daily' }), {
        start: T0,
        end: T0 + DAY,
      });
      const never = await createBoard(store, project, definition('never'), { start: T0, end: null });
      const ids = (await store.listDue(T0)).map((b) => b.id);
      expect(ids).toContain(due.id);
      expect(ids).not.toContain(later.id);
      expect(ids).not.toContain(never.id);
    });

    it('archives final standings with ranks and rewards, moves assignments and clears entries at a reset', async () => {
      const board = await createBoard(store, nextProject++, ladder('season'), { start: T0, end: T0 + DAY });
      // gold: 4 ranked (1..4), silver: 3 ranked + 1 assigned without stat later, bronze: 3 ranked.
      const plan: [number, number, string][] = [
        [1, 500, 'gold'],
        [2, 400, 'gold'],
        [3, 400, 'gold'],
        [4, 100, 'gold'],
        [11, 90, 'silver'],
        [12, 80, 'silver'],
        [13, 70, 'silver'],
        [21, 9, 'bronze'],
        [22, 8, 'bronze'],
        [23, 7, 'bronze'],
      ];
      for (const [userId, stat, leagueSlug] of plan) {
        await put(board, entry(userId, stat, T0 + (userId === 3 ? 1 : 2), leagueSlug), leagueSlug);
      }
      expect(await resetNow(board, T0 + DAY + 5, T0 + 2 * DAY)).toBe(true);
      const period = await store.archivedPeriod(board.id, null);
      expect(period).toEqual({ start: T0, end: T0 + DAY, archivedAt: T0 + DAY + 5 });
      expect(await store.archivedPeriod(board.id, T0)).toEqual(period);
      expect(await store.archivedPeriod(board.id, T0 + 1)).toBeNull();
      const gold = await store.archivedStandings(board.id, T0, 'gold', 0, 10);
      expect(gold.map((s) => [s.rank, s.userId, s.statValue, s.reward])).toEqual([
        [1, 1, 500, { gems: 100 }],
        [2, 3, 400, { gems: 50 }],
        [3, 2, 400, { gems: 50 }],
        [4, 4, 100, null],
      ]);
      expect(await store.archivedStandings(board.id, T0, 'gold', 2, 1)).toEqual([gold[2]]);
      expect(await store.archivedCount(board.id, T0, 'gold')).toBe(4);
      expect(await store.archivedCount(board.id, T0, 'nobody')).toBe(0);
      expect(await store.archivedStandingOf(board.id, T0, 21)).toMatchObject({
        rank: 1,
        league: 'bronze',
        reward: 'badge',
      });
      expect(await store.archivedStandingOf(board.id, T0, 999)).toBeNull();
      const next = (await store.get(board.projectId, board.slug)) as Leaderboard;
      expect(next.period).toEqual({ start: T0 + DAY, end: T0 + 2 * DAY });
      const leagueOf = async (userId: number) => (await store.standing(board.id, userId)).assignedLeague;
      // gold (final order 1, 3, 2, 4) demotes its bottom 2; silver promotes 11, 12 and demotes 12, 13 → promotion
      // wins for 12; bronze promotes 21, 22.
      expect(await Promise.all([1, 2, 3, 4].map(leagueOf))).toEqual(['gold', 'silver', 'gold', 'silver']);
      expect(await Promise.all([11, 12, 13].map(leagueOf))).toEqual(['gold', 'gold', 'bronze']);
      expect(await Promise.all([21, 22, 23].map(leagueOf))).toEqual(['silver', 'silver', 'bronze']);
      expect((await store.standing(board.id, 1)).entry).toBeNull();
      expect(await scanAll(next, 'gold', 10)).toHaveLength(4);
    });

    it('demotes assigned users without a stat first and drops them from the lowest league', async () => {
      const board = await createBoard(store, nextProject++, ladder('idle'), { start: T0, end: T0 + DAY });
      for (const userId of [1, 2, 3]) await put(board, entry(userId, userId, T0, 'silver'), 'silver');
      for (const userId of [7, 8]) await put(board, entry(userId, userId, T0, 'bronze'), 'bronze');
      expect(await resetNow(board, T0 + DAY, T0 + 2 * DAY)).toBe(true);
      let current = (await store.get(board.projectId, board.slug)) as Leaderboard;
      // Nobody plays in the next period: each league's listing is all unranked.
      expect(await resetNow(current, T0 + 2 * DAY, T0 + 3 * DAY)).toBe(true);
      current = (await store.get(board.projectId, board.slug)) as Leaderboard;
      const listing = async (slug: string) => (await scanAll(current, slug, 10)).map((k) => k.userId);
      // Period 1: silver 3, 2 promoted, 1 demoted; bronze 8, 7 promoted. Period 2, all idle: gold's two are its
      // bottom 2 (demoted), silver's two likewise, and bronze's idle user 1 drops out.
      expect(await listing('gold')).toEqual([]);
      expect(await listing('silver')).toEqual([2, 3]);
      expect(await listing('bronze')).toEqual([7, 8]);
      expect((await store.standing(board.id, 1)).assignedLeague).toBeNull();
    });

    it('archives an empty period and starts the next one', async () => {
      const board = await createBoard(store, nextProject++, definition('empty', { reset: 'daily' }), {
        start: T0,
        end: T0 + DAY,
      });
      expect(await resetNow(board, T0 + DAY, T0 + 2 * DAY)).toBe(true);
      expect(await store.archivedPeriod(board.id, null)).toEqual({ start: T0, end: T0 + DAY, archivedAt: T0 + DAY });
      expect(await store.archivedStandings(board.id, T0, 'global', 0, 10)).toEqual([]);
    });

    describe('tournaments (§18)', () => {
      const tournament = (slug: string, extra: Partial<LeaderboardDefinition> = {}) =>
        definition(slug, { joinRequired: true, reset: 'daily', ...extra });
      const join = (board: Leaderboard, userId: number, maxParticipants: number | null = null) =>
        store.join(board.id, {
          periodStart: board.period.start,
          revision: board.revision,
          userId,
          maxParticipants,
          at: T0 + 5,
        });
      const count = (board: Leaderboard, userId: number, limit: number | null, joinRequired = false) =>
        store.countSubmission(board.id, {
          periodStart: board.period.start,
          revision: board.revision,
          userId,
          terms: { joinRequired, limit },
        });

      it('keeps tournament settings exactly, and a board created without them has none', async () => {
        const project = nextProject++;
        const settings = {
          joinRequired: true,
          maxParticipants: 10,
          maxSubmissions: 3,
          startsAt: T0 + 1,
          endsAt: T0 + DAY - 1,
        };
        const created = await createBoard(store, project, definition('cup', settings), { start: T0, end: null });
        expect(created).toMatchObject(settings);
        expect(await store.get(project, 'cup')).toEqual(created);
        expect((await store.listAll()).find((b) => b.id === created.id)).toEqual(created);
        const plain = await createBoard(store, project, definition('plain'), { start: T0, end: null });
        expect(plain).toMatchObject(TOURNAMENT_DEFAULTS);
        expect(await store.boardsOf(project)).toEqual([created, plain]);
      });

      it('lists a project’s boards by slug in byte order, and those whose current period the user joined', async () => {
        const project = nextProject;
        nextProject += 3;
        const period = { start: T0, end: T0 + DAY };
        const boards = [];
        for (const slug of ['b', 'B', 'a-1', 'a_1'])
          boards.push(await createBoard(store, project, tournament(slug), period));
        await createBoard(store, project + 1, tournament('other'), period);
        expect((await store.boardsOf(project)).map((b) => b.slug)).toEqual(['B', 'a-1', 'a_1', 'b']);
        expect(await store.boardsOf(project + 2)).toEqual([]);
        const [b, upper] = boards as [Leaderboard, Leaderboard];
        expect(await store.joinedBoards(project, 7)).toEqual(new Set());
        await join(b, 7);
        await join(upper, 8);
        expect(await store.joinedBoards(project, 7)).toEqual(new Set([b.id]));
        expect(await store.joinedBoards(project + 1, 7)).toEqual(new Set());
        // A join of an earlier period does not count as joined now.
        expect(await resetNow(b, T0 + DAY, T0 + 2 * DAY)).toBe(true);
        expect(await store.joinedBoards(project, 7)).toEqual(new Set());
        expect(await store.joinedBoards(project, 8)).toEqual(new Set([upper.id]));
      });

      it('joins once per period up to the limit: joined, member, full; refuses another period or revision', async () => {
        const board = await createBoard(store, nextProject++, tournament('join'), { start: T0, end: T0 + DAY });
        expect(await store.participation(board.id, T0, 1)).toEqual({ joined: false, submissions: 0 });
        expect(await join(board, 1, 2)).toEqual({ result: 'joined', participants: 1 });
        expect(await join(board, 1, 2)).toEqual({ result: 'member', participants: 1 });
        expect(await join(board, 2, 2)).toEqual({ result: 'joined', participants: 2 });
        expect(await join(board, 3, 2)).toEqual({ result: 'full', participants: 2 });
        // A member of a full period is still a member.
        expect(await join(board, 2, 2)).toEqual({ result: 'member', participants: 2 });
        expect(await join(board, 3, null)).toEqual({ result: 'joined', participants: 3 });
        expect(await store.participation(board.id, T0, 1)).toEqual({ joined: true, submissions: 0 });
        expect(await store.participation(board.id, T0 + 1, 1)).toEqual({ joined: false, submissions: 0 });
        const stale = { ...board, period: { start: T0 - DAY, end: T0 } };
        expect(await join(stale, 4)).toEqual({ result: 'board_changed', participants: 0 });
        expect(await join({ ...board, revision: board.revision + 1 }, 4)).toEqual({
          result: 'board_changed',
          participants: 0,
        });
        expect(await store.participation(board.id, T0, 4)).toEqual({ joined: false, submissions: 0 });
      });

      it('lets exactly max_participants of 50 concurrent joins in', async () => {
        const board = await createBoard(store, nextProject++, tournament('race'), { start: T0, end: T0 + DAY });
        const users = Array.from({ length: 50 }, (_, i) => i + 1);
        const outcomes = await Promise.all(users.map((userId) => join(board, userId, 10)));
        expect(outcomes.filter((o) => o.result === 'joined')).toHaveLength(10);
        expect(outcomes.filter((o) => o.result === 'full')).toHaveLength(40);
        expect(
          outcomes
            .filter((o) => o.result === 'joined')
            .map((o) => o.participants)
            .sort((a, b) => a - b),
        ).toEqual(users.slice(0, 10));
        const joined = await Promise.all(users.map((userId) => store.participation(board.id, T0, userId)));
        expect(joined.filter((p) => p.joined)).toHaveLength(10);
        expect(await join(board, 99, 10)).toEqual({ result: 'full', participants: 10 });
      });

      it('counts submissions up to the limit, concurrently too; refused ones count nothing', async () => {
        const board = await createBoard(store, nextProject++, tournament('count'), { start: T0, end: T0 + DAY });
        expect(await count(board, 1, 2)).toBe('counted');
        expect(await count(board, 1, 2)).toBe('counted');
        expect(await count(board, 1, 2)).toBe('limit');
        expect(await store.participation(board.id, T0, 1)).toEqual({ joined: false, submissions: 2 });
        // A higher limit (an admin edit) lets more count.
        expect(await count(board, 1, 3)).toBe('counted');
        const results = await Promise.all(Array.from({ length: 20 }, () => count(board, 2, 5)));
        expect(results.filter((r) => r === 'counted')).toHaveLength(5);
        expect((await store.participation(board.id, T0, 2)).submissions).toBe(5);
        expect(await count({ ...board, revision: board.revision + 1 }, 3, 5)).toBe('board_changed');
        expect(await store.participation(board.id, T0, 3)).toEqual({ joined: false, submissions: 0 });
      });

      it('refuses a count without a join where one is required, before the limit; counts nothing then', async () => {
        const board = await createBoard(store, nextProject++, tournament('joined'), { start: T0, end: T0 + DAY });
        expect(await count(board, 1, 1, true)).toBe('not_joined');
        expect(await count(board, 1, null, true)).toBe('not_joined');
        expect(await store.participation(board.id, T0, 1)).toEqual({ joined: false, submissions: 0 });
        await join(board, 1);
        expect(await count(board, 1, null, true)).toBe('counted');
        expect(await count(board, 1, 1, true)).toBe('counted');
        expect(await count(board, 1, 1, true)).toBe('limit');
        expect(await store.participation(board.id, T0, 1)).toEqual({ joined: true, submissions: 1 });
      });

      it('counts a written entry against the limit in its transaction; a refused or lost write counts nothing', async () => {
        const board = await createBoard(store, nextProject++, tournament('limited'), { start: T0, end: T0 + DAY });
        const write = (
          previous: LeaderboardEntry | null,
          next: LeaderboardEntry,
          limit: number | null,
          joinRequired = false,
        ) =>
          store.writeEntry(board.id, {
            periodStart: T0,
            revision: board.revision,
            previous,
            next,
            score: -next.statValue,
            assign: null,
            terms: { joinRequired, limit },
          });
        expect(await write(null, entry(1, 10, T0 + 1), 2)).toBe('written');
        expect((await store.participation(board.id, T0, 1)).submissions).toBe(1);
        // Lost compare-and-set: nothing written, nothing counted.
        expect(await write(entry(1, 9, T0 + 1), entry(1, 20, T0 + 2), 2)).toBe('conflict');
        expect((await store.participation(board.id, T0, 1)).submissions).toBe(1);
        expect(await count(board, 1, 2)).toBe('counted');
        // The limit is reached: the write is refused and the entry stays.
        expect(await write(entry(1, 10, T0 + 1), entry(1, 30, T0 + 3), 2)).toBe('limit');
        expect((await store.standing(board.id, 1)).entry).toEqual(entry(1, 10, T0 + 1));
        expect((await store.participation(board.id, T0, 1)).submissions).toBe(2);
        // Without a limit nothing is counted.
        expect(await write(entry(1, 10, T0 + 1), entry(1, 30, T0 + 3), null)).toBe('written');
        expect((await store.participation(board.id, T0, 1)).submissions).toBe(2);
        // Where a join is required, a user who did not join writes and counts nothing, even under the limit.
        expect(await write(null, entry(2, 10, T0 + 1), 5, true)).toBe('not_joined');
        expect(await write(null, entry(2, 10, T0 + 1), null, true)).toBe('not_joined');
        expect((await store.standing(board.id, 2)).entry).toBeNull();
        expect(await store.participation(board.id, T0, 2)).toEqual({ joined: false, submissions: 0 });
        await join(board, 2);
        expect(await write(null, entry(2, 10, T0 + 1), 1, true)).toBe('written');
        // A lost compare-and-set of a joined, limited user counts nothing either.
        expect(await write(entry(2, 9, T0 + 1), entry(2, 20, T0 + 2), 5, true)).toBe('conflict');
        expect(await store.participation(board.id, T0, 2)).toEqual({ joined: true, submissions: 1 });
        // Joined, at the limit: refused as `limit`.
        expect(await write(entry(2, 10, T0 + 1), entry(2, 20, T0 + 2), 1, true)).toBe('limit');
        expect((await store.standing(board.id, 2)).entry).toEqual(entry(2, 10, T0 + 1));
      });

      it('empties joins and counts at a reset: the next period starts with none', async () => {
        const board = await createBoard(store, nextProject++, tournament('season'), { start: T0, end: T0 + DAY });
        await join(board, 1, 1);
        expect(await count(board, 1, 5)).toBe('counted');
        expect(await join(board, 2, 1)).toMatchObject({ result: 'full' });
        expect(await resetNow(board, T0 + DAY, T0 + 2 * DAY)).toBe(true);
        const next = (await store.get(board.projectId, board.slug)) as Leaderboard;
        expect(await store.participation(board.id, T0, 1)).toEqual({ joined: false, submissions: 0 });
        expect(await store.participation(board.id, T0 + DAY, 1)).toEqual({ joined: false, submissions: 0 });
        // The old period's board is refused; the new one has room again.
        expect(await join(board, 2, 1)).toMatchObject({ result: 'board_changed' });
        expect(await join(next, 2, 1)).toEqual({ result: 'joined', participants: 1 });
        expect(await join(next, 1, 1)).toEqual({ result: 'full', participants: 1 });
      });
    });
  });
}
