import { describe, expect, it } from 'vitest';
import { CompiledRuleset, type RuleAuth } from '../../../src/core/rules/compiled-ruleset.js';
import { parsePattern } from '../../../src/core/rules/rule-pattern.js';
import { OPEN_RULESET, parseRuleset } from '../../../src/core/rules/ruleset.js';

const auth: RuleAuth = { uid: '42', username: 'ann', roles: ['player'] };
const facts = (resource: unknown = null, requestResource: unknown = null) => ({
  auth,
  time: new Date('2026-11-24T12:00:00Z'),
  resource: resource as null,
  requestResource: requestResource as null,
});
const compile = (rules: unknown) => new CompiledRuleset(parseRuleset(rules));
const problem = (rules: unknown) => {
  try {
    parseRuleset(rules);
    return 'valid';
  } catch (error) {
    return (error as Error).message;
  }
};

describe('rule patterns (§9)', () => {
  it('parses literals, variables and a trailing rest variable', () => {
    expect(parsePattern('users/{uid}/{rest=**}')).toEqual({
      segments: [
        { kind: 'literal', value: 'users' },
        { kind: 'variable', name: 'uid' },
        { kind: 'rest', name: 'rest' },
      ],
      variables: ['uid', 'rest'],
    });
  });

  it.each([
    ['a{b}', /wholly a literal or wholly a variable/],
    ['{a}/{a}', /duplicate variable 'a'/],
    ['{rest=**}/x', /must be the last segment/],
    ['{request}', /reserved/],
    ['{1x}', /wholly a literal/],
    ['users/*', /use \{name\}/],
    ['', /empty pattern/],
  ])('refuses %s', (pattern, message) => {
    expect(() => parsePattern(pattern)).toThrow(message);
  });
});

describe('ruleset validation (§9)', () => {
  it.each([
    [[], 'rules: must be an object'],
    [{ other: [] }, 'other: unknown key'],
    [{ documents: [{ match: 'a/{b}', allow: { read: 'true' }, extra: 1 }] }, 'documents[0].extra: unknown key'],
    [{ documents: [{ match: 'a/{b}', allow: { pull: 'true' } }] }, 'documents[0].allow.pull: unknown op'],
    [{ realtime: [{ match: 'a', allow: { get: 'true' } }] }, 'realtime[0].allow.get: unknown op'],
    [{ documents: [{ match: 'a{b}', allow: {} }] }, 'documents[0].match: segment'],
    [{ documents: [{ match: '{a}/{a}', allow: {} }] }, 'documents[0].match: duplicate variable'],
    [{ documents: [{}, { match: 'a/{b}', allow: { write: 'true &&' } }] }, 'documents[0].match: must be a string'],
    [{ documents: [{ match: 'a/{b}', allow: { write: 'true &&' } }] }, 'documents[0].allow.write: '],
    [{ documents: [{ match: 'a/{b}', allow: { read: 'c == "1"' } }] }, 'documents[0].allow.read: Unknown variable: c'],
    [{ documents: [{ match: 'a/{b}', allow: { read: '1 + 2' } }] }, 'documents[0].allow.read: must be a boolean'],
    [
      { documents: [{ match: 'a/{b}', allow: { read: `b == "${'x'.repeat(2000)}"` } }] },
      'documents[0].allow.read: longer than 2000',
    ],
    [{ realtime: Array.from({ length: 501 }, () => ({ match: 'a', allow: {} })) }, 'realtime: more than 500 rules'],
  ])('names where the problem is: %j', (rules, start) => {
    expect(problem(rules).startsWith(start)).toBe(true);
  });

  it('accepts the open ruleset, a missing area and 500 rules', () => {
    expect(parseRuleset(OPEN_RULESET)).toEqual(OPEN_RULESET);
    expect(parseRuleset({ documents: [] })).toEqual({ documents: [], realtime: [] });
    expect(problem({ realtime: Array.from({ length: 500 }, () => ({ match: 'a', allow: {} })) })).toBe('valid');
  });
});

