/**
 * Differential test of `where`/`order_by` (§2): thousands of seeded random documents and a few
 * hundred random queries, each answered by every engine and by the in-memory reference
 * evaluator; the sequences of paths must be identical. Reproduce a failure with CDS_DIFF_SEED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocumentJson } from '../../src/core/documents/document-service.js';
import type { QueryDocumentsOptions } from '../../src/core/documents/document-store.js';
import { chooseIndex, type DocumentIndex, parseIndexFields } from '../../src/core/documents/indexes.js';
import type { JsonObject, JsonValue } from '../../src/core/json.js';
import { compileMatcher, documentOrder } from '../../src/core/listeners/document-matcher.js';
import { parseDocumentPath } from '../../src/core/paths.js';
import type { Storage } from '../../src/core/ports.js';
import { LOOKUPS, matchesNothing, parseOrderBy, parseWhere } from '../../src/core/where.js';
import { upsert } from '../support/document-writes.js';
import { engines } from '../support/engines.js';
import { type ReferenceDocument, referenceQuery, valueAt } from '../support/reference-where.js';

const SEED = Number(process.env.CDS_DIFF_SEED ?? 20261122);
const DOCUMENTS = 3000;
const DECOYS = 1000;
const CASES = 600;
const PROJECT = 7;

/** mulberry32: a tiny seeded PRNG, so every run builds the same data and queries. */
function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick, chance: (p: number) => next() < p };
}

const random = prng(SEED);

const NUMBERS = [0, 1, -1, 2.5, -3, 1000, 0.1, -0.5, 42, 7.25, 1e21, 1.5e-7, 12345678901234567000, 2 ** 53 + 2];
// biome-ignore format: a table of values
const STRINGS = [
  'abc', 'ABC', 'Abc', 'äé', 'Äé', 'ÄÉ', '%', '_', '\\', 'a%b', 'a_b', 'a\\b', '100%', '', ' ', 'report 2024',
  'Report', 'straße', 'STRASSE', 'İstanbul', 'i̇', 'σς', 'ΣΑΣ', '😀', '\uff21', 'true', 'null', '1', '01', '1.0', 'x,y',
];
const TOKENS = ['a', 'B', 'é', 'Ä', '%', '_', '\\', '1', '😀', 'ς', 'z', ' ', 'Σ', '\uff21', 'x'];

const randomString = () => Array.from({ length: 1 + random.int(4) }, () => random.pick(TOKENS)).join('');

function randomNumber(): number {
  const roll = random.int(4);
  if (roll === 0) return random.pick(NUMBERS);
  if (roll === 1) return random.int(11) - 5;
  if (roll === 2) return Math.round(random.next() * 4000 - 2000) / 8;
  return random.next() * 200 - 100;
}

function randomScalar(): JsonValue {
  const roll = random.int(10);
  if (roll < 3) return randomNumber();
  if (roll < 7) return random.chance(0.5) ? random.pick(STRINGS) : randomString();
  if (roll < 9) return random.chance(0.5);
  return null;
}

function randomValue(depth = 0): JsonValue {
  const roll = random.int(10);
  if (roll < 7 || depth > 1) return randomScalar();
  if (roll < 9) return Array.from({ length: random.int(4) }, () => randomScalar());
  return { a: randomScalar(), b: randomValue(depth + 1) };
}

/** Sets `key` with probability `p` (otherwise the field is missing). */
function maybe(data: JsonObject, key: string, p: number, make: () => JsonValue): void {
  if (random.chance(p)) data[key] = make();
}

function randomData(): JsonObject {
  const data: JsonObject = {};
  maybe(data, 'n', 0.8, () => (random.chance(0.85) ? randomNumber() : randomScalar()));
  maybe(data, 's', 0.8, () => (random.chance(0.85) ? randomString() || random.pick(STRINGS) : randomScalar()));
  maybe(data, 'b', 0.7, () => (random.chance(0.8) ? random.chance(0.5) : randomScalar()));
  maybe(data, 'mixed', 0.85, () => randomValue());
  maybe(data, 'tags', 0.7, () =>
    random.chance(0.8) ? Array.from({ length: random.int(5) }, () => randomScalar()) : randomValue(),
  );
  maybe(data, 'obj', 0.7, () =>
    random.chance(0.8)
      ? { a: randomValue(1), b: random.chance(0.7) ? { c: randomScalar() } : randomScalar() }
      : randomValue(),
  );
  for (const key of ['k"q', 'a\\b', 'Äé']) maybe(data, key, 0.2, randomScalar);
  return data;
}

