/** Access rules (§9) for tests: a rules source set by hand, and more players in a test app. */
import { CompiledRuleset, OPEN_RULES } from '../../src/core/rules/compiled-ruleset.js';
import type { RulesSource } from '../../src/core/rules/rules-source.js';
import { parseRuleset } from '../../src/core/rules/ruleset.js';
import type { TestApp } from './app.js';

/** Rulesets held in memory: `set` compiles one and tells the listeners, as a rules change on any instance would. */
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

  /** Gives the project the ruleset `value` (validated like an admin's PUT). */
  set(projectId: number, value: unknown): void {
    this.rulesets.set(projectId, new CompiledRuleset(parseRuleset(value)));
    for (const listener of this.listeners) listener(projectId);
  }

  /** Gives the project the open ruleset again. */
  clear(projectId: number): void {
    this.rulesets.delete(projectId);
    for (const listener of this.listeners) listener(projectId);
  }
}

/** Another player of the test app's project: its id and §1 headers. */
export async function addPlayer(
  t: TestApp,
  username: string,
  roles?: string[],
): Promise<{ userId: number; headers: Record<string, string> }> {
  const { accounts } = t.app.services;
  const user = await accounts.createUser(t.project.projectId, {
    username,
    password: 'password-123',
    ...(roles ? { roles } : {}),
  });
  const { access_token } = await accounts.issueToken(t.project.projectId, user.id);
  return {
    userId: user.id,
    headers: {
      'x-client-id': t.project.clientId,
      'x-client-secret': t.project.clientSecret,
      authorization: `Bearer ${access_token}`,
    },
  };
}

/** Owners read and write their own subtree; the rest shows what each kind of rule decides. */
export const TREE_RULES = {
  realtime: [
    { match: 'users/{uid}/{rest=**}', allow: { read: 'request.auth.uid == uid', write: 'request.auth.uid == uid' } },
    { match: 'public/{rest=**}', allow: { read: 'true' } },
    { match: 'rooms/{room}', allow: { read: 'true' } },
    { match: 'scores/{name}', allow: { read: 'true', write: 'request.resource.value < 100' } },
    { match: 'once/{name}', allow: { read: 'true', write: 'resource.value == null' } },
    { match: 'vault/{name}', allow: { read: 'resource.value.shared == true' } },
    { match: 'admin/{rest=**}', allow: { read: '"admin" in request.auth.roles' } },
  ],
};