describe('decisions (§9)', () => {
  const owner = compile({
    documents: [
      { match: 'users/{uid}/{rest=**}', allow: { read: 'request.auth.uid == uid', write: 'request.auth.uid == uid' } },
      { match: 'posts/{post}', allow: { read: 'true', create: 'request.resource.data.owner == request.auth.uid' } },
      { match: 'posts/{post}', allow: { update: 'resource.data.owner == request.auth.uid', delete: 'false' } },
    ],
    realtime: [{ match: 'rooms/{room}', allow: { read: '"player" in request.auth.roles', write: 'room == "open"' } }],
  });

  it('grants by the op or the op that includes it, lowest rule first', () => {
    expect(owner.documentCheck('get', 'users/42').decide(facts())).toEqual({ allowed: true, rule: 0 });
    expect(owner.documentCheck('list', 'users/42/saves/s1').decide(facts())).toEqual({ allowed: true, rule: 0 });
    expect(owner.documentCheck('delete', 'users/42/saves/s1').decide(facts())).toEqual({ allowed: true, rule: 0 });
    expect(owner.documentCheck('get', 'users/7').decide(facts())).toEqual({ allowed: false, rule: null });
    expect(owner.documentCheck('get', 'posts/p1').decide(facts())).toEqual({ allowed: true, rule: 1 });
  });

  it('uses request.resource on create and resource on update', () => {
    const mine = { data: { owner: '42' } };
    const theirs = { data: { owner: '7' } };
    expect(owner.documentCheck('create', 'posts/p1').decide(facts(null, mine)).allowed).toBe(true);
    expect(owner.documentCheck('create', 'posts/p1').decide(facts(null, theirs)).allowed).toBe(false);
    expect(owner.documentCheck('update', 'posts/p1').decide(facts(mine, theirs))).toEqual({ allowed: true, rule: 2 });
    expect(owner.documentCheck('update', 'posts/p1').decide(facts(theirs, mine)).allowed).toBe(false);
    expect(owner.documentCheck('update', 'posts/p1').readsResource).toBe(true);
    expect(owner.documentCheck('get', 'users/42').readsResource).toBe(false);
  });

  it('counts a failing expression as false (missing field, resource null)', () => {
    expect(owner.documentCheck('update', 'posts/p1').decide(facts(null, null)).allowed).toBe(false);
    expect(owner.documentCheck('update', 'posts/p1').decide(facts({ data: {} })).allowed).toBe(false);
  });

  it('matches a pattern only on its own path for documents, also on ancestors for the realtime tree', () => {
    expect(owner.documentCheck('get', 'posts/p1/comments/c1').candidates).toHaveLength(0);
    expect(owner.realtimeCheck('read', 'rooms/r1').decide(facts()).allowed).toBe(true);
    expect(owner.realtimeCheck('read', 'rooms/r1/chat/1').decide(facts()).allowed).toBe(true);
    expect(owner.realtimeCheck('read', 'rooms').decide(facts()).allowed).toBe(false);
    expect(owner.realtimeCheck('write', 'rooms/open/x').decide(facts()).allowed).toBe(true);
    expect(owner.realtimeCheck('write', 'rooms/closed/x').decide(facts()).allowed).toBe(false);
  });

  it('compares JSON numbers as doubles with int literals', () => {
    const rules = compile({
      documents: [{ match: 'a/{b}', allow: { read: 'resource.data.n == 1 && resource.data.n < 2.5' } }],
    });
    expect(rules.documentCheck('get', 'a/b').decide(facts({ data: { n: 1 } })).allowed).toBe(true);
    expect(rules.documentCheck('get', 'a/b').decide(facts({ data: { n: 1.5 } })).allowed).toBe(false);
  });

  it('binds a rest variable to the remaining segments, "" when none', () => {
    const rules = compile({
      documents: [{ match: 'u/{id}/{rest=**}', allow: { read: 'rest == "" || rest == "a/b"' } }],
    });
    expect(rules.documentCheck('get', 'u/1').decide(facts()).allowed).toBe(true);
    expect(rules.documentCheck('get', 'u/1/a/b').decide(facts()).allowed).toBe(true);
    expect(rules.documentCheck('get', 'u/1/a/c').decide(facts()).allowed).toBe(false);
  });

  it('knows the open ruleset', () => {
    expect(new CompiledRuleset(OPEN_RULESET).open).toBe(true);
    expect(owner.open).toBe(false);
  });

  it('chooses among thousands of rules by walking the path, not the rules', () => {
    const many = compile({
      documents: Array.from({ length: 500 }, (_, i) => ({ match: `c${i}/{id}`, allow: { read: 'true' } })),
    });
    expect(many.documentCheck('get', 'c499/x').decide(facts())).toEqual({ allowed: true, rule: 499 });
    expect(many.documentCheck('get', 'c500/x').candidates).toHaveLength(0);
  });
});
