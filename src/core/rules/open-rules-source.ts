import { OPEN_RULES } from './compiled-ruleset.js';
import type { RulesSource } from './rules-source.js';

const open = Promise.resolve(OPEN_RULES);

/** Every project has the open ruleset (§9's default), forever: no rules are stored, none change. */
export const openRulesSource: RulesSource = {
  compiled: () => open,
  onChange: () => () => undefined,
};
