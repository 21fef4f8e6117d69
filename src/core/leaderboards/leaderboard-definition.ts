/** The rules a board's definition must follow, shared by board creation and import. */
import { validationFailed } from '../errors.js';
import { unstorableReason } from '../json.js';
import type { LeaderboardDefinition } from './leaderboard-model.js';
import { tournamentProblem } from './tournament.js';

/** Slugs of boards and leagues: they appear in URLs, so a conservative alphabet. */
export const SLUG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** One problem of a definition: where (relative to the definition, e.g. `leagues[1].min_stat`) and what. */
export interface DefinitionProblem {
  at: string;
  message: string;
}

const isCount = (n: number | null) => n === null || (Number.isInteger(n) && n >= 0);

/** The first problem of a definition, or null when it is valid. Leagues must already be sorted by order. */
export function definitionProblem(def: LeaderboardDefinition): DefinitionProblem | null {
  if (!SLUG_PATTERN.test(def.slug))
    return { at: 'slug', message: 'must be 1-64 letters, digits, _ . - (not starting with a symbol)' };
  if (def.name.length === 0) return { at: 'name', message: 'must not be empty' };
  if (def.leagues.length === 0) return { at: 'leagues', message: 'a leaderboard needs at least one league' };
  if (def.type === 'AT_RESET' && def.reset === 'none') {
    return { at: 'reset', message: 'an AT_RESET leaderboard needs a reset schedule (daily, weekly or monthly)' };
  }
  if (def.statMin !== null && def.statMax !== null && def.statMin > def.statMax) {
    return { at: 'stat_min', message: 'must be <= stat_max' };
  }
  const tournament = tournamentProblem(def);
  if (tournament) return tournament;
  const slugs = new Set<string>();
  for (const [i, league] of def.leagues.entries()) {
    const at = `leagues[${i}]`;
    if (!SLUG_PATTERN.test(league.slug)) return { at: `${at}.slug`, message: 'must be 1-64 letters, digits, _ . -' };
    if (slugs.has(league.slug)) return { at: `${at}.slug`, message: `duplicate league '${league.slug}'` };
    slugs.add(league.slug);
    if (league.order !== i)
      return { at: `${at}.order`, message: `orders must be 0, 1, 2, ... without gaps (expected ${i})` };
    if (def.type === 'CONTINUOUS') {
      if (league.promoteTop !== null || league.demoteBottom !== null) {
        return { at: at, message: 'promote_top and demote_bottom apply to AT_RESET leaderboards only' };
      }
      if (i > 0) {
        if (league.minStat === null) return { at: `${at}.min_stat`, message: 'required above the lowest league' };
        const below = def.leagues[i - 1]?.minStat;
        if (below !== null && below !== undefined) {
          const better = def.sort === 'desc' ? league.minStat > below : league.minStat < below;
          if (!better) return { at: `${at}.min_stat`, message: 'must be better than the min_stat of the league below' };
        }
      }
    } else {
      if (league.minStat !== null)
        return { at: `${at}.min_stat`, message: 'min_stat applies to CONTINUOUS leaderboards only' };
      if (!isCount(league.promoteTop)) return { at: `${at}.promote_top`, message: 'must be an integer >= 0' };
      if (!isCount(league.demoteBottom)) return { at: `${at}.demote_bottom`, message: 'must be an integer >= 0' };
    }
  }
  for (const [i, reward] of def.rewards.entries()) {
    const at = `rewards[${i}]`;
    if (!slugs.has(reward.league)) return { at: `${at}.league`, message: `unknown league '${reward.league}'` };
    if (!Number.isInteger(reward.rankFrom) || reward.rankFrom < 1)
      return { at: `${at}.rank_from`, message: 'must be an integer >= 1' };
    if (!Number.isInteger(reward.rankTo) || reward.rankTo < reward.rankFrom) {
      return { at: `${at}.rank_to`, message: 'must be an integer >= rank_from' };
    }
    const overlap = def.rewards.findIndex(
      (other, j) =>
        j < i && other.league === reward.league && other.rankFrom <= reward.rankTo && reward.rankFrom <= other.rankTo,
    );
    if (overlap >= 0) return { at, message: `overlaps rewards[${overlap}] in league '${reward.league}'` };
    const unstorable = unstorableReason(reward.reward);
    if (unstorable) return { at: `${at}.reward`, message: unstorable };
  }
  return null;
}

/** Throws the 422 naming the first problem of a definition (board creation and admin edits). */
export function checkDefinition(definition: LeaderboardDefinition): void {
  const problem = definitionProblem(definition);
  if (problem) {
    throw validationFailed([
      { loc: ['body', ...problem.at.split(/[.[\]]+/).filter(Boolean)], msg: problem.message, type: 'value_error' },
    ]);
  }
}
