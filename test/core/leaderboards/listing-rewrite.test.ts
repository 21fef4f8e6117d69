/** The reset and re-homing plans of `listing-rewrite.ts`, fed listings as an engine would (no database). */
import { describe, expect, it } from 'vitest';
import { type ListingRewrite, redefineRewrite, resetRewrite } from '../../../src/core/leaderboards/listing-rewrite.js';
import { type RankKey, scoreOf, unrankedKey } from '../../../src/core/leaderboards/rank-order.js';
import { league } from '../../support/leaderboards.js';

const ranked = (userId: number, stat: number, updatedAt = 1): RankKey => ({
  score: scoreOf('desc', stat),
  updatedAt,
  userId,
});

/** Runs a plan over listings (each already in rank order) in batches of `size`, as the engines do. */
function run(rewrite: ListingRewrite, listings: Record<string, RankKey[]>, size = 2) {
  const counts = Object.entries(listings).map(([slug, keys]) => ({
    league: slug,
    ranked: keys.filter((k) => Number.isFinite(k.score)).length,
    assigned: keys.length,
  }));
  const out = {
    history: [] as unknown[],
    entries: [] as unknown[],
    assignments: [] as unknown[],
    read: [] as string[],
  };
  for (const slug of rewrite.leaguesToRead(counts)) {
    out.read.push(slug);
    const keys = listings[slug] ?? [];
    for (let i = 0; i === 0 || i < keys.length; i += size) {
      const rows = rewrite.place(slug, keys.slice(i, i + size));
      out.history.push(...rows.history);
      out.entries.push(...rows.entries);
      out.assignments.push(...rows.assignments);
    }
  }
  return out;
}

describe('the reset plan', () => {
  const ladder = [
    league('bronze', 0, { promoteTop: 1 }),
    league('silver', 1, { promoteTop: 1, demoteBottom: 1 }),
    league('gold', 2, { demoteBottom: 2 }),
  ];
  const rewards = [
    { league: 'gold', rankFrom: 1, rankTo: 1, reward: { gems: 100 } },
    { league: 'gold', rankFrom: 2, rankTo: 3, reward: { gems: 50 } },
    { league: 'bronze', rankFrom: 1, rankTo: 10, reward: 'badge' },
  ];

  it('archives ranked users with ranks across batches and the reward of each rank', () => {
    const plan = resetRewrite({ type: 'CONTINUOUS', sort: 'desc', leagues: ladder, rewards });
    const out = run(plan, { gold: [ranked(1, 500), ranked(3, 400, 0), ranked(2, 400), ranked(4, 100)] });
    expect(out.history).toEqual([
      { rank: 1, userId: 1, statValue: 500, league: 'gold', updatedAt: 1, reward: { gems: 100 } },
      { rank: 2, userId: 3, statValue: 400, league: 'gold', updatedAt: 0, reward: { gems: 50 } },
      { rank: 3, userId: 2, statValue: 400, league: 'gold', updatedAt: 1, reward: { gems: 50 } },
      { rank: 4, userId: 4, statValue: 100, league: 'gold', updatedAt: 1, reward: null },
    ]);
    // A CONTINUOUS board has no assignments to move.
    expect(out.assignments).toEqual([]);
  });

  it('promotes, demotes and drops idle users of the lowest league on AT_RESET boards', () => {
    const plan = resetRewrite({ type: 'AT_RESET', sort: 'desc', leagues: ladder, rewards });
    const out = run(plan, {
      bronze: [ranked(21, 9), ranked(22, 8), unrankedKey(23)],
      silver: [ranked(11, 90), ranked(12, 80), ranked(13, 70)],
      gold: [ranked(1, 500), ranked(2, 400), ranked(3, 300)],
    });
    expect(out.assignments).toEqual([
      { userId: 21, league: 'silver' },
      { userId: 23, league: null },
      { userId: 11, league: 'gold' },
      { userId: 13, league: 'bronze' },
      { userId: 2, league: 'silver' },
      { userId: 3, league: 'silver' },
    ]);
    // Users without a stat are not archived; ranks are per league.
    expect(out.history).toHaveLength(8);
    expect(out.history).toContainEqual(
      expect.objectContaining({ league: 'bronze', rank: 2, userId: 22, reward: 'badge' }),
    );
  });

  it('leaves the users of a league the board no longer has where they are', () => {
    const plan = resetRewrite({ type: 'AT_RESET', sort: 'desc', leagues: ladder, rewards: [] });
    const out = run(plan, { gone: [ranked(5, 1), unrankedKey(6)] });
    expect(out.assignments).toEqual([]);
    expect(out.history).toEqual([expect.objectContaining({ league: 'gone', rank: 1, userId: 5 })]);
  });
});

describe('the re-homing plan of an admin edit', () => {
  it('moves CONTINUOUS entries to the league their stat reaches, and only those that change', () => {
    const leagues = [league('low', 0), league('mid', 1, { minStat: 40 }), league('top', 2, { minStat: 300 })];
    const plan = redefineRewrite({ type: 'CONTINUOUS', sort: 'desc', leagues });
    const out = run(plan, { low: [ranked(1, 50), ranked(4, 10)], high: [ranked(3, 500), ranked(2, 150)] });
    expect(out.read).toEqual(['low', 'high']);
    expect(out.entries).toEqual([
      { userId: 1, league: 'mid' },
      { userId: 3, league: 'top' },
      { userId: 2, league: 'mid' },
    ]);
    expect(out.assignments).toEqual([]);
  });

  it('reads only the leagues that are gone on AT_RESET boards and sends their users to the lowest', () => {
    const plan = redefineRewrite({ type: 'AT_RESET', sort: 'asc', leagues: [league('b', 0), league('s', 1)] });
    const out = run(plan, { b: [ranked(1, 5)], g: [{ score: 3, updatedAt: 1, userId: 7 }, unrankedKey(8)] });
    expect(out.read).toEqual(['g']);
    expect(out.entries).toEqual([{ userId: 7, league: 'b' }]);
    expect(out.assignments).toEqual([
      { userId: 7, league: 'b' },
      { userId: 8, league: 'b' },
    ]);
  });
});