const NAME_PREFIXES = ['a', 'B', 'z', 'é', '~', '!', '_', '%', '😀', '\uff21', 'A0', 'a!'];
const PARENTS = ['p/1', 'p/2', 'p/é', 'p/1/q/x', 'p/1/q/y', 'items/a0'];

function referenceDocument(path: string, data: JsonObject): ReferenceDocument {
  const { parent, collection } = parseDocumentPath(path);
  return { path, parent, collection, data };
}

function generateDocuments(): ReferenceDocument[] {
  const documents: ReferenceDocument[] = [];
  for (let i = 0; i < DOCUMENTS; i++) {
    const name = `${random.pick(NAME_PREFIXES)}${i}`;
    const parent = random.chance(0.4) ? '' : random.pick(PARENTS);
    documents.push(referenceDocument(parent === '' ? `items/${name}` : `${parent}/items/${name}`, randomData()));
  }
  // biome-ignore format: a table of shapes
  const decoyShapes = [(i: number) => `other/${i}`, (i: number) => `items/a${i}/sub/${i}`, (i: number) => `item/${i}`,
    (i: number) => `itemsx/${i}`, (i: number) => `p/1/items2/${i}`, (i: number) => `c${i}/items`];
  for (let i = 0; i < DECOYS; i++) documents.push(referenceDocument(random.pick(decoyShapes)(i), randomData()));
  return documents;
}

const FIELDS = [
  'n',
  's',
  'b',
  'mixed',
  'tags',
  'obj',
  'obj__a',
  'obj__b__c',
  'k"q',
  'a\\b',
  'Äé',
  'missing',
  'tags__0',
];
// biome-ignore format: a table of values
const VALUE_TEXTS = ['1', '1.0', '-3', '2.5', '1e3', '0', '-1', '0.1', '-0.5', '1e21', '12345678901234567000', '01',
  '+5', '.5', '1_000', 'NaN', 'abc', 'ABC', 'äé', 'ÄÉ', '%', '_', '\\', 'a%b', '', 'true', 'false', 'null', 'report',
  'REPORT', 'straße', 'STRASSE', 'İ', 'σ', 'Σ', '😀', 'B', 'Z', 'a', 'é'];

/**
 * A clause value: a fixed interesting text, or the value stored at that field (whole or a piece
 * of it) by the case's anchor document or another one, so that conjunctions often match.
 */
function valueText(documents: readonly ReferenceDocument[], anchor: ReferenceDocument, field: string): string {
  const roll = random.int(5);
  if (roll === 0) return random.pick(VALUE_TEXTS);
  let stored = valueAt((roll === 1 ? random.pick(documents) : anchor).data, field.split('__'));
  if (Array.isArray(stored)) stored = stored.length > 0 ? random.pick(stored) : undefined;
  if (typeof stored === 'string' && roll === 4) {
    const chars = [...stored];
    const start = random.int(chars.length + 1);
    return chars.slice(start, start + 1 + random.int(3)).join('');
  }
  if (stored === undefined || (typeof stored === 'object' && stored !== null)) return random.pick(VALUE_TEXTS);
  return String(stored);
}

const STRING_LOOKUPS: ReadonlySet<string> = new Set(
  LOOKUPS.filter((lookup) => /contains|starts|ends|iexact/.test(lookup)),
);

interface Case {
  where: string[];
  orderBy?: string;
  options: QueryDocumentsOptions;
}

