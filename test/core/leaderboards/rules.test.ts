import { describe, expect, it } from 'vitest';
import { definitionProblem } from '../../../src/core/leaderboards/leaderboard-definition.js';
import {
  ANTI_CHEAT_DEFAULTS,
  type Leaderboard,
  type League,
  TOURNAMENT_DEFAULTS,
} from '../../../src/core/leaderboards/leaderboard-model.js';
import { rewardFor } from '../../../src/core/leaderboards/listing-rewrite.js';
import { nextPeriod, periodContaining } from '../../../src/core/leaderboards/period-schedule.js';
import { destinationOf, planLeagueMoves } from '../../../src/core/leaderboards/promotion.js';
import { scoreOf, statOf } from '../../../src/core/leaderboards/rank-order.js';
import { applySubmission, checkSubmission, leagueForStat } from '../../../src/core/leaderboards/submission.js';

const at = (iso: string) => Date.parse(iso);
const league = (slug: string, order: number, extra: Partial<League> = {}): League => ({
  slug,
  name: slug,
  order,
  minStat: null,
  promoteTop: null,
  demoteBottom: null,
  ...extra,
});
const board = (extra: Partial<Leaderboard> = {}): Leaderboard => ({
  id: 1,
  projectId: 1,
  revision: 1,
  slug: 'b',
  name: 'B',
  description: '',
  type: 'CONTINUOUS',
  sort: 'desc',
  operator: 'best',
  reset: 'none',
  period: { start: 0, end: null },
  leagues: [league('global', 0)],
  rewards: [],
  ...ANTI_CHEAT_DEFAULTS,
  ...TOURNAMENT_DEFAULTS,
  ...extra,
});

describe('periods', () => {
  it('are UTC days, ISO weeks from Monday and calendar months', () => {
    expect(periodContaining('daily', at('2026-11-22T10:00:00.000Z'))).toEqual({
      start: at('2026-11-22T00:00:00.000Z'),
      end: at('2026-11-23T00:00:00.000Z'),
    });
    // 2026-11-22 is a Sunday: its week began on Monday the 16th.
    expect(periodContaining('weekly', at('2026-11-22T23:59:59.999Z'))).toEqual({
      start: at('2026-11-16T00:00:00.000Z'),
      end: at('2026-11-23T00:00:00.000Z'),
    });
    expect(periodContaining('weekly', at('2026-11-23T00:00:00.000Z')).start).toBe(at('2026-11-23T00:00:00.000Z'));
    expect(periodContaining('monthly', at('2026-12-31T23:00:00.000Z'))).toEqual({
      start: at('2026-12-01T00:00:00.000Z'),
      end: at('2027-01-01T00:00:00.000Z'),
    });
    expect(periodContaining('none', 1234)).toEqual({ start: 1234, end: null });
  });

  it('skip the periods a stopped service missed', () => {
    const ended = periodContaining('daily', at('2026-11-01T12:00:00.000Z'));
    expect(nextPeriod('daily', ended, at('2026-11-05T03:00:00.000Z')).start).toBe(at('2026-11-05T00:00:00.000Z'));
    expect(nextPeriod('daily', ended, at('2026-11-02T00:00:00.000Z')).start).toBe(at('2026-11-02T00:00:00.000Z'));
  });
});

describe('scores', () => {
  it('make lower better whatever the sort, and give the stat back exactly', () => {
    expect(scoreOf('desc', 10)).toBeLessThan(scoreOf('desc', 5));
    expect(scoreOf('asc', 5)).toBeLessThan(scoreOf('asc', 10));
    expect(Object.is(scoreOf('desc', 0), 0)).toBe(true);
    for (const stat of [0.1, -3.75, 1e300, 123456789.123]) expect(statOf('desc', scoreOf('desc', stat))).toBe(stat);
  });
});

