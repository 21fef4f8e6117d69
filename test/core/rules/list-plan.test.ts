import { describe, expect, it } from 'vitest';
import { CompiledRuleset } from '../../../src/core/rules/compiled-ruleset.js';
import { planList } from '../../../src/core/rules/list-plan.js';
import { OPEN_RULESET, parseRuleset } from '../../../src/core/rules/ruleset.js';

const facts = { auth: { uid: '42', username: 'ann', roles: ['player'] }, time: new Date() };
const plan = (list: string, match = 'rooms/{room}', parent: string | null = '', collection = 'rooms') =>
  planList(new CompiledRuleset(parseRuleset({ documents: [{ match, allow: { list } }] })), parent, collection, facts);
const clause = (field: string[], lookup: string, value: unknown, values: unknown[] = []) => ({
  field,
  lookup,
  value,
  text: String(value),
  values,
});

describe('list plans (§9)', () => {
  it('decides a rule that does not depend on the document once per request', () => {
    expect(plan('true')).toEqual({ kind: 'all' });
    expect(plan('"player" in request.auth.roles')).toEqual({ kind: 'all' });
    expect(plan('"admin" in request.auth.roles')).toEqual({ kind: 'none' });
    expect(plan('uid == request.auth.uid', 'users/{uid}/saves/{save}', 'users/42', 'saves')).toEqual({ kind: 'all' });
    expect(plan('uid == request.auth.uid', 'users/{uid}/saves/{save}', 'users/7', 'saves')).toEqual({ kind: 'none' });
    expect(planList(new CompiledRuleset(OPEN_RULESET), null, 'rooms', facts)).toEqual({ kind: 'all' });
  });

  it('turns comparisons of resource.data with known values into where clauses', () => {
    expect(plan('resource.data.owner == request.auth.uid')).toEqual({
      kind: 'where',
      clauses: [clause(['owner'], 'exact', '42')],
    });
    expect(plan('request.auth.uid == resource.data.meta.owner && resource.data.level >= 3 && true')).toEqual({
      kind: 'where',
      clauses: [clause(['meta', 'owner'], 'exact', '42'), clause(['level'], 'gte', 3)],
    });
    expect(plan('5 > resource.data.level && resource.data.open == true')).toEqual({
      kind: 'where',
      clauses: [clause(['level'], 'lt', 5), clause(['open'], 'exact', true)],
    });
    expect(plan('resource.data.mode in ["duel", 2]')).toEqual({
      kind: 'where',
      clauses: [{ ...clause(['mode'], 'in', null, ['duel', 2]), text: 'duel,2' }],
    });
    expect(plan('resource.data.region == region', 'regions/{region}/rooms/{room}', 'regions/eu', 'rooms')).toEqual({
      kind: 'where',
      clauses: [clause(['region'], 'exact', 'eu')],
    });
    expect(plan('"admin" in request.auth.roles && resource.data.open == true')).toEqual({ kind: 'none' });
  });

  it('leaves other shapes to a check of each document', () => {
    expect(plan('resource.data.owner == request.auth.uid || resource.data.public == true')).toEqual({ kind: 'each' });
    expect(plan('resource.data.name < "m"')).toEqual({ kind: 'each' });
    expect(plan('resource.data.owner != request.auth.uid')).toEqual({ kind: 'each' });
    expect(plan('request.auth.uid in resource.data.members')).toEqual({ kind: 'each' });
    expect(plan('room == "lobby"')).toEqual({ kind: 'each' });
    expect(plan('true', 'rooms/lobby')).toEqual({ kind: 'each' });
    expect(plan('resource.data.owner == request.auth.uid', 'rooms/{room}', null)).toEqual({ kind: 'each' });
  });

  it('leaves out rules that cannot match the collection, and needs a rule to list anything', () => {
    expect(plan('true', 'rooms/{room}', '', 'lobbies')).toEqual({ kind: 'none' });
    expect(plan('true', 'users/{uid}/{rest=**}', 'users/1/a/b', 'c')).toEqual({ kind: 'all' });
  });
});
