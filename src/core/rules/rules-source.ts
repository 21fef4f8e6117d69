import type { CompiledRuleset } from './compiled-ruleset.js';

/**
 * Where the services that check rules get a project's ruleset: compiled once per revision and
 * kept current on every instance (a change is announced on the bus).
 */
export interface RulesSource {
  /** The project's compiled ruleset; the open ruleset when it never set one. */
  compiled(projectId: number): Promise<CompiledRuleset>;
  /**
   * The cached ruleset when it needs no database read, without a promise: every client request
   * asks, and an await costs more than the check on this path.
   */
  fresh?(projectId: number): CompiledRuleset | undefined;
  /** Calls `listener` with the project id whenever a project's ruleset changes, on any instance; returns a function that stops listening. */
  onChange(listener: (projectId: number) => void): () => void;
}