describe('submissions', () => {
  const none = { entry: null, assignedLeague: null };
  const with_ = (statValue: number) => ({
    entry: { userId: 7, statValue, league: 'global', updatedAt: 100 },
    assignedLeague: null,
  });

  it('best keeps the better value (per sort) and its time', () => {
    expect(applySubmission(board(), 7, with_(10), 5, 200)).toBeNull();
    expect(applySubmission(board(), 7, with_(10), 10, 200)).toBeNull();
    expect(applySubmission(board(), 7, with_(10), 11, 200)?.entry).toEqual({
      userId: 7,
      statValue: 11,
      league: 'global',
      updatedAt: 200,
    });
    expect(applySubmission(board({ sort: 'asc' }), 7, with_(10), 5, 200)?.entry.statValue).toBe(5);
    expect(applySubmission(board(), 7, none, -3, 200)?.entry.statValue).toBe(-3);
  });

  it('latest replaces, increment adds', () => {
    expect(applySubmission(board({ operator: 'latest' }), 7, with_(10), 3, 200)?.entry.statValue).toBe(3);
    expect(applySubmission(board({ operator: 'latest' }), 7, with_(10), 10, 200)).toBeNull();
    expect(applySubmission(board({ operator: 'increment' }), 7, with_(10), 2.5, 200)?.entry.statValue).toBe(12.5);
    expect(applySubmission(board({ operator: 'increment' }), 7, with_(10), 0, 200)).toBeNull();
    expect(applySubmission(board({ operator: 'increment' }), 7, none, 4, 200)?.entry.statValue).toBe(4);
    expect(() => applySubmission(board({ operator: 'increment' }), 7, with_(1e308), 1e308, 200)).toThrow();
  });

  it('CONTINUOUS leagues follow min_stat; AT_RESET users join the lowest league once', () => {
    const tiers = board({
      leagues: [league('bronze', 0), league('silver', 1, { minStat: 100 }), league('gold', 2, { minStat: 500 })],
    });
    expect(leagueForStat(tiers, 99)).toBe('bronze');
    expect(leagueForStat(tiers, 100)).toBe('silver');
    expect(leagueForStat(tiers, 10_000)).toBe('gold');
    const asc = board({ sort: 'asc', leagues: [league('slow', 0), league('fast', 1, { minStat: 60 })] });
    expect(leagueForStat(asc, 59)).toBe('fast');
    expect(leagueForStat(asc, 61)).toBe('slow');
    const atReset = board({ type: 'AT_RESET', reset: 'daily', leagues: [league('low', 0), league('high', 1)] });
    expect(applySubmission(atReset, 7, none, 1, 5)).toMatchObject({ entry: { league: 'low' }, assign: 'low' });
    expect(applySubmission(atReset, 7, { entry: null, assignedLeague: 'high' }, 1, 5)).toMatchObject({
      entry: { league: 'high' },
      assign: null,
    });
  });
});

describe('anti-cheat (§9)', () => {
  const refusal = (run: () => void) => {
    try {
      run();
    } catch (error) {
      return error;
    }
    return null;
  };

  it('refuses clients on a server-only board with 403, whatever the value; servers pass', () => {
    const serverOnly = board({ clientSubmit: false, statMax: 10 });
    expect(refusal(() => checkSubmission(serverOnly, 5, 'client'))).toMatchObject({
      code: 'forbidden',
      message: 'Leaderboard accepts server submissions only',
    });
    expect(refusal(() => checkSubmission(serverOnly, 50, 'client'))).toMatchObject({ code: 'forbidden' });
    expect(refusal(() => checkSubmission(serverOnly, 5, 'server'))).toBeNull();
    expect(refusal(() => checkSubmission(board(), 5, 'client'))).toBeNull();
  });

  it('accepts values in [stat_min, stat_max] inclusive, on every source; null is no bound', () => {
    const bounded = board({ statMin: -1.5, statMax: 100 });
    for (const source of ['client', 'server'] as const) {
      for (const value of [-1.5, 0, 100]) expect(refusal(() => checkSubmission(bounded, value, source))).toBeNull();
      for (const value of [-1.5000001, 100.0000001, -1e308, 1e308]) {
        expect(refusal(() => checkSubmission(bounded, value, source))).toMatchObject({
          code: 'validation',
          issues: [{ loc: ['body', 'value'] }],
        });
      }
    }
    expect(refusal(() => checkSubmission(board({ statMin: 0 }), 1e308, 'client'))).toBeNull();
    expect(refusal(() => checkSubmission(board({ statMax: 0 }), -1e308, 'client'))).toBeNull();
    expect(refusal(() => checkSubmission(board(), -1e308, 'client'))).toBeNull();
  });

  it('a definition needs stat_min <= stat_max', () => {
    expect(definitionProblem(board({ statMin: 2, statMax: 1 }))).toEqual({
      at: 'stat_min',
      message: 'must be <= stat_max',
    });
    expect(definitionProblem(board({ statMin: 1, statMax: 1 }))).toBeNull();
    expect(definitionProblem(board({ statMin: 5, statMax: null }))).toBeNull();
  });
});

