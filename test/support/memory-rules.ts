/** Rulesets held in memory, for tests of the services that check rules (§9). */
import { CompiledRuleset, OPEN_RULES } from '../../src/core/rules/compiled-ruleset.js';
import type { RulesSource } from '../../src/core/rules/rules-source.js';
import { parseRuleset } from '../../src/core/rules/ruleset.js';

export class MemoryRulesSource implements RulesSource {
  private readonly rulesets = new Map<number, CompiledRuleset>();
  private readonly listeners = new Set<(projectId: number) => void>();

  async compiled(projectId: number): Promise<CompiledRuleset> {
    return this.rulesets.get(projectId) ?? OPEN_RULES;
  }

  onChange(listener: (projectId: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Validates and sets a project's ruleset, then tells the listeners. */
  set(projectId: number, rules: unknown): void {
    this.rulesets.set(projectId, new CompiledRuleset(parseRuleset(rules)));
    for (const listener of this.listeners) listener(projectId);
  }
}
