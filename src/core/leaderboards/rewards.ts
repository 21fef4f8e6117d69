import type { JsonValue } from '../json.js';
import type { Reward } from './leaderboard-model.js';

/** The reward of a final rank in a league, or null (ranges of one league never overlap). */
export function rewardFor(rewards: readonly Reward[], league: string, rank: number): JsonValue | null {
  const match = rewards.find((r) => r.league === league && rank >= r.rankFrom && rank <= r.rankTo);
  return match ? match.reward : null;
}
