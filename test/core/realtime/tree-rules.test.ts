import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { TreeRules } from '../../../src/core/realtime/tree-rules.js';
import { CompiledRuleset, OPEN_RULES, type RuleAuth } from '../../../src/core/rules/compiled-ruleset.js';
import { parseRuleset } from '../../../src/core/rules/ruleset.js';
import { TREE_RULES } from '../../support/rules.js';

const AUTH: RuleAuth = { uid: '7', username: 'ann', roles: ['player'] };

/** TreeRules over a fixed ruleset, counting the `request.auth` lookups. */
function rulesOver(ruleset: CompiledRuleset) {
  const lookups: number[] = [];
  const rules = new TreeRules({
    source: { compiled: async () => ruleset, onChange: () => () => undefined },
    auth: {
      of: async (_projectId, userId) => {
        lookups.push(userId);
        return AUTH;
      },
    },
    clock: { now: () => 0 },
  });
  return { rules, lookups };
}

/** A value reader over a fixed tree of paths, recording what it was asked. */
function valuesOf(tree: Record<string, JsonValue>) {
  const asked: string[] = [];
  const valueAt = async (path: string) => {
    asked.push(path);
    return tree[path] ?? null;
  };
  return { valueAt, asked };
}

describe('realtime tree rules', () => {
  const restricted = new CompiledRuleset(parseRuleset(TREE_RULES));

  it('the open ruleset allows everything without looking up the user or reading values', async () => {
    const { rules, lookups } = rulesOver(OPEN_RULES);
    const caller = await rules.of(1, 7);
    const { valueAt, asked } = valuesOf({});
    expect(caller.open).toBe(true);
    expect(caller.basis).toBeNull();
    expect(await caller.mayRead('anything', valueAt)).toBe(true);
    expect(await caller.mayWrite([{ path: 'once/x', value: 1 }], valueAt)).toBe(true);
    expect(lookups).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('reads a value only for rules naming resource', async () => {
    const caller = await rulesOver(restricted).rules.of(1, 7);
    const { valueAt, asked } = valuesOf({ 'vault/a': { shared: true }, 'once/x': 1 });
    expect(await caller.mayRead('users/7/deep/path', valueAt)).toBe(true);
    expect(await caller.mayRead('users/8', valueAt)).toBe(false);
    expect(await caller.mayWrite([{ path: 'scores/a', value: 5 }], valueAt)).toBe(true);
    expect(asked).toEqual([]);
    expect(await caller.mayRead('vault/a', valueAt)).toBe(true);
    expect(await caller.mayWrite([{ path: 'once/x', value: 2 }], valueAt)).toBe(false);
    expect(await caller.mayWrite([{ path: 'once/y', value: 2 }], valueAt)).toBe(true);
    expect(asked).toEqual(['vault/a', 'once/x', 'once/y']);
  });

  it('a write of several paths is all or nothing, deciding value-free checks before reading', async () => {
    const caller = await rulesOver(restricted).rules.of(1, 7);
    const { valueAt, asked } = valuesOf({});
    const denied = [
      { path: 'once/x', value: 1 },
      { path: 'users/8/a', value: 1 },
    ];
    expect(await caller.mayWrite(denied, valueAt)).toBe(false);
    expect(asked).toEqual([]);
    const allowed = [
      { path: 'once/x', value: 1 },
      { path: 'users/7/a', value: null },
    ];
    expect(await caller.mayWrite(allowed, valueAt)).toBe(true);
    expect(asked).toEqual(['once/x']);
  });

  it('a grant stands under the same ruleset and request.auth only', async () => {
    const { rules } = rulesOver(restricted);
    const first = await rules.of(1, 7);
    const second = await rules.of(1, 7);
    expect(second.covers(first.basis)).toBe(true);
    expect(second.covers(null)).toBe(false);
    const other = await rulesOver(new CompiledRuleset(parseRuleset(TREE_RULES))).rules.of(1, 7);
    expect(other.covers(first.basis)).toBe(false);
    expect((await rulesOver(OPEN_RULES).rules.of(1, 7)).covers(first.basis)).toBe(true);
  });
});