function generateCases(documents: readonly ReferenceDocument[]): Case[] {
  const items = documents.filter((doc) => doc.collection === 'items');
  return Array.from({ length: CASES }, (_, i) => {
    const count = random.pick([1, 1, 1, 2, 2, 3]);
    const anchor = random.pick(items);
    const where = Array.from({ length: count }, () => {
      // Cycle through the lookups so each one gets its share of cases.
      const lookup = LOOKUPS[(i + random.int(2)) % LOOKUPS.length] ?? 'exact';
      const field = random.pick(STRING_LOOKUPS.has(lookup) && random.chance(0.6) ? ['s', 'mixed', 'obj__a'] : FIELDS);
      const text = () => valueText(documents, anchor, field);
      let value = text();
      if (lookup === 'isnull') value = String(random.chance(0.5));
      if (lookup === 'in') value = Array.from({ length: 1 + random.int(4) }, text).join(',');
      return `${field}__${lookup}:${value}`;
    });
    const options: QueryDocumentsOptions = { collection: 'items', where: parseWhere(where) };
    const orderBy = random.chance(0.6) ? `${random.chance(0.5) ? '-' : ''}${random.pick(FIELDS)}` : undefined;
    if (orderBy) options.orderBy = parseOrderBy(orderBy);
    if (random.chance(0.2)) options.parent = random.chance(0.7) ? anchor.parent : random.pick(['', ...PARENTS]);
    if (random.chance(0.3)) options.limit = 1 + random.int(50);
    if (random.chance(0.3)) options.offset = random.int(100);
    return { where, orderBy, options };
  });
}

const documents = generateDocuments();
const cases = generateCases(documents);
const expected = cases.map((c) => referenceQuery(documents, c.options).map((doc) => doc.path));
const answers = new Map<string, string[][]>();

const describeCase = (c: Case) =>
  JSON.stringify({
    where: c.where,
    order_by: c.orderBy,
    parent: c.options.parent,
    limit: c.options.limit,
    offset: c.options.offset,
  });

describe('the random cases', () => {
  it('are not vacuous: many match part of the collection, and every lookup matches in some', () => {
    const total = documents.filter((doc) => doc.collection === 'items').length;
    const unlimited = cases.flatMap((c, i) => (c.options.limit === undefined && !c.options.offset ? [i] : []));
    const nonEmpty = unlimited.filter((i) => (expected[i]?.length ?? 0) > 0).length;
    const partial = unlimited.filter((i) => (expected[i]?.length ?? 0) > 0 && (expected[i]?.length ?? 0) < total);
    console.log(`${unlimited.length} unlimited cases: ${nonEmpty} match something, ${partial.length} part of ${total}`);
    expect(nonEmpty / unlimited.length).toBeGreaterThan(0.4);
    expect(partial.length / unlimited.length).toBeGreaterThan(0.35);
    for (const lookup of LOOKUPS) {
      const matching = cases.filter((c, i) => c.where.some((w) => w.includes(`__${lookup}:`)) && expected[i]?.length);
      expect(matching.length, lookup).toBeGreaterThanOrEqual(5);
    }
  });
});

/** The listeners' in-memory matcher and order (§10), the third party: no SQL, written apart from the reference. */
function matcherQuery(options: QueryDocumentsOptions): string[] {
  const matches = compileMatcher(options.where);
  const found = documents.filter(
    (doc) =>
      doc.collection === options.collection &&
      (options.parent === undefined || doc.parent === options.parent) &&
      matches(doc.data),
  );
  found.sort(documentOrder(options.orderBy));
  const offset = options.offset ?? 0;
  return found.slice(offset, options.limit === undefined ? undefined : offset + options.limit).map((doc) => doc.path);
}

describe('the in-memory matcher of listeners', () => {
  it(`returns exactly the reference's paths for ${CASES} random queries (seed ${SEED})`, () => {
    const mismatches = cases.flatMap((c, i) => {
      const got = matcherQuery(c.options);
      // The service answers a clause no value can match without the store (§2 iexact on a non-string): as REST does.
      const want = c.options.where.some(matchesNothing) ? [] : (expected[i] ?? []);
      return JSON.stringify(got) === JSON.stringify(want)
        ? []
        : [`${describeCase(c)}\n  expected ${JSON.stringify(want)}\n  got      ${JSON.stringify(got)}`];
    });
    expect(mismatches.slice(0, 5), `${mismatches.length} of ${CASES} differ`).toEqual([]);
    answers.set(
      'matcher',
      cases.map((c) => matcherQuery(c.options)),
    );
  });
});

