import { describe, expect, it } from 'vitest';
import { type JsonValue, TOO_DEEP, UNSTORABLE_TEXT, unstorableReason } from '../../src/core/json.js';

/** `levels` levels: objects and arrays alternating around `0`. */
function nested(levels: number): JsonValue {
  let value: JsonValue = 0;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { k: value };
  return value;
}

describe('unstorableReason (§0 limits on client values)', () => {
  it('counts each object and array as one level: 64 pass, 65 do not', () => {
    expect(unstorableReason({})).toBeNull();
    expect(unstorableReason(nested(64))).toBeNull();
    expect(unstorableReason(nested(65))).toBe(TOO_DEEP);
    expect(unstorableReason({ a: [1] }, 2)).toBeNull();
    expect(unstorableReason({ a: [1] }, 1)).toBe(TOO_DEEP);
    expect(unstorableReason('scalar', 0)).toBeNull();
  });

  it('refuses 1,000,000 levels without overflowing the stack', () => {
    expect(unstorableReason(nested(1_000_000))).toBe(TOO_DEEP);
    expect(unstorableReason(JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`))).toBe(TOO_DEEP);
  });

  it('finds NUL and lone surrogates in strings and keys at any place', () => {
    expect(unstorableReason({ a: [1, { b: 'x\u0000' }] })).toBe(UNSTORABLE_TEXT);
    expect(unstorableReason({ a: { 'k\ud800': 1 } })).toBe(UNSTORABLE_TEXT);
    expect(unstorableReason({ a: ['ok', 'é', '😀'] })).toBeNull();
  });
});
