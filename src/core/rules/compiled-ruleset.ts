/**
 * A ruleset compiled once per revision (§9): each area's patterns in a trie, each expression
 * checked and ready. `check` finds the rules of a path and tells whether deciding them needs the
 * stored document; `decide` evaluates them in rule order.
 */
import type { JsonValue } from '../json.js';
import { type PatternMatch, PatternTrie } from './pattern-trie.js';
import { type CompiledExpression, compileExpression, type RuleBindings } from './rule-expression.js';
import { parsePattern, type RulePattern } from './rule-pattern.js';
import { OPEN_RULESET, type RuleArea, type Ruleset } from './ruleset.js';

/** The `request.method` of a document operation. */
export type DocumentMethod = 'get' | 'list' | 'create' | 'update' | 'delete';
/** The `request.method` of a realtime operation. */
export type RealtimeMethod = 'read' | 'write';
/** A method of either area. */
export type RuleMethod = DocumentMethod | RealtimeMethod;

/** Who asks: `request.auth` of §9. */
export interface RuleAuth {
  uid: string;
  username: string;
  roles: readonly string[];
}

/**
 * What an operation's rules are evaluated with: `resource` is the stored document `{id, path,
 * data}` (realtime: `{value}`) or null, `requestResource` the same after the write (null for
 * reads and deletes).
 */
export interface RuleFacts {
  auth: RuleAuth;
  time: Date;
  resource: JsonValue;
  requestResource: JsonValue;
}

/** The outcome of a decision: whether it is allowed and the lowest index of a granting rule. */
export interface RuleDecision {
  allowed: boolean;
  rule: number | null;
}

/** Which ops grant a method: the method itself and the op that includes it. */
const GRANTING_OPS: Readonly<Record<RuleArea, Readonly<Partial<Record<RuleMethod, readonly string[]>>>>> = {
  documents: {
    get: ['get', 'read'],
    list: ['list', 'read'],
    create: ['create', 'write'],
    update: ['update', 'write'],
    delete: ['delete', 'write'],
  },
  realtime: { read: ['read'], write: ['write'] },
};

/** One compiled rule: its pattern and its expressions by op. */
export interface CompiledRule {
  index: number;
  pattern: RulePattern;
  grants: ReadonlyMap<string, CompiledExpression>;
  /** The expressions granting each method (its op and the op that includes it), in that order. */
  byMethod: ReadonlyMap<RuleMethod, readonly CompiledExpression[]>;
}

/** A rule that applies to an operation, the values its pattern binds and its granting expressions. */
export interface Candidate {
  rule: CompiledRule;
  bindings: Record<string, string>;
  expressions: readonly CompiledExpression[];
}

/** A rule that may grant `list` on children of a collection; `literal` when it names one child only. */
export interface ListCandidate extends Candidate {
  literal: string | null;
}

/** The rules that apply to one operation on one path, with the values their patterns bind. */
export class RuleCheck {
  /** True when some candidate's expression names `resource`: read the stored data first. */
  readonly readsResource: boolean;

  constructor(
    readonly method: RuleMethod,
    readonly candidates: readonly Candidate[],
  ) {
    this.readsResource = candidates.some((c) => c.expressions.some((e) => e.readsResource));
  }

  /** Evaluates the candidates in rule order; the first that grants decides. */
  decide(facts: RuleFacts): RuleDecision {
    for (const { rule, bindings, expressions } of this.candidates) {
      const variables = ruleVariables(this.method, bindings, facts);
      if (expressions.some((expression) => expression.test(variables))) return { allowed: true, rule: rule.index };
    }
    return { allowed: false, rule: null };
  }
}

/** The variables an expression of a rule sees (§9). */
export function ruleVariables(method: RuleMethod, bindings: Record<string, string>, facts: RuleFacts): RuleBindings {
  const request = { auth: facts.auth, method, time: facts.time, resource: facts.requestResource };
  // Object.assign, not a spread: the spread of a bindings object costs about 2 µs here, this 0.05.
  return Object.assign({ request, resource: facts.resource }, bindings);
}

function compileArea(area: RuleArea, ruleset: Ruleset): CompiledRule[] {
  return ruleset[area].map((rule, index) => {
    const pattern = parsePattern(rule.match);
    const grants = new Map<string, CompiledExpression>();
    for (const [op, source] of Object.entries(rule.allow)) grants.set(op, compileExpression(source, pattern.variables));
    const byMethod = new Map<RuleMethod, CompiledExpression[]>();
    for (const [method, ops] of Object.entries(GRANTING_OPS[area]) as [RuleMethod, readonly string[]][]) {
      byMethod.set(
        method,
        ops.flatMap((op) => grants.get(op) ?? []),
      );
    }
    return { index, pattern, grants, byMethod };
  });
}

/** A project's ruleset, compiled. */
export class CompiledRuleset {
  readonly documents: readonly CompiledRule[];
  readonly realtime: readonly CompiledRule[];
  /** True for the open ruleset: every check would allow, so callers may skip them. */
  readonly open: boolean;
  private readonly tries: Record<RuleArea, PatternTrie>;

  constructor(readonly rules: Ruleset) {
    this.documents = compileArea('documents', rules);
    this.realtime = compileArea('realtime', rules);
    this.tries = {
      documents: new PatternTrie(this.documents.map((rule) => rule.pattern)),
      realtime: new PatternTrie(this.realtime.map((rule) => rule.pattern)),
    };
    this.open = JSON.stringify(rules) === JSON.stringify(OPEN_RULESET);
  }

  /** The rules of a document operation on the document at `path`. */
  documentCheck(method: DocumentMethod, path: string): RuleCheck {
    return this.check('documents', method, this.tries.documents.match(segmentsOf(path)));
  }

  /** The rules of a realtime operation at `path` (rules at `path` or an ancestor). */
  realtimeCheck(method: RealtimeMethod, path: string): RuleCheck {
    return this.check('realtime', method, this.tries.realtime.match(segmentsOf(path), true));
  }

  /**
   * The document rules granting `list` that may match a child of the document (or root) at
   * `parent`, bound with `childSegment` standing for the child's id (list planning).
   */
  listCandidates(parent: string, childSegment: string): ListCandidate[] {
    const candidates: ListCandidate[] = [];
    for (const { rule: index, bindings, literal } of this.tries.documents.matchChildren(
      segmentsOf(parent),
      childSegment,
    )) {
      const rule = this.documents[index] as CompiledRule;
      const expressions = rule.byMethod.get('list') ?? [];
      if (expressions.length > 0) candidates.push({ rule, bindings, expressions, literal });
    }
    return candidates;
  }

  private check(area: RuleArea, method: RuleMethod, matches: PatternMatch[]): RuleCheck {
    const rules = this[area];
    const candidates: Candidate[] = [];
    for (const { rule: index, bindings } of matches) {
      const rule = rules[index] as CompiledRule;
      const expressions = rule.byMethod.get(method) ?? [];
      if (expressions.length > 0) candidates.push({ rule, bindings, expressions });
    }
    return new RuleCheck(method, candidates);
  }
}

/** The segments of a normalized path (`''` is the root, no segments). */
export function segmentsOf(path: string): string[] {
  return path === '' ? [] : path.split('/');
}

/** The open ruleset, compiled once. */
export const OPEN_RULES = new CompiledRuleset(OPEN_RULESET);
