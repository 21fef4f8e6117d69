/** The rules of §18's reads centred on players, apart from any store (core, no database). */
import { describe, expect, it } from 'vitest';
import type { PeriodStanding } from '../../src/core/leaderboards/leaderboard-store.js';
import { aroundWindow, bestPeriod, chosenUserIds, compareChosen } from '../../src/core/leaderboards/player-reads.js';

describe('aroundWindow', () => {
  it('centres 2 × radius + 1 ranks on the rank and shifts them to stay inside the league', () => {
    expect(aroundWindow(50, 100, 5)).toEqual({ offset: 44, limit: 11 });
    expect(aroundWindow(1, 100, 5)).toEqual({ offset: 0, limit: 11 });
    expect(aroundWindow(3, 100, 5)).toEqual({ offset: 0, limit: 11 });
    expect(aroundWindow(100, 100, 5)).toEqual({ offset: 89, limit: 11 });
    expect(aroundWindow(97, 100, 5)).toEqual({ offset: 89, limit: 11 });
    expect(aroundWindow(6, 11, 5)).toEqual({ offset: 0, limit: 11 });
  });

  it('shows the whole league when it is smaller than the window', () => {
    expect(aroundWindow(3, 4, 5)).toEqual({ offset: 0, limit: 4 });
    expect(aroundWindow(1, 1, 1)).toEqual({ offset: 0, limit: 1 });
  });

  it('shows the bottom radius + 1 to a caller without a rank', () => {
    expect(aroundWindow(null, 100, 5)).toEqual({ offset: 94, limit: 6 });
    expect(aroundWindow(null, 3, 5)).toEqual({ offset: 0, limit: 3 });
    expect(aroundWindow(null, 0, 5)).toEqual({ offset: 0, limit: 0 });
  });

  it('keeps a whole window even when a cached rank lies past the cached total', () => {
    expect(aroundWindow(120, 100, 5)).toEqual({ offset: 89, limit: 11 });
  });
});

describe('chosenUserIds', () => {
  it('reads each id once, in order, dropping ids no user can have', () => {
    expect(chosenUserIds('12,3,12,007,0,2147483647,2147483648,99999999999999999999')).toEqual([12, 3, 7, 2147483647]);
    expect(chosenUserIds('5')).toEqual([5]);
    expect(chosenUserIds('1,,2,x3,4y,-5,6')).toEqual([1, 2, 6]);
    expect(chosenUserIds('')).toEqual([]);
  });
});

describe('compareChosen', () => {
  it('orders ranked users by rank, then users without a stat by id', () => {
    const users = [
      { userId: 9, rank: null },
      { userId: 4, rank: 7 },
      { userId: 2, rank: null },
      { userId: 8, rank: 1 },
    ];
    expect(users.sort(compareChosen).map((u) => u.userId)).toEqual([8, 4, 2, 9]);
  });
});

describe('bestPeriod', () => {
  const period = (periodStart: number, rank: number): PeriodStanding => ({
    periodStart,
    periodEnd: periodStart + 1,
    rank,
    statValue: 0,
    league: 'global',
    reward: null,
  });

  it('is the lowest final rank, the newest period on a tie, or null without periods', () => {
    expect(bestPeriod([period(30, 4), period(20, 2), period(10, 3)])).toEqual(period(20, 2));
    expect(bestPeriod([period(10, 1), period(30, 1), period(20, 1)])).toEqual(period(30, 1));
    expect(bestPeriod([])).toBeNull();
  });
});
