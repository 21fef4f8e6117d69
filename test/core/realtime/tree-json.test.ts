/**
 * `subtreeJson` and `packedSubtreeJson` (a GET's canonical text straight from the leaves' stored
 * JSON) against the reference they replace: `canonicalJson` of the value `assembleValue` builds
 * from the same leaves.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson, type JsonValue } from '../../../src/core/json.js';
import { packedSubtreeJson } from '../../../src/core/realtime/packed-subtree.js';
import {
  canonicalLeafText,
  packLeaves,
  subtreeJson,
  type TreeLeafText,
  unpackLeaves,
} from '../../../src/core/realtime/tree-json.js';
import { assembleValue } from '../../../src/core/realtime/tree-value.js';
import { randomInt, seededRandom } from '../../support/prng.js';

/** Both writers' text, checked to agree. */
function written(base: string, leaves: TreeLeafText[]): string {
  const text = subtreeJson(base, leaves);
  expect(Buffer.from(packedSubtreeJson(base, packLeaves(leaves))).toString()).toBe(text);
  return text;
}

const reference = (base: string, leaves: TreeLeafText[]) =>
  canonicalJson(
    assembleValue(
      base,
      leaves.map((leaf) => ({ path: leaf.path, value: JSON.parse(leaf.json) as JsonValue })),
    ),
  );

// Keys that sort differently as paths (byte order, `/` between segments) and as object keys.
const KEYS = [
  'a',
  'a-b',
  'a.b',
  'a b',
  'a!',
  'ab',
  'A',
  '0',
  '10',
  '9',
  'é',
  '😀',
  '\uffff',
  'q"uote',
  'back\\slash',
  'tab\t',
  '__proto__',
];
const LEAVES: JsonValue[] = [
  1,
  -7,
  0,
  2.5,
  1e21,
  -0.001,
  12345678901234568,
  'text',
  'é😀',
  'say "hi"',
  'line\nbreak',
  '\u2028',
  true,
  false,
  [],
  [1, { b: 2, a: 1 }],
  ['x', [null]],
];

describe('subtreeJson and packedSubtreeJson', () => {
  it('writes the canonical JSON of the assembled value, for leaves in any order', () => {
    const random = seededRandom(20);
    for (let round = 0; round < 300; round++) {
      const base = ['', 'rooms/r1', 'a'][round % 3] as string;
      const paths = new Set<string>();
      const leaves: TreeLeafText[] = [];
      for (let n = randomInt(random, 30); n > 0; n--) {
        const depth = 1 + randomInt(random, 3);
        const segments = Array.from({ length: depth }, () => KEYS[randomInt(random, KEYS.length)] as string);
        const path = [base, ...segments].filter((part) => part !== '').join('/');
        // A stored tree never holds a leaf above another one.
        if ([...paths].some((other) => other.startsWith(`${path}/`) || path.startsWith(`${other}/`) || other === path))
          continue;
        paths.add(path);
        leaves.push({ path, json: JSON.stringify(LEAVES[randomInt(random, LEAVES.length)]) });
      }
      if (round % 2 === 0) leaves.sort((a, b) => (Buffer.from(a.path) < Buffer.from(b.path) ? -1 : 1));
      else leaves.sort(() => random() - 0.5);
      const text = written(base, leaves);
      expect(text).toBe(reference(base, leaves));
      expect(JSON.parse(text)).toEqual(JSON.parse(reference(base, leaves)));
    }
  });

  it('writes the children of one node in one pass when they come in key order, and sorts them when not', () => {
    const random = seededRandom(7);
    for (let round = 0; round < 100; round++) {
      const names = [
        ...new Set(
          Array.from(
            { length: 1 + randomInt(random, KEYS.length) },
            () => KEYS[randomInt(random, KEYS.length)] as string,
          ),
        ),
      ];
      const leaves = names.map((name, i) => ({
        path: `room/${name}`,
        json: JSON.stringify(LEAVES[i % LEAVES.length]),
      }));
      // Byte order (as the engines' keys) puts '\uffff' before an emoji; UTF-16 order, the reverse.
      if (round % 2 === 0) leaves.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
      else leaves.sort(() => random() - 0.5);
      expect(written('room', leaves)).toBe(reference('room', leaves));
    }
  });

  it('answers null without leaves and the leaf itself at a leaf', () => {
    expect(written('a', [])).toBe('null');
    expect(written('a/b', [{ path: 'a/b', json: '"x"' }])).toBe('"x"');
    expect(written('a/b', [{ path: 'a/b', json: '[1, 2]' }])).toBe('[1,2]');
    expect(written('', [{ path: '', json: '"root"' }])).toBe('"root"');
    expect(written('', [{ path: 'k', json: '3' }])).toBe('{"k":3}');
    expect(written('a', [{ path: 'a/k', json: '3' }])).toBe('{"k":3}');
  });

  it('writes objects nested deeper than the leaves are long (its buffer grows)', () => {
    const deep = Array.from({ length: 60 }, () => 'k').join('/');
    const leaves = Array.from({ length: 30 }, (_, i) => ({
      path: `r/${String(i).padStart(2, '0')}/${deep}`,
      json: '1',
    }));
    expect(written('r', leaves)).toBe(reference('r', leaves));
  });

  it('keeps the lower leaf where a leaf lies above another, as assembling in path order does', () => {
    const leaves = [
      { path: 'r/a', json: '1' },
      { path: 'r/a/b', json: '2' },
    ];
    expect(written('r', leaves)).toBe(reference('r', leaves));
  });

  it('packs leaves into one buffer and back, whatever their characters', () => {
    const leaves = [
      { path: 'a/é/😀', json: '"say \\"hi\\" é"' },
      { path: 'q"uote/tab\t', json: '[1, {"b": 2}]' },
    ];
    expect(unpackLeaves(packLeaves(leaves))).toEqual(leaves);
    expect(unpackLeaves(new Uint8Array(0))).toEqual([]);
  });

  it("re-writes a leaf's text that is not canonical (jsonb spacing, number forms, escapes, key order)", () => {
    expect(canonicalLeafText('[1, {"b": 2, "a": 1}]')).toBe('[1,{"a":1,"b":2}]');
    expect(canonicalLeafText('1.0')).toBe('1');
    expect(canonicalLeafText('1000000000000000000000')).toBe('1e+21');
    expect(canonicalLeafText('"\\u0041"')).toBe('"A"');
    expect(canonicalLeafText('"plain é"')).toBe('"plain é"');
    expect(canonicalLeafText('-12')).toBe('-12');
    expect(canonicalLeafText('true')).toBe('true');
    const stored = [
      { path: 'r/a', json: '"\\u0041"' },
      { path: 'r/b', json: '1.0' },
      { path: 'r/c', json: '[1, {"b": 2, "a": 1}]' },
      { path: 'r/d/e', json: '1000000000000000000000' },
      { path: 'r/d/f', json: '7E0' },
      { path: 'r/g', json: '-0' },
    ];
    expect(written('r', stored)).toBe('{"a":"A","b":1,"c":[1,{"a":1,"b":2}],"d":{"e":1e+21,"f":7},"g":0}');
  });
});