/**
 * The indexes of the runs "with indexes" (§15): each field of FIELDS leads one, in both orders,
 * and a few pairs, so most cases seek on one and `order_by` is often served by one.
 */
const INDEXES: { field: string; order: 'asc' | 'desc' }[][] = [
  ...FIELDS.flatMap((field) => [[{ field, order: 'asc' as const }], [{ field, order: 'desc' as const }]]),
  [
    { field: 'b', order: 'asc' },
    { field: 'n', order: 'asc' },
  ],
  [
    { field: 's', order: 'asc' },
    { field: 'n', order: 'desc' },
  ],
  [
    { field: 'mixed', order: 'asc' },
    { field: 'obj__a', order: 'asc' },
    { field: 's', order: 'asc' },
  ],
];

/** Runs every case on `storage`, planning with `declared`, and fails listing the first mismatches. */
async function runCases(run: string, storage: Storage, declared: DocumentIndex[]): Promise<void> {
  const got: string[][] = [];
  const mismatches: string[] = [];
  let planned = 0;
  for (const [i, c] of cases.entries()) {
    const plan = chooseIndex(declared, c.options.where, c.options.orderBy);
    if (plan) planned++;
    const options = plan ? { ...c.options, index: plan } : c.options;
    const { documents: found } = await storage.documents.query(PROJECT, options);
    const paths = found.map((doc) => parseDocumentJson(doc).path);
    got.push(paths);
    const want = expected[i] ?? [];
    if (JSON.stringify(paths) !== JSON.stringify(want)) {
      mismatches.push(
        `${describeCase(c)} index ${plan?.index.id}\n  expected ${JSON.stringify(want)}\n  got      ${JSON.stringify(paths)}`,
      );
    }
  }
  answers.set(run, got);
  if (declared.length > 0) {
    console.log(`${run}: ${planned} of ${CASES} cases use an index`);
    expect(planned / CASES).toBeGreaterThan(0.5);
  }
  expect(mismatches.slice(0, 5), `${mismatches.length} of ${CASES} differ`).toEqual([]);
}

// One store per engine: the cases run on the documents alone, then again once the indexes are built
// on the same documents (filling a second store took as long as the queries).
for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`where differential on ${engine.name}`, () => {
    let storage: Storage;

    beforeAll(async () => {
      storage = await engine.create();
      for (let i = 0; i < documents.length; i += 50) {
        const batch = documents.slice(i, i + 50);
        await Promise.all(
          batch.map((doc) => upsert(storage.documents, PROJECT, parseDocumentPath(doc.path), doc.data)),
        );
      }
    }, 60_000);
    afterAll(async () => {
      if (storage) await engine.destroy(storage);
    });

    it(`returns exactly the reference's paths for ${CASES} random queries (seed ${SEED})`, async () => {
      await runCases(engine.name, storage, []);
    });

    describe('with indexes', () => {
      let declared: DocumentIndex[] = [];

      beforeAll(async () => {
        for (const fields of INDEXES) {
          const index = await storage.indexes.create(PROJECT, 'items', parseIndexFields(fields));
          if (!index) throw new Error('index exists');
          expect(await storage.indexes.build(index)).toBe('ready');
        }
        declared = (await storage.indexes.list(PROJECT)).filter((index) => index.state === 'ready');
        expect(declared).toHaveLength(INDEXES.length);
      }, 60_000);

      it(`returns exactly the reference's paths for ${CASES} random queries (seed ${SEED})`, async () => {
        await runCases(`${engine.name} with indexes`, storage, declared);
      });
    });
  });
}

describe.skipIf(engines.some((engine) => engine.unavailable))('SQLite and PostgreSQL, with and without indexes', () => {
  it('return identical sequences for every random query', () => {
    const sqlite = answers.get('sqlite');
    expect(sqlite).toHaveLength(CASES);
    for (const run of ['postgres', 'sqlite with indexes', 'postgres with indexes']) {
      expect(answers.get(run), run).toEqual(sqlite);
    }
  });
});
