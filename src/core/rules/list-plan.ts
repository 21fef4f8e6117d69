/**
 * How a list or query obeys the `list` rules (§9) without reading what it may not return. Per
 * request, each rule that may match the collection's children is decided once when it does not
 * depend on the child (`all` or nothing), turned into `where` clauses when it is a conjunction of
 * `resource.data` comparisons with values known before the query (`where`: the database filters),
 * and otherwise left to a document-by-document check (`each`).
 */
import type { JsonValue } from '../json.js';
import type { Lookup, Scalar, WhereClause } from '../where.js';
import type { CompiledRuleset, ListCandidate, RuleAuth } from './compiled-ruleset.js';
import { ruleVariables } from './compiled-ruleset.js';
import {
  type CelNode,
  type CompiledExpression,
  compileExpression,
  isNode,
  namesIdentifier,
} from './rule-expression.js';

/** What a list or query must do to return only what the caller may list. */
export type ListPlan =
  | { kind: 'all' }
  | { kind: 'none' }
  | { kind: 'where'; clauses: WhereClause[] }
  | { kind: 'each' };

/** Stands for the unknown id of a child while planning; no stored path segment contains NUL. */
const CHILD = '\u0000child';

type Outcome = { kind: 'all' } | { kind: 'never' } | { kind: 'where'; clauses: WhereClause[] } | { kind: 'each' };

