/** Builders of leaderboard definitions for tests. */
import {
  type Leaderboard,
  type LeaderboardDefinition,
  type League,
  type Period,
  TOURNAMENT_DEFAULTS,
} from '../../src/core/leaderboards/leaderboard-model.js';
import type { LeaderboardStore } from '../../src/core/leaderboards/leaderboard-store.js';

/** A league with the given extras. */
export function league(slug: string, order: number, extra: Partial<League> = {}): League {
  return { slug, name: slug.toUpperCase(), order, minStat: null, promoteTop: null, demoteBottom: null, ...extra };
}

/** A CONTINUOUS desc `best` board with one `global` league, changed by `extra`. */
export function definition(slug: string, extra: Partial<LeaderboardDefinition> = {}): LeaderboardDefinition {
  return {
    slug,
    name: `Board ${slug}`,
    description: `About ${slug}`,
    type: 'CONTINUOUS',
    sort: 'desc',
    operator: 'best',
    reset: 'none',
    leagues: [league('global', 0)],
    rewards: [],
    clientSubmit: true,
    statMin: null,
    statMax: null,
    ...TOURNAMENT_DEFAULTS,
    ...extra,
  };
}

/** A daily AT_RESET board with three leagues that promote 2 and demote 2. */
export function ladder(slug: string, extra: Partial<LeaderboardDefinition> = {}): LeaderboardDefinition {
  return definition(slug, {
    type: 'AT_RESET',
    reset: 'daily',
    leagues: [
      league('bronze', 0, { promoteTop: 2 }),
      league('silver', 1, { promoteTop: 2, demoteBottom: 2 }),
      league('gold', 2, { demoteBottom: 2 }),
    ],
    rewards: [
      { league: 'gold', rankFrom: 1, rankTo: 1, reward: { gems: 100 } },
      { league: 'gold', rankFrom: 2, rankTo: 3, reward: { gems: 50 } },
      { league: 'bronze', rankFrom: 1, rankTo: 10, reward: 'badge' },
    ],
    ...extra,
  });
}

/** Creates a board through the store; its slug must be free in the project. */
export async function createBoard(
  store: LeaderboardStore,
  projectId: number,
  def: LeaderboardDefinition,
  period: Period,
): Promise<Leaderboard> {
  const board = await store.create(projectId, def, period);
  if (board === 'taken') throw new Error(`board '${def.slug}' exists in project ${projectId}`);
  return board;
}
