/**
 * Rule patterns (§9): slash-separated like paths; a segment is a literal, `{name}` (one segment)
 * or, last only, `{name=**}` (zero or more segments, joined by `/`).
 */

/** One segment of a pattern. */
export type PatternSegment =
  | { kind: 'literal'; value: string }
  | { kind: 'variable'; name: string }
  | { kind: 'rest'; name: string };

/** A parsed pattern and the names it binds, in order. */
export interface RulePattern {
  segments: PatternSegment[];
  variables: string[];
}

const VARIABLE = /^\{([A-Za-z_][A-Za-z0-9_]*)(=\*\*)?\}$/;
const RESERVED = new Set(['request', 'resource']);

/** Parses a pattern; throws an `Error` whose message says what is wrong (the caller adds where). */
export function parsePattern(pattern: string): RulePattern {
  const parts = pattern.split('/').filter((part) => part.length > 0);
  if (parts.length === 0) throw new Error('empty pattern (use {path=**} to match every path)');
  const segments: PatternSegment[] = [];
  const variables: string[] = [];
  parts.forEach((part, index) => {
    const variable = VARIABLE.exec(part);
    if (variable) {
      const name = variable[1] as string;
      if (RESERVED.has(name)) throw new Error(`variable name '${name}' is reserved`);
      if (variables.includes(name)) throw new Error(`duplicate variable '${name}'`);
      const rest = variable[2] !== undefined;
      if (rest && index !== parts.length - 1) throw new Error(`{${name}=**} must be the last segment`);
      variables.push(name);
      segments.push(rest ? { kind: 'rest', name } : { kind: 'variable', name });
      return;
    }
    if (/[{}]/.test(part)) {
      throw new Error(`segment '${part}' must be wholly a literal or wholly a variable ({name} or {name=**})`);
    }
    if (part.includes('*')) throw new Error(`segment '${part}': use {name} or {name=**} to match any segment`);
    if (part === '.' || part === '..') throw new Error(`segment '${part}' is not a valid path segment`);
    segments.push({ kind: 'literal', value: part });
  });
  return { segments, variables };
}