const LOOKUP_OF: Readonly<Record<string, Lookup>> = { '==': 'exact', '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' };
const FLIPPED: Readonly<Record<string, string>> = { '==': '==', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/**
 * The plan of a list or query of `collection` under `parent` (a document path, `''` for the
 * root; null for a query at any depth, which is checked document by document).
 */
export function planList(
  rules: CompiledRuleset,
  parent: string | null,
  collection: string,
  facts: { auth: RuleAuth; time: Date },
): ListPlan {
  if (rules.open) return { kind: 'all' };
  if (parent === null) return { kind: 'each' };
  const outcomes = rules
    .listCandidates(parent === '' ? collection : `${parent}/${collection}`, CHILD)
    .flatMap((candidate) => candidate.expressions.map((expression) => outcomeOf(candidate, expression, facts)));
  if (outcomes.some((o) => o.kind === 'all')) return { kind: 'all' };
  if (outcomes.some((o) => o.kind === 'each')) return { kind: 'each' };
  const filters = outcomes.filter((o): o is { kind: 'where'; clauses: WhereClause[] } => o.kind === 'where');
  if (filters.length === 0) return { kind: 'none' };
  return filters.length === 1
    ? { kind: 'where', clauses: (filters[0] as { clauses: WhereClause[] }).clauses }
    : { kind: 'each' };
}

function outcomeOf(
  candidate: ListCandidate,
  expression: CompiledExpression,
  facts: { auth: RuleAuth; time: Date },
): Outcome {
  const childVariables = Object.keys(candidate.bindings).filter((name) => candidate.bindings[name]?.includes(CHILD));
  const variables = ruleVariables('list', candidate.bindings, { ...facts, resource: null, requestResource: null });
  const dependsOnChild = (node: unknown) =>
    namesIdentifier(node, 'resource') || childVariables.some((name) => namesIdentifier(node, name));
  if (!dependsOnChild(expression.ast)) {
    if (!expression.test(variables)) return { kind: 'never' };
    return candidate.literal === null ? { kind: 'all' } : { kind: 'each' };
  }
  if (candidate.literal !== null) return { kind: 'each' };
  const clauses: WhereClause[] = [];
  for (const conjunct of conjuncts(expression.ast)) {
    if (!dependsOnChild(conjunct)) {
      if (!subexpression(expression, conjunct, candidate).test(variables)) return { kind: 'never' };
      continue;
    }
    const clause = comparison(conjunct, variables);
    if (!clause) return { kind: 'each' };
    clauses.push(clause);
  }
  return clauses.length > 0 ? { kind: 'where', clauses } : { kind: 'all' };
}

function conjuncts(node: CelNode): CelNode[] {
  if (node.op === '&&' && Array.isArray(node.args)) return node.args.filter(isNode).flatMap(conjuncts);
  return [node];
}

const compiledParts = new WeakMap<CompiledExpression, Map<string, CompiledExpression>>();

/** A part of an expression compiled on its own (its source text), remembered per expression. */
function subexpression(expression: CompiledExpression, node: CelNode, candidate: ListCandidate): CompiledExpression {
  const { start, end } = node as CelNode & { start: number; end: number };
  const source = expression.source.slice(start, end);
  let parts = compiledParts.get(expression);
  if (!parts) {
    parts = new Map();
    compiledParts.set(expression, parts);
  }
  let part = parts.get(source);
  if (!part) {
    part = compileExpression(source, candidate.rule.pattern.variables);
    parts.set(source, part);
  }
  return part;
}

/** `resource.data.a.b <op> value` (either side) as a where clause, or null. */
function comparison(node: CelNode, variables: Record<string, unknown>): WhereClause | null {
  if (!Array.isArray(node.args) || node.args.length !== 2) return null;
  const [left, right] = node.args as unknown[];
  if (node.op === 'in') {
    const field = dataField(left);
    const values =
      isNode(right) && right.op === 'list' && Array.isArray(right.args)
        ? right.args.map((item) => knownValue(item, variables))
        : null;
    if (!field || !values || values.some((value) => value === undefined || typeof value === 'object')) return null;
    const scalars = values as Scalar[];
    return { field, lookup: 'in', value: null, text: scalars.map(String).join(','), values: scalars };
  }
  const leftField = dataField(left);
  const [field, op, valueNode] = leftField ? [leftField, node.op, right] : [dataField(right), FLIPPED[node.op], left];
  const lookup = op ? LOOKUP_OF[op] : undefined;
  if (!field || !lookup) return null;
  const value = knownValue(valueNode, variables);
  if (value === undefined || (typeof value === 'object' && value !== null)) return null;
  // Strings order by UTF-16 unit in CEL and by code point in the database: only numbers are ranged.
  if (lookup !== 'exact' && typeof value !== 'number') return null;
  return { field, lookup, value, text: String(value), values: [] };
}

/** The key path of `resource.data.a.b`, or null. */
function dataField(node: unknown): string[] | null {
  const keys: string[] = [];
  let current = node;
  while (isNode(current) && current.op === '.' && Array.isArray(current.args)) {
    const [object, key] = current.args as [unknown, unknown];
    if (typeof key !== 'string') return null;
    keys.unshift(key);
    current = object;
  }
  if (!isNode(current) || current.op !== 'id' || current.args !== 'resource') return null;
  return keys.length >= 2 && keys[0] === 'data' ? keys.slice(1) : null;
}

/** A literal, `request.auth.uid`/`username` or a pattern variable's value; undefined otherwise. */
function knownValue(node: unknown, variables: Record<string, unknown>): JsonValue | undefined {
  if (!isNode(node)) return undefined;
  if (node.op === 'value') {
    const value = node.args;
    if (typeof value === 'bigint') return Number(value);
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return value as JsonValue;
    return undefined;
  }
  if (node.op === 'id' && typeof node.args === 'string' && node.args !== 'request' && node.args !== 'resource') {
    const value = variables[node.args];
    return typeof value === 'string' && !value.includes(CHILD) ? value : undefined;
  }
  if (node.op === '.' && Array.isArray(node.args)) {
    const [object, key] = node.args as [unknown, unknown];
    if ((key === 'uid' || key === 'username') && isNode(object) && object.op === '.' && Array.isArray(object.args)) {
      const [root, auth] = object.args as [unknown, unknown];
      if (auth === 'auth' && isNode(root) && root.op === 'id' && root.args === 'request') {
        const request = variables.request as { auth: Record<string, unknown> };
        const value = request.auth[key];
        return typeof value === 'string' ? value : undefined;
      }
    }
  }
  return undefined;
}