describe('promotion and demotion', () => {
  const leagues = [
    league('a', 0, { promoteTop: 2 }),
    league('b', 1, { promoteTop: 1, demoteBottom: 2 }),
    league('c', 2, { demoteBottom: 1 }),
  ];

  it('moves the top ranked users up and the bottom of the listing down', () => {
    const moves = planLeagueMoves(leagues, [
      { league: 'a', ranked: 5, assigned: 8 },
      { league: 'b', ranked: 4, assigned: 4 },
      { league: 'c', ranked: 0, assigned: 3 },
    ]);
    const [a, b, c] = moves as [(typeof moves)[0], (typeof moves)[0], (typeof moves)[0]];
    expect([1, 2, 3, 6].map((p) => destinationOf(a, p, p <= 5))).toEqual(['b', 'b', 'a', null]);
    expect([1, 2, 3, 4].map((p) => destinationOf(b, p, true))).toEqual(['c', 'b', 'a', 'a']);
    expect([1, 2, 3].map((p) => destinationOf(c, p, false))).toEqual(['c', 'c', 'b']);
  });

  it('lets promotion win in a league too small for both, and never promotes users without a stat', () => {
    const [, b] = planLeagueMoves(leagues, [{ league: 'b', ranked: 1, assigned: 2 }]);
    expect(b).toMatchObject({ promoteThrough: 1, demoteFrom: 2 });
    const [a] = planLeagueMoves(leagues, [{ league: 'a', ranked: 0, assigned: 3 }]);
    expect(a?.promoteThrough).toBe(0);
  });
});

describe('rewards and definitions', () => {
  it('find the reward of a rank', () => {
    const rewards = [
      { league: 'g', rankFrom: 1, rankTo: 1, reward: { gems: 100 } },
      { league: 'g', rankFrom: 2, rankTo: 10, reward: { gems: 10 } },
    ];
    expect(rewardFor(rewards, 'g', 1)).toEqual({ gems: 100 });
    expect(rewardFor(rewards, 'g', 10)).toEqual({ gems: 10 });
    expect(rewardFor(rewards, 'g', 11)).toBeNull();
    expect(rewardFor(rewards, 'x', 1)).toBeNull();
  });

  it('reject what the model does not allow, naming where', () => {
    expect(definitionProblem(board())).toBeNull();
    expect(definitionProblem(board({ leagues: [] }))?.at).toBe('leagues');
    expect(definitionProblem(board({ type: 'AT_RESET' }))?.at).toBe('reset');
    expect(definitionProblem(board({ leagues: [league('a', 0), league('a', 1, { minStat: 1 })] }))?.message).toMatch(
      /duplicate/,
    );
    expect(definitionProblem(board({ leagues: [league('a', 0), league('b', 1)] }))?.at).toBe('leagues[1].min_stat');
    expect(
      definitionProblem(board({ leagues: [league('a', 0, { minStat: 5 }), league('b', 1, { minStat: 3 })] }))?.at,
    ).toBe('leagues[1].min_stat');
    const overlapping = board({
      rewards: [
        { league: 'global', rankFrom: 1, rankTo: 5, reward: 1 },
        { league: 'global', rankFrom: 5, rankTo: 9, reward: 2 },
      ],
    });
    expect(definitionProblem(overlapping)?.at).toBe('rewards[1]');
    expect(definitionProblem(board({ rewards: [{ league: 'nope', rankFrom: 1, rankTo: 1, reward: 1 }] }))?.at).toBe(
      'rewards[0].league',
    );
  });
});
