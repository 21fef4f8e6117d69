/** The storage port of §9 rulesets: every saved revision of a project's ruleset. */
import type { Ruleset } from './ruleset.js';

/** One saved ruleset of a project. */
export interface RulesRevision {
  /** 1 for the first save, then previous + 1. */
  revision: number;
  rules: Ruleset;
  /** When it was saved, epoch milliseconds. */
  updatedAt: number;
}

/** How many revisions a project keeps at least (the newest ones); older ones may be dropped. */
export const KEPT_REVISIONS = 50;

/**
 * Revisions of each project's ruleset. A save takes revision = previous + 1 atomically: two
 * concurrent saves never get the same revision, also from several instances on one database.
 */
export interface RulesStore {
  /** The newest revision; null when the project never saved rules. */
  current(projectId: number): Promise<RulesRevision | null>;
  /** The number of the newest revision (0 when none): a cheap check that a cached ruleset is current. */
  currentRevision(projectId: number): Promise<number>;
  /** Saves `rules` as the next revision, stamped `now`, and returns it. */
  save(projectId: number, rules: Ruleset, now: number): Promise<RulesRevision>;
  /** The newest revisions first, at most `limit`. */
  revisions(projectId: number, limit: number): Promise<RulesRevision[]>;
}
