/**
 * The §9 ruleset: its JSON shape, the open ruleset, and validation with the `<where>: <problem>`
 * messages of a 400. Expressions are checked by compiling them (`rule-expression.ts`).
 */
import { badRequest } from '../errors.js';
import { isJsonObject, type JsonValue } from '../json.js';
import { compileExpression } from './rule-expression.js';
import { parsePattern } from './rule-pattern.js';

/** The areas a ruleset covers. */
export type RuleArea = 'documents' | 'realtime';

/** One rule: a path pattern and, per op, a CEL expression. */
export interface Rule {
  match: string;
  allow: Record<string, string>;
}

/** A project's rules, one list per area. */
export interface Ruleset {
  documents: Rule[];
  realtime: Rule[];
}

/** The ops a rule may name in each area; `read` and `write` include the finer document ops. */
export const AREA_OPS: Readonly<Record<RuleArea, readonly string[]>> = {
  documents: ['read', 'get', 'list', 'write', 'create', 'update', 'delete'],
  realtime: ['read', 'write'],
};

/** What every holder of an area's permission may do when a project never set rules (§9). */
export const OPEN_RULESET: Ruleset = Object.freeze({
  documents: [{ match: '{path=**}', allow: { read: 'true', write: 'true' } }],
  realtime: [{ match: '{path=**}', allow: { read: 'true', write: 'true' } }],
});

export const MAX_RULES_PER_AREA = 500;
export const MAX_EXPRESSION_LENGTH = 2000;
const AREAS: readonly RuleArea[] = ['documents', 'realtime'];
const RULE_KEYS = new Set(['match', 'allow']);

/**
 * The ruleset `value` describes, checked whole: shape, patterns and expressions. Throws a 400
 * naming the first problem as `<where>: <problem>` (e.g. `documents[2].allow.write: ...`).
 * `prefix` is put before `<where>` (`rules.` for an import).
 */
export function parseRuleset(value: unknown, prefix = ''): Ruleset {
  const fail = (where: string, problem: string) => badRequest(`${prefix}${where}: ${problem}`);
  if (!isJsonObject(value as JsonValue)) throw fail('rules', 'must be an object');
  const input = value as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!(AREAS as readonly string[]).includes(key)) throw fail(key, 'unknown key');
  }
  const ruleset: Ruleset = { documents: [], realtime: [] };
  for (const area of AREAS) {
    const rules = input[area] ?? [];
    if (!Array.isArray(rules)) throw fail(area, 'must be an array');
    if (rules.length > MAX_RULES_PER_AREA) throw fail(area, `more than ${MAX_RULES_PER_AREA} rules`);
    ruleset[area] = rules.map((rule, index) => parseRule(rule, area, `${area}[${index}]`, fail));
  }
  return ruleset;
}

function parseRule(
  value: unknown,
  area: RuleArea,
  where: string,
  fail: (where: string, problem: string) => Error,
): Rule {
  if (!isJsonObject(value as JsonValue)) throw fail(where, 'must be an object');
  const input = value as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!RULE_KEYS.has(key)) throw fail(`${where}.${key}`, 'unknown key');
  }
  const { match, allow } = input;
  if (typeof match !== 'string') throw fail(`${where}.match`, 'must be a string');
  let variables: readonly string[];
  try {
    variables = parsePattern(match).variables;
  } catch (error) {
    throw fail(`${where}.match`, (error as Error).message);
  }
  if (!isJsonObject(allow as JsonValue)) throw fail(`${where}.allow`, 'must be an object');
  const grants: Record<string, string> = {};
  for (const [op, expression] of Object.entries(allow as Record<string, unknown>)) {
    const at = `${where}.allow.${op}`;
    if (!AREA_OPS[area].includes(op)) throw fail(at, `unknown op (expected one of ${AREA_OPS[area].join(', ')})`);
    if (typeof expression !== 'string') throw fail(at, 'must be a string');
    if (expression.length > MAX_EXPRESSION_LENGTH) {
      throw fail(at, `longer than ${MAX_EXPRESSION_LENGTH} characters`);
    }
    try {
      compileExpression(expression, variables);
    } catch (error) {
      throw fail(at, (error as Error).message);
    }
    grants[op] = expression;
  }
  return { match, allow: grants };
}
