import { OPEN_RULES } from './compiled-ruleset.js';
import type { RulesSource } from './rules-source.js';

/** Every project under the open ruleset, for good (a service built without stored rules). */
export const openRulesSource: RulesSource = {
  compiled: async () => OPEN_RULES,
  onChange: () => () => undefined,
};
