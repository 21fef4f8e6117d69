/**
 * The patterns of one area in a trie keyed by segment, so finding the rules that match a path
 * walks the path's segments (a literal and a variable branch at each level), whatever the number
 * of rules (§9 cost).
 */
import type { PatternSegment, RulePattern } from './rule-pattern.js';

interface TrieNode {
  literals: Map<string, TrieNode>;
  variable: TrieNode | null;
  /** Rules whose pattern ends at this node. */
  exact: number[];
  /** Rules whose pattern ends with `{name=**}` after this node. */
  rest: number[];
}

/** A rule that matched, with the values its pattern binds. */
export interface PatternMatch {
  rule: number;
  bindings: Record<string, string>;
}

const newNode = (): TrieNode => ({ literals: new Map(), variable: null, exact: [], rest: [] });

/** The values the pattern binds on the path of `segments` (a `{name=**}` takes the rest). */
function bindings(pattern: RulePattern, segments: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (let index = 0; index < pattern.segments.length; index++) {
    const segment = pattern.segments[index] as PatternSegment;
    if (segment.kind === 'variable') values[segment.name] = segments[index] as string;
    else if (segment.kind === 'rest') values[segment.name] = segments.slice(index).join('/');
  }
  return values;
}

/** The patterns of one area, matched against paths. */
export class PatternTrie {
  private readonly root = newNode();

  constructor(private readonly patterns: readonly RulePattern[]) {
    patterns.forEach((pattern, rule) => {
      let node = this.root;
      for (const segment of pattern.segments) {
        if (segment.kind === 'rest') {
          node.rest.push(rule);
          return;
        }
        if (segment.kind === 'variable') {
          node.variable ??= newNode();
          node = node.variable;
        } else {
          let child = node.literals.get(segment.value);
          if (!child) {
            child = newNode();
            node.literals.set(segment.value, child);
          }
          node = child;
        }
      }
      node.exact.push(rule);
    });
  }

  /**
   * The rules matching the path of `segments`, lowest index first; with `ancestors`, also those
   * matching one of its ancestors (a realtime grant covers the subtree below it), bound there.
   */
  match(segments: readonly string[], ancestors = false): PatternMatch[] {
    // Each rule ends at one node, and a walk reaches each node once: no rule is found twice.
    const found: PatternMatch[] = [];
    this.visit(this.root, 0, segments, ancestors, found);
    return found.length > 1 ? found.sort((a, b) => a.rule - b.rule) : found;
  }

  /** `match`'s walk below `node`, the path's first `depth` segments behind it (a method: it runs on every request). */
  private visit(
    node: TrieNode,
    depth: number,
    segments: readonly string[],
    ancestors: boolean,
    found: PatternMatch[],
  ): void {
    for (const rule of node.rest) found.push(this.bound(rule, segments));
    if (depth === segments.length) {
      for (const rule of node.exact) found.push(this.bound(rule, segments));
      return;
    }
    if (ancestors) for (const rule of node.exact) found.push(this.bound(rule, segments.slice(0, depth)));
    const literal = node.literals.get(segments[depth] as string);
    if (literal) this.visit(literal, depth + 1, segments, ancestors, found);
    if (node.variable) this.visit(node.variable, depth + 1, segments, ancestors, found);
  }

  private bound(rule: number, path: readonly string[]): PatternMatch {
    return { rule, bindings: bindings(this.patterns[rule] as RulePattern, path) };
  }

  /**
   * The rules that may match a child of the document or root at `parent` (its segments): each
   * bound with `childSegment` standing for the child's unknown last segment, and `literal` set
   * when the rule names one child only.
   */
  matchChildren(parent: readonly string[], childSegment: string): (PatternMatch & { literal: string | null })[] {
    const found = new Map<number, PatternMatch & { literal: string | null }>();
    const segments = [...parent, childSegment];
    const addChild = (rule: number, literal: string | null) => {
      if (found.has(rule)) return;
      const path = literal === null ? segments : [...parent, literal];
      found.set(rule, { rule, bindings: bindings(this.patterns[rule] as RulePattern, path), literal });
    };
    const visit = (node: TrieNode, depth: number) => {
      for (const rule of node.rest) addChild(rule, null);
      if (depth < parent.length) {
        const literal = node.literals.get(parent[depth] as string);
        if (literal) visit(literal, depth + 1);
        if (node.variable) visit(node.variable, depth + 1);
        return;
      }
      for (const [value, child] of node.literals) {
        for (const rule of [...child.exact, ...child.rest]) addChild(rule, value);
      }
      if (node.variable) for (const rule of [...node.variable.exact, ...node.variable.rest]) addChild(rule, null);
    };
    visit(this.root, 0);
    return [...found.values()].sort((a, b) => a.rule - b.rule);
  }
}
