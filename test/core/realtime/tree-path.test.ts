import { describe, expect, it } from 'vitest';
import {
  ancestorsOf,
  descendantRange,
  invalidKeyReason,
  isAncestorOf,
  isAtOrBelow,
  joinPath,
  parseTreePath,
  relativeSegments,
} from '../../../src/core/realtime/tree-path.js';

describe('tree paths', () => {
  it('normalizes like every path (§0); the empty path is the root', () => {
    expect(parseTreePath('/a//b/')).toBe('a/b');
    expect(parseTreePath('')).toBe('');
    expect(parseTreePath('///')).toBe('');
    expect(() => parseTreePath('a/../b')).toThrow('Invalid path segment');
    expect(() => parseTreePath('a/\u0000')).toThrow('Invalid path segment');
    expect(() => parseTreePath('x/'.repeat(65))).toThrow('Path too long');
  });

  it('knows ancestors, descendants and relative segments', () => {
    expect(ancestorsOf('a/b/c')).toEqual(['', 'a', 'a/b']);
    expect(ancestorsOf('a')).toEqual(['']);
    expect(ancestorsOf('')).toEqual([]);
    expect(isAtOrBelow('a/b', 'a')).toBe(true);
    expect(isAtOrBelow('a', 'a')).toBe(true);
    expect(isAtOrBelow('ab', 'a')).toBe(false);
    expect(isAtOrBelow('anything', '')).toBe(true);
    expect(isAncestorOf('a', 'a')).toBe(false);
    expect(isAncestorOf('', 'a')).toBe(true);
    expect(relativeSegments('a/b/c', 'a')).toEqual(['b', 'c']);
    expect(relativeSegments('a/b', '')).toEqual(['a', 'b']);
    expect(relativeSegments('a', 'a')).toEqual([]);
    expect(joinPath('', 'x/y')).toBe('x/y');
    expect(joinPath('a', 'x')).toBe('a/x');
  });

  it('bounds a subtree by one key range holding exactly its descendants', () => {
    const { from, to } = descendantRange('a');
    const inside = (p: string) => p >= from && p < to;
    expect(['a/b', 'a/', 'a/\uffff', 'a/b/c'].every(inside)).toBe(true);
    expect(['a', 'a!', 'a.b', 'a0', 'ab', 'b'].some(inside)).toBe(false);
  });

  it('refuses keys that cannot name a child', () => {
    expect(invalidKeyReason('ok')).toBeNull();
    expect(invalidKeyReason('')).toMatch(/empty/);
    expect(invalidKeyReason('.')).toMatch(/'\.'/);
    expect(invalidKeyReason('..')).toMatch(/'\.\.'/);
    expect(invalidKeyReason('a/b')).toMatch(/'\/'/);
  });
});
