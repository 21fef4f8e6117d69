import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import {
  assembleValue,
  normalizeValue,
  prepareValue,
  setValueAt,
  valueAt,
} from '../../../src/core/realtime/tree-value.js';

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
  }
  throw new Error('expected an AppError');
}

describe('tree values', () => {
  it('splits an object into leaves; arrays, strings, numbers and booleans are leaves', () => {
    const { value, leaves } = prepareValue('p', { a: 1, b: { c: 'x', d: [1, { e: 2 }] }, f: true, g: null, h: {} });
    expect(value).toEqual({ a: 1, b: { c: 'x', d: [1, { e: 2 }] }, f: true });
    expect(leaves).toEqual([
      { path: 'p/a', value: 1 },
      { path: 'p/b/c', value: 'x' },
      { path: 'p/b/d', value: [1, { e: 2 }] },
      { path: 'p/f', value: true },
    ]);
  });

  it('writes nothing for null, {} and objects whose leaves are all empty', () => {
    for (const empty of [null, {}, { a: null }, { a: {}, b: { c: null } }] as JsonValue[]) {
      expect(prepareValue('p', empty)).toEqual({ value: null, leaves: [] });
    }
    expect(prepareValue('', 5)).toEqual({ value: 5, leaves: [{ path: '', value: 5 }] });
  });

  it('rejects keys with a slash, empty, . or .. (400) and NUL characters (422)', () => {
    for (const key of ['a/b', '', '.', '..']) {
      const error = errorOf(() => prepareValue('p', { ok: { [key]: 1 } }));
      expect(error.code).toBe('bad_request');
      expect(error.message).toContain('p/ok');
    }
    expect(errorOf(() => prepareValue('p', { a: 'x\u0000' })).code).toBe('validation');
    expect(errorOf(() => prepareValue('p', { 'k\u0000': 1 })).code).toBe('validation');
  });

  it('keeps written values within the path limits', () => {
    let deep: JsonValue = 1;
    for (let i = 0; i < 10; i++) deep = { k: deep };
    const path = Array.from({ length: 60 }, () => 'p').join('/');
    expect(errorOf(() => prepareValue(path, deep)).message).toBe('Path too long');
    for (let i = 0; i < 60; i++) deep = { k: deep };
    expect(errorOf(() => prepareValue('p', deep)).code).toBe('validation');
  });

  it('assembles leaves back, whatever their order, and __proto__ stays an ordinary key', () => {
    const leaves = [
      { path: 'p/b/c', value: 'x' },
      { path: 'p/a', value: 1 },
      { path: 'p/__proto__/z', value: 2 },
    ];
    const value = assembleValue('p', leaves);
    expect(JSON.parse(JSON.stringify(value))).toEqual({ a: 1, b: { c: 'x' }, ['__proto__']: { z: 2 } });
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(assembleValue('p', [{ path: 'p', value: [1] }])).toEqual([1]);
    expect(assembleValue('p', [])).toBeNull();
  });

  it('normalizes, reads and replaces values at paths with tree semantics', () => {
    expect(normalizeValue({ a: { b: null }, c: [null], d: 0 })).toEqual({ c: [null], d: 0 });
    const tree: JsonValue = { a: { b: 1, c: 2 }, d: 'leaf' };
    expect(valueAt(tree, ['a', 'b'])).toBe(1);
    expect(valueAt(tree, ['d', 'x'])).toBeNull();
    expect(setValueAt(tree, ['d', 'x'], 1)).toEqual({ a: { b: 1, c: 2 }, d: { x: 1 } });
    expect(setValueAt(tree, ['a', 'b'], null)).toEqual({ a: { c: 2 }, d: 'leaf' });
    expect(setValueAt({ a: { b: 1 } }, ['a', 'b'], null)).toBeNull();
    expect(setValueAt(tree, ['d', 'x'], null)).toBe(tree);
    expect(setValueAt(null, [], { x: {} })).toBeNull();
    expect(tree).toEqual({ a: { b: 1, c: 2 }, d: 'leaf' });
  });
});
