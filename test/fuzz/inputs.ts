/**
 * Hostile inputs for the fuzz suites (fast-check arbitraries): path segments (unicode,
 * percent-encoding, `.`/`..`, lengths at and beyond §0's limits), JSON bodies (any JSON, nesting
 * to 100,000 levels, huge numbers, duplicate keys, non-JSON) and content types.
 */
import fc from 'fast-check';

/** §0's defaults: a normalized path at most 1024 characters and 64 segments; values 64 levels deep. */
export const MAX_PATH_CHARS = 1024;
export const MAX_PATH_SEGMENTS = 64;
export const NESTING_DEPTHS = [1, 63, 64, 65, 1000, 100_000];

const tame = fc.stringMatching(/^[a-z0-9_-]{1,8}$/);

/** One raw (already encoded, as it goes in a URL) path segment. */
export const rawSegment: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: tame, weight: 6 },
  {
    arbitrary: fc.constantFrom('.', '..', '%2e', '%2E%2E', '.%2e', '', '%2F', '%2f..', '%00', '%25', '~', '$', '*'),
    weight: 3,
  },
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }).map(encodeURIComponent), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }).map(encodeURIComponent), weight: 1 },
  // Percent-encoding that is not UTF-8, or not percent-encoding at all.
  { arbitrary: fc.constantFrom('%FF', '%C3', '%E2%82', '%zz', '%', '%%41', '%C0%AE', '%ED%A0%80'), weight: 1 },
  { arbitrary: fc.integer({ min: 1000, max: 1100 }).map((n) => 'x'.repeat(n)), weight: 1 },
);

/** A raw path of segments joined by `/`, sometimes with extra slashes. */
export const rawPath: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.array(rawSegment, { maxLength: 6 }).map((s) => s.join('/')), weight: 8 },
  { arbitrary: fc.array(rawSegment, { maxLength: 4 }).map((s) => `/${s.join('//')}/`), weight: 1 },
  // At and around the limits: 63–66 segments, 1020–1030 characters.
  {
    arbitrary: fc
      .integer({ min: MAX_PATH_SEGMENTS - 1, max: MAX_PATH_SEGMENTS + 2 })
      .map((n) => Array.from({ length: n }, (_, i) => `s${i}`).join('/')),
    weight: 1,
  },
  {
    arbitrary: fc
      .tuple(fc.integer({ min: MAX_PATH_CHARS - 4, max: MAX_PATH_CHARS + 6 }), fc.boolean())
      .map(([n, even]) => (even ? `c/${'d'.repeat(n - 2)}` : 'e'.repeat(n))),
    weight: 1,
  },
);

/** A raw value for a single-segment path parameter: mostly a segment, sometimes a known good value. */
export function segmentParam(known: readonly string[]): fc.Arbitrary<string> {
  if (known.length === 0) return rawSegment.filter((s) => s !== '');
  return fc.oneof(
    { arbitrary: fc.constantFrom(...known), weight: 3 },
    { arbitrary: rawSegment.filter((s) => s !== ''), weight: 2 },
    { arbitrary: fc.constantFrom('0', '-1', '1.5', '99999999999999999999', '1e3', 'NaN', '0x10'), weight: 1 },
  );
}

/** `levels` nested arrays or objects around a leaf, as JSON text. */
export function nested(levels: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(levels)}1${']'.repeat(levels)}`
    : `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

const hugeNumber = fc.constantFrom(
  '1e400',
  '-1e400',
  '1e-400',
  '123456789012345678901234567890',
  '9007199254740993',
  '-0',
  '0.0000000000000000000000000001',
  '1.7976931348623157e308',
);

/** A JSON value as text that JSON.stringify cannot make: huge numbers, deep nesting. */
export const strangeJsonValue: fc.Arbitrary<string> = fc.oneof(
  hugeNumber,
  fc
    .tuple(fc.constantFrom(...NESTING_DEPTHS), fc.constantFrom('array' as const, 'object' as const))
    .map(([n, k]) => nested(n, k)),
  fc.constantFrom(
    '"\\ud800"',
    '"\\u0000"',
    '"\\uDFFF\\uD800"',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":1}}',
  ),
);

/** Any JSON value as text, ordinary or strange. */
export const jsonValueText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.json({ maxDepth: 4 }), weight: 4 },
  { arbitrary: strangeJsonValue, weight: 2 },
);

/** Body texts that are not (one) JSON value. */
export const notJson: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '{',
    '{"data":',
    '[1,]',
    "{'a':1}",
    'NaN',
    'undefined',
    '{"a":1}{"b":2}',
    '\uFEFF{}',
    ' ',
    '\u0000',
    'nul',
  ),
);

/** Content types a client may send with a body (null: none). */
export const contentType: fc.Arbitrary<string | null> = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 8 },
  {
    arbitrary: fc.constantFrom(
      null,
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      'application/jsonx',
      'application/vnd.api+json',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      '',
      ';',
      'application/json;;',
    ),
    weight: 2,
  },
);

/** A body text built around the fields a route reads: its known object with one field swapped for a strange value, duplicated keys, or a wrapper. */
export function hostileBodyAround(known: fc.Arbitrary<unknown>, fields: readonly string[]): fc.Arbitrary<string> {
  const field = fields.length > 0 ? fc.constantFrom(...fields) : fc.constant('data');
  return fc.oneof(
    { arbitrary: known.map((v) => JSON.stringify(v) ?? 'null'), weight: 8 },
    { arbitrary: fc.tuple(field, strangeJsonValue).map(([f, v]) => `{${JSON.stringify(f)}:${v}}`), weight: 3 },
    // The data of a document or the value of a tree write nested deep, one level in.
    {
      arbitrary: fc
        .tuple(field, fc.constantFrom(...NESTING_DEPTHS), fc.constantFrom('array' as const, 'object' as const))
        .map(([f, n, k]) => `{${JSON.stringify(f)}:{"x":${nested(n, k)}}}`),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(known, field, jsonValueText)
        .map(
          ([v, f, other]) =>
            `${(JSON.stringify(v) ?? '{}').replace(/}$/, '')}${JSON.stringify(v) === '{}' ? '' : ','}${JSON.stringify(f)}:${other}}`,
        ),
      weight: 2,
    },
    { arbitrary: jsonValueText, weight: 2 },
    { arbitrary: notJson, weight: 1 },
    { arbitrary: fc.constant(''), weight: 1 },
  );
}
