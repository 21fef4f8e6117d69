import { describe, expect, it } from 'vitest';
import { planPatch, planSet } from '../../../src/core/realtime/tree-write.js';

describe('planning writes', () => {
  it('a set carries its stored value and leaves', () => {
    expect(planSet('a', { b: 1, c: null })).toEqual({
      path: 'a',
      value: { b: 1 },
      leaves: [{ path: 'a/b', value: 1 }],
    });
    expect(planSet('a', null)).toEqual({ path: 'a', value: null, leaves: [] });
  });

  it('a patch is one child set per key, keys being relative paths', () => {
    const sets = planPatch('base', { 'a/b': 1, c: null, '/d//e/': { f: 2 } });
    expect(sets).toEqual([
      { path: 'base/a/b', value: 1, leaves: [{ path: 'base/a/b', value: 1 }] },
      { path: 'base/c', value: null, leaves: [] },
      { path: 'base/d/e', value: { f: 2 }, leaves: [{ path: 'base/d/e/f', value: 2 }] },
    ]);
    expect(planPatch('', { x: 1 })[0]?.path).toBe('x');
    expect(planPatch('p', {})).toEqual([]);
  });

  it('refuses keys where one is a prefix path of another, duplicates and empty keys', () => {
    expect(() => planPatch('p', { a: 1, 'a/b': 2 })).toThrow(/overlap/);
    expect(() => planPatch('p', { 'x/y/z': 1, 'x/y': 2 })).toThrow(/overlap/);
    expect(() => planPatch('p', { a: 1, '/a/': 2 })).toThrow(/same path/);
    expect(() => planPatch('p', { '': 1 })).toThrow(/child path/);
    expect(() => planPatch('p', { '..': 1 })).toThrow(/Invalid path segment/);
    expect(planPatch('p', { a: 1, 'a!': 2, ab: 3 })).toHaveLength(3);
  });
});
