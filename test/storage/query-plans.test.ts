/**
 * Query plans of the document store over 100,000 documents: the SQL the stores actually run
 * (exported by them) must seek the documents indexes or primary key and never scan the table.
 * The plans are printed so a reader can see them.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseDocumentJson } from '../../src/core/documents/document-service.js';
import type { QueryDocumentsOptions } from '../../src/core/documents/document-store.js';
import { chooseIndex, type DocumentIndex, parseIndexFields } from '../../src/core/documents/indexes.js';
import { parseDocumentPath } from '../../src/core/paths.js';
import type { Storage } from '../../src/core/ports.js';
import { parseOrderBy, parseWhere } from '../../src/core/where.js';
import {
  childCollectionsQuery,
  getWithCollectionsQuery,
  postgresDocumentSql,
  postgresPagingSql,
  postgresQuerySql,
} from '../../src/storage/postgres/document-sql.js';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.js';
import { sqliteDocumentSql, sqlitePagingSql, sqliteQuerySql } from '../../src/storage/sqlite/document-sql.js';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import type { SqliteParams } from '../../src/storage/sqlite/where-sql.js';
import { upsert } from '../support/document-writes.js';
import { postgresEngine, sqliteEngine } from '../support/engines.js';

const COUNT = 100_000;
const PROJECT = 3;

// Four shapes in turn, each collection holding about 1% of the rows:
// c{0..49}/d{i}; c/d/s{0..39}/e{i} (c1/d1 has all 40 s*); c/d/s/e/t{0..29}/f{i}; u/{0..4999}/posts{0..24}/p{i}.
function generated(i: number): { path: string; parent: string; collection: string } {
  const c = `c${i % 50}/d${i % 1000}`;
  const [parent, collection, name] = [
    ['', `c${i % 50}`, `d${i}`],
    [c, `s${Math.floor(i / 1000) % 40}`, `e${i}`],
    [`${c}/s${i % 40}/e${i % 2000}`, `t${i % 30}`, `f${i}`],
    [`u/${i % 5000}`, `posts${i % 25}`, `p${i}`],
  ][i % 4] as [string, string, string];
  return { path: parent === '' ? `${collection}/${name}` : `${parent}/${collection}/${name}`, parent, collection };
}

const GENERATE_SQL = `INSERT INTO documents (project_id, path, parent, collection, id, data)
SELECT $1, CASE WHEN parent = '' THEN '' ELSE parent || '/' END || collection || '/' || name, parent, collection,
  gen_random_uuid(), jsonb_build_object('n', i % 1000, 's', 'v' || (i % 97))
FROM (SELECT i,
  CASE i % 4 WHEN 0 THEN '' WHEN 1 THEN 'c' || i % 50 || '/d' || i % 1000
    WHEN 2 THEN 'c' || i % 50 || '/d' || i % 1000 || '/s' || i % 40 || '/e' || i % 2000 ELSE 'u/' || i % 5000 END AS parent,
  CASE i % 4 WHEN 0 THEN 'c' || i % 50 WHEN 1 THEN 's' || (i / 1000) % 40 WHEN 2 THEN 't' || i % 30 ELSE 'posts' || i % 25 END AS collection,
  CASE i % 4 WHEN 0 THEN 'd' WHEN 1 THEN 'e' WHEN 2 THEN 'f' ELSE 'p' END || i AS name
  FROM generate_series(0, ${COUNT - 1}) AS i) AS g`;

/** What childCollections('c1/d1') must return, computed from the generator. */
const C1_D1_COLLECTIONS = [
  ...new Set(
    Array.from({ length: COUNT }, (_, i) => generated(i).path)
      .filter((path) => path.startsWith('c1/d1/'))
      .map((path) => path.split('/')[2]),
  ),
].sort();

/** How many direct children `c1/d1/s1` has, computed from the generator. */
const C1_D1_S1_CHILDREN = Array.from({ length: COUNT }, (_, i) => generated(i)).filter(
  (doc) => doc.parent === 'c1/d1' && doc.collection === 's1',
).length;

/** The statements every engine is checked on, with the index each must use. */
const QUERIES: { name: string; options: QueryDocumentsOptions; index: string }[] = [
  {
    name: 'query at any depth',
    options: { collection: 's5', where: parseWhere(['n__gte:500']), orderBy: parseOrderBy('-n'), limit: 10 },
    index: 'documents_by_collection',
  },
  { name: 'query, no clauses', options: { collection: 'posts7', where: [] }, index: 'documents_by_collection' },
  {
    name: 'query with parent_path',
    options: { collection: 's1', parent: 'c1/d1', where: parseWhere(['s__icontains:V', 'n__in:1,41']) },
    index: 'documents_by_parent',
  },
];

/** Declared indexes (§15) of collection c2 (1,000 documents, n in 52, 152, …, 952; s in v0..v96). */
const INDEXES: { fields: { field: string; order?: 'asc' | 'desc' }[] }[] = [
  { fields: [{ field: 'n' }] },
  { fields: [{ field: 's', order: 'desc' }] },
  { fields: [{ field: 'n' }, { field: 's' }] },
];

/** Each lookup an index serves, with the index it must seek and whether the index yields the order. */
const INDEXED: { name: string; options: QueryDocumentsOptions; index: number; ordered: boolean }[] = [
  { name: 'exact', options: { collection: 'c2', where: parseWhere(['n__exact:152']) }, index: 0, ordered: true },
  {
    name: 'a range, 100 rows',
    options: { collection: 'c2', where: parseWhere(['n__gte:100', 'n__lt:200']), limit: 100 },
    index: 0,
    ordered: false,
  },
  { name: 'in', options: { collection: 'c2', where: parseWhere(['n__in:52,352']) }, index: 0, ordered: false },
  {
    name: 'isnull:true',
    options: { collection: 'c2', where: parseWhere(['missing__isnull:true']) },
    index: -1,
    ordered: true,
  },
  {
    name: 'startswith',
    options: { collection: 'c2', where: parseWhere(['s__startswith:v9']) },
    index: 1,
    ordered: false,
  },
  {
    name: 'order_by with a limit',
    options: { collection: 'c2', where: [], orderBy: parseOrderBy('n'), limit: 10, offset: 5 },
    index: 0,
    ordered: true,
  },
  {
    name: 'a range and -order_by on a desc index',
    options: { collection: 'c2', where: parseWhere(['s__gt:v5']), orderBy: parseOrderBy('-s'), limit: 20 },
    index: 1,
    ordered: true,
  },
];

/** Equality on the first field of a two-field index and a range on the second. */
const TWO_FIELDS: QueryDocumentsOptions = {
  collection: 'c2',
  where: parseWhere(['n__exact:152', 's__lt:v2']),
  parent: '',
};

/** Declares and builds INDEXES (plus one on `missing`), and returns them. */
async function declareIndexes(storage: Storage): Promise<DocumentIndex[]> {
  for (const { fields } of [...INDEXES, { fields: [{ field: 'missing' }] }]) {
    const index = await storage.indexes.create(PROJECT, 'c2', parseIndexFields(fields));
    if (!index) throw new Error('index exists');
    expect(await storage.indexes.build(index)).toBe('ready');
  }
  return storage.indexes.list(PROJECT);
}

/** The plan of an INDEXED case: exactly its index, seeking every clause. */
function plannedCase(indexes: DocumentIndex[], options: QueryDocumentsOptions, at: number, ordered: boolean) {
  const plan = chooseIndex(indexes, options.where, options.orderBy);
  expect(plan?.index.id).toBe(indexes.at(at)?.id);
  expect(plan?.ordered).toBe(ordered);
  expect(plan?.seeks.flatMap((seek) => seek.clauses)).toHaveLength(options.where.length);
  return { ...options, index: plan ?? undefined } as QueryDocumentsOptions;
}

describe.skipIf(sqliteEngine.unavailable)('query plans on sqlite', () => {
  let storage: SqliteStorage;
  const plan = (sql: string, params: SqliteParams) => {
    const rows = storage.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[];
    const details = rows.map((row) => row.detail);
    console.log(`sqlite plan:\n  ${details.join('\n  ')}`);
    return details;
  };
  const expectSeeks = (details: string[], index: string) => {
    expect(details.some((d) => d.startsWith('SEARCH documents') && d.includes(index))).toBe(true);
    // "SCAN documents" reads the whole table (or a whole index); only SEARCH (a seek) is allowed.
    expect(details.filter((d) => /^SCAN documents\b/.test(d))).toEqual([]);
  };

  beforeAll(async () => {
    const created = await sqliteEngine.create();
    if (!(created instanceof SqliteStorage)) throw new Error('expected SQLite storage');
    storage = created;
    const insert = storage.db.prepare(sqliteDocumentSql.insert);
    const load = storage.db.transaction(() => {
      for (let i = 0; i < COUNT; i++) {
        const doc = generated(i);
        const data = JSON.stringify({ n: i % 1000, s: `v${i % 97}` });
        insert.run({ project: PROJECT, ...doc, id: randomUUID(), data, now: Date.now(), version: 0 });
      }
    });
    load();
  }, 120_000);
  afterAll(async () => {
    if (storage) await sqliteEngine.destroy(storage);
  });

  it('every fixed statement that finds documents names its index (a declared partial index must not be weighed)', () => {
    // A planner that weighs a partial index `WHERE project_id = N …` compares the bound @project
    // with N, and SQLite then prepares the statement again whenever @project is bound.
    const statements = Object.entries({ ...sqliteDocumentSql, ...sqlitePagingSql });
    // Each table reference (with its alias, if any) and whether INDEXED BY follows it.
    const references = /\b(?:FROM|UPDATE)\s+documents\b(?:\s+[a-z]\b)?(\s+INDEXED BY)?/g;
    const unpinned = statements.flatMap(([name, sql]) =>
      [...sql.matchAll(references)].filter((match) => match[1] === undefined).map(() => name),
    );
    expect(statements.length).toBeGreaterThan(8);
    expect(unpinned).toEqual([]);
  });

  it('get seeks documents_by_path', () => {
    expectSeeks(plan(sqliteDocumentSql.get, { project: PROJECT, path: 'c7/d7' }), 'documents_by_path');
  });

  it('getWithCollections reads the row and the first child path with two seeks of documents_by_path', async () => {
    const params = { project: PROJECT, path: 'c1/d1', from: 'c1/d1/', to: 'c1/d10' };
    const details = plan(sqliteDocumentSql.getWithFirstChild, params);
    expect(details.filter((d) => /^(SEARCH|SCAN) /.test(d))).toEqual([
      'SEARCH documents USING INDEX documents_by_path (project_id=? AND path=?)',
      'SEARCH c USING COVERING INDEX documents_by_path (project_id=? AND path>? AND path<?)',
    ]);
  });

  it('childCollections seeks documents_by_path once per name', async () => {
    expectSeeks(
      plan(sqliteDocumentSql.firstBelow, { project: PROJECT, from: 'c1/d1/', to: 'c1/d10' }),
      'documents_by_path',
    );
    expectSeeks(plan(sqliteDocumentSql.firstFrom, { project: PROJECT, from: 'c1' }), 'documents_by_path');
    expect(await storage.documents.childCollections(PROJECT, 'c1/d1')).toEqual(C1_D1_COLLECTIONS);
  });

  it('list seeks documents_by_parent', () => {
    const params = { project: PROJECT, parent: 'c1/d1', collection: 's1', after: '', limit: 20 };
    expectSeeks(plan(sqliteDocumentSql.list, params), 'documents_by_parent');
  });

  it('the admin store pages and counts seek documents_by_parent', async () => {
    const scope = { project: PROJECT, parent: 'c1/d1', collection: 's1' };
    expectSeeks(plan(sqlitePagingSql.listPage, { ...scope, after: '', limit: 20, offset: 20 }), 'documents_by_parent');
    expectSeeks(plan(sqlitePagingSql.countChildren, scope), 'documents_by_parent');
    expect(await storage.documents.countChildren(PROJECT, 'c1/d1', 's1')).toBe(C1_D1_S1_CHILDREN);
  });

  for (const query of QUERIES) {
    it(`${query.name} seeks ${query.index}`, async () => {
      const { sql, params } = sqliteQuerySql(PROJECT, query.options);
      expectSeeks(plan(sql, params), query.index);
      expect((await storage.documents.query(PROJECT, query.options)).documents.length).toBeGreaterThan(0);
    });
  }

  describe('with declared indexes (§15)', () => {
    let indexes: DocumentIndex[] = [];
    beforeAll(async () => {
      indexes = await declareIndexes(storage);
    });

    for (const query of INDEXED) {
      it(`${query.name} seeks its index and reads only the rows it returns`, async () => {
        const options = plannedCase(indexes, query.options, query.index, query.ordered);
        const { sql, params } = sqliteQuerySql(PROJECT, options);
        const details = plan(sql, params);
        const name = `cds_index_${options.index?.index.id}`;
        // With no clause to seek on, the walk in index order stops at the limit (rows scanned below).
        // Covering: the documents come from the index entries, no table row is read.
        if (options.where.length === 0) expect(details).toEqual([`SCAN documents USING COVERING INDEX ${name}`]);
        else expectSeeks(details, `COVERING INDEX ${name}`);
        expect(details.some((d) => d.includes('TEMP B-TREE'))).toBe(!query.ordered);
        const indexed = await storage.documents.query(PROJECT, options);
        const unindexed = await storage.documents.query(PROJECT, query.options);
        expect(indexed.documents).toEqual(unindexed.documents);
        expect(indexed.documents.length).toBeGreaterThan(0);
        expect(indexed.rowsScanned).toBe(indexed.documents.length + (options.offset ?? 0));
        // (Every document of c2 lacks `missing`: isnull reads them all either way.)
        expect(unindexed.rowsScanned).toBeGreaterThanOrEqual(indexed.rowsScanned);
      });
    }

    it('name the scope by the partial index literals alone (a bound project id would re-prepare them at each call)', () => {
      for (const query of INDEXED) {
        const { sql, sortedWhole } = sqliteQuerySql(
          PROJECT,
          plannedCase(indexes, query.options, query.index, query.ordered),
        );
        for (const statement of [sql, sortedWhole ?? '']) expect(statement).not.toMatch(/@project|@collection/);
      }
    });

    it('equality on the first field and a range on the second seek a two-field index', async () => {
      const options = plannedCase(indexes, TWO_FIELDS, 2, false);
      const { sql, params } = sqliteQuerySql(PROJECT, options);
      expect(plan(sql, params)[0]).toMatch(
        /^SEARCH documents USING COVERING INDEX cds_index_\d+ \((<expr>=\? AND ){3}<expr><\?\)/,
      );
      const indexed = await storage.documents.query(PROJECT, options);
      expect(indexed.documents).toEqual((await storage.documents.query(PROJECT, TWO_FIELDS)).documents);
      expect(indexed.rowsScanned).toBe(indexed.documents.length);
    });
  });
});

interface PgPlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Alias?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PgPlanNode[];
}

function flatten(node: PgPlanNode, depth = 0): { node: PgPlanNode; depth: number }[] {
  return [{ node, depth }, ...(node.Plans ?? []).flatMap((child) => flatten(child, depth + 1))];
}

describe.skipIf(postgresEngine.unavailable)('query plans on postgres', () => {
  let storage: PostgresStorage;
  // VERBOSE shows the subplans of target lists (the recursive seek of the skip scan lives there).
  const plan = async (sql: string, params: unknown[], analyze = false, on: pg.Pool | pg.PoolClient = storage.pool) => {
    const { rows } = await on.query<{ 'QUERY PLAN': { Plan: PgPlanNode }[] }>(
      `EXPLAIN (FORMAT JSON, VERBOSE${analyze ? ', ANALYZE' : ''}) ${sql}`,
      params,
    );
    const root = rows[0]?.['QUERY PLAN'][0]?.Plan;
    if (!root) throw new Error('no plan');
    const nodes = flatten(root);
    const lines = nodes.map(({ node, depth }) => {
      const on = [
        node['Index Name'] && `using ${node['Index Name']}`,
        node['Relation Name'] && `on ${node['Relation Name']}`,
        node['Actual Loops'] !== undefined && `(rows=${node['Actual Rows']} loops=${node['Actual Loops']})`,
      ];
      return `${'  '.repeat(depth)}${node['Node Type']} ${on.filter(Boolean).join(' ')}`;
    });
    console.log(`postgres plan:\n  ${lines.join('\n  ')}`);
    return nodes.map(({ node }) => node);
  };
  // A named prepared statement runs on a generic plan (parameters unknown) after five executions.
  const genericPlan = async (sql: string, params: unknown[]) => {
    const client = await storage.pool.connect();
    try {
      await client.query(`PREPARE generic AS ${sql}`);
      await client.query('SET plan_cache_mode = force_generic_plan');
      // EXECUTE takes no bound parameters: the values go in as literals, typed by the statement.
      const args = params.map((value) => client.escapeLiteral(String(value))).join(', ');
      return await plan(`EXECUTE generic(${args})`, [], true, client);
    } finally {
      await client.query('DEALLOCATE generic; RESET plan_cache_mode');
      client.release();
    }
  };
  const expectSeeks = (nodes: PgPlanNode[], index: string) => {
    expect(nodes.some((node) => node['Index Name'] === index)).toBe(true);
    const scans = nodes.filter((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'documents');
    expect(scans).toEqual([]);
  };
  /**
   * The document lookup (alias `doc`) and the skip scan's seeks (alias `d`) of a getWithCollections
   * plan, all on the primary key. (A plan omits the subplans of nodes that never ran.)
   */
  const readNodes = (nodes: PgPlanNode[]) => {
    const onDocuments = nodes.filter((node) => node['Relation Name'] === 'documents');
    expect(onDocuments.every((node) => node['Index Name'] === 'documents_pkey')).toBe(true);
    const lookups = onDocuments.filter((node) => node.Alias === 'doc');
    expect(lookups).toHaveLength(1);
    const seeks = onDocuments.filter((node) => node.Alias !== 'doc');
    const loops = seeks.reduce((sum, node) => sum + (node['Actual Loops'] ?? 0), 0);
    return { lookup: lookups[0] as PgPlanNode, seeks, loops };
  };

  beforeAll(async () => {
    const created = await postgresEngine.create();
    if (!(created instanceof PostgresStorage)) throw new Error('expected PostgreSQL storage');
    storage = created;
    await storage.pool.query(GENERATE_SQL, [PROJECT]);
    await storage.pool.query('ANALYZE documents');
  }, 120_000);
  afterAll(async () => {
    if (storage) await postgresEngine.destroy(storage);
  });

  it('get uses the primary key', async () => {
    expectSeeks(await plan(postgresDocumentSql.get, [PROJECT, 'c7/d7']), 'documents_pkey');
  });

  it('childCollections seeks the primary key once per name, reading one row per seek', async () => {
    for (const path of ['c1/d1', '']) {
      const names = await storage.documents.childCollections(PROJECT, path);
      const { sql, params } = childCollectionsQuery(PROJECT, path);
      const nodes = await plan(sql, params, true);
      expectSeeks(nodes, 'documents_pkey');
      const seeks = nodes.filter((node) => node['Relation Name'] === 'documents');
      expect(seeks.map((node) => node['Index Name'])).toEqual(['documents_pkey', 'documents_pkey']);
      // The first seek, then one per name (the last finds nothing), each reading at most one row
      // ('Actual Rows' is a rounded per-loop average): the cost follows the names, not the descendants.
      const loops = seeks.reduce((sum, node) => sum + (node['Actual Loops'] ?? 0), 0);
      expect(loops).toBe(names.length + 1);
      expect(seeks.every((node) => (node['Actual Rows'] ?? 0) <= 1)).toBe(true);
    }
    expect(await storage.documents.childCollections(PROJECT, 'c1/d1')).toEqual(C1_D1_COLLECTIONS);
    expect(C1_D1_COLLECTIONS).toHaveLength(40);
  });

  it('getWithCollections is one statement: the primary-key lookup, then one seek per child collection name', async () => {
    // No generated document has children; c1/d1 (40 child collections over 100 descendants) gets one here.
    await upsert(storage.documents, PROJECT, parseDocumentPath('c1/d1'), { n: 1 });
    const found = await storage.documents.getWithCollections(PROJECT, 'c1/d1');
    expect(found && { ...parseDocumentJson(found.document), collections: found.collections }).toMatchObject({
      path: 'c1/d1',
      data: { n: 1 },
      collections: C1_D1_COLLECTIONS,
    });
    const { sql, params } = getWithCollectionsQuery(PROJECT, 'c1/d1');
    for (const nodes of [await plan(sql, params, true), await genericPlan(sql, params)]) {
      const { lookup, seeks, loops } = readNodes(nodes);
      expect([lookup['Actual Rows'], lookup['Actual Loops']]).toEqual([1, 1]);
      expect(seeks).toHaveLength(2);
      // The first seek, then one per name (the last finds nothing), each reading at most one row.
      expect(loops).toBe(C1_D1_COLLECTIONS.length + 1);
      expect(seeks.every((node) => (node['Actual Rows'] ?? 0) <= 1)).toBe(true);
    }
  });

  it('getWithCollections of a missing document stops after the primary-key lookup', async () => {
    // c1/d101 is no document, but 100 documents lie below it.
    expect(await storage.documents.childCollections(PROJECT, 'c1/d101')).toHaveLength(40);
    expect(await storage.documents.getWithCollections(PROJECT, 'c1/d101')).toBeNull();
    const { sql, params } = getWithCollectionsQuery(PROJECT, 'c1/d101');
    for (const nodes of [await plan(sql, params, true), await genericPlan(sql, params)]) {
      const { lookup, loops } = readNodes(nodes);
      expect([lookup['Actual Rows'], lookup['Actual Loops']]).toEqual([0, 1]);
      expect(loops).toBe(0);
    }
  });

  it('a batch of document reads looks each up by primary key and seeks once per child collection name', async () => {
    await upsert(storage.documents, PROJECT, parseDocumentPath('c1/d1'), { n: 1 });
    // c1/d1 has 40 child collections, c1/d101 is missing (with 100 documents below), c4/d4 has none.
    const reads = await Promise.all(
      ['c1/d1', 'c1/d101', 'c4/d4'].map((p) => storage.documents.getWithCollections(PROJECT, p)),
    );
    expect(reads.map((read) => read && [parseDocumentJson(read.document).path, read.collections.length])).toEqual([
      ['c1/d1', 40],
      null,
      ['c4/d4', 0],
    ]);
    const params = [`{${PROJECT},${PROJECT},${PROJECT}}`, '{c1/d1,c1/d101,c4/d4}'];
    const sql = postgresDocumentSql.getManyWithCollections;
    for (const nodes of [await plan(sql, params, true), await genericPlan(sql, params)]) {
      const onDocuments = nodes.filter((node) => node['Relation Name'] === 'documents');
      expect(onDocuments.every((node) => node['Index Name'] === 'documents_pkey')).toBe(true);
      const lookups = onDocuments.filter((node) => node.Alias === 'doc');
      expect(lookups.map((node) => node['Actual Loops'])).toEqual([3]);
      // c1/d1: the first seek and one per name; c4/d4: the first seek, which finds nothing.
      const seeks = onDocuments.filter((node) => node.Alias !== 'doc');
      expect(seeks.reduce((sum, node) => sum + (node['Actual Loops'] ?? 0), 0)).toBe(40 + 1 + 1);
      expect(seeks.every((node) => (node['Actual Rows'] ?? 0) <= 1)).toBe(true);
    }
  });

  it('list uses documents_by_parent', async () => {
    expectSeeks(await plan(postgresDocumentSql.list, [PROJECT, 'c1/d1', 's1', '', 20]), 'documents_by_parent');
  });

  it('the admin store pages and counts use documents_by_parent', async () => {
    const page = [PROJECT, 'c1/d1', 's1', '', 20, 20];
    expectSeeks(await plan(postgresPagingSql.listPage, page), 'documents_by_parent');
    expectSeeks(await plan(postgresPagingSql.countChildren, [PROJECT, 'c1/d1', 's1']), 'documents_by_parent');
    expect(await storage.documents.countChildren(PROJECT, 'c1/d1', 's1')).toBe(C1_D1_S1_CHILDREN);
  });

  for (const query of QUERIES) {
    it(`${query.name} uses ${query.index}`, async () => {
      const { sql, params } = postgresQuerySql(PROJECT, query.options);
      expectSeeks(await plan(sql, params), query.index);
      expect((await storage.documents.query(PROJECT, query.options)).documents.length).toBeGreaterThan(0);
    });
  }

  it('a query tells the rows it read in its own statement, also when it returns none (no second one counts them)', async () => {
    // c2 holds 1,000 documents, n in 52, 152, …, 952.
    const cases: { options: QueryDocumentsOptions; documents: number; scanned: number }[] = [
      { options: { collection: 'c2', where: parseWhere(['n__exact:7']) }, documents: 0, scanned: 1000 },
      { options: { collection: 'c2', where: parseWhere(['n__exact:7']), limit: 10 }, documents: 0, scanned: 1000 },
      {
        options: { collection: 'c2', where: parseWhere(['n__exact:7']), orderBy: parseOrderBy('n'), limit: 10 },
        documents: 0,
        scanned: 1000,
      },
      { options: { collection: 'c2', where: [], offset: 1000 }, documents: 0, scanned: 1000 },
      { options: { collection: 'c2', where: parseWhere(['n__exact:152']), offset: 5 }, documents: 95, scanned: 1000 },
    ];
    const statements = vi.spyOn(storage.pool, 'query');
    try {
      for (const { options, documents, scanned } of cases) {
        const result = await storage.documents.query(PROJECT, options);
        expect(result.documents).toHaveLength(documents);
        expect(result.rowsScanned).toBe(scanned);
      }
      expect(statements).toHaveBeenCalledTimes(cases.length);
    } finally {
      statements.mockRestore();
    }
  });

  describe('with declared indexes (§15)', () => {
    let indexes: DocumentIndex[] = [];
    beforeAll(async () => {
      indexes = await declareIndexes(storage);
    });

    for (const query of INDEXED) {
      it(`${query.name} seeks its index and reads only the rows it returns`, async () => {
        const options = plannedCase(indexes, query.options, query.index, query.ordered);
        const { sql, params } = postgresQuerySql(PROJECT, options);
        const nodes = await plan(sql, params, true);
        // The planner may prefer another declared index serving the same clauses (n leads two).
        const used = nodes.find((node) => node['Index Name']?.startsWith('cds_index_'))?.['Index Name'];
        expectSeeks(nodes, used ?? `cds_index_${options.index?.index.id}`);
        expect(nodes.some((node) => node['Node Type'].includes('Sort'))).toBe(!query.ordered);
        const indexed = await storage.documents.query(PROJECT, options);
        const unindexed = await storage.documents.query(PROJECT, query.options);
        expect(indexed.documents).toEqual(unindexed.documents);
        expect(indexed.documents.length).toBeGreaterThan(0);
        expect(indexed.rowsScanned).toBe(indexed.documents.length + (options.offset ?? 0));
        // (Every document of c2 lacks `missing`: isnull reads them all either way.)
        expect(unindexed.rowsScanned).toBeGreaterThanOrEqual(indexed.rowsScanned);
      });
    }

    it('equality on the first field and a range on the second seek a two-field index', async () => {
      // Without the one-field index on n, which the planner finds cheaper here (its entries are smaller).
      await storage.indexes.drop(PROJECT, indexes[0]?.id ?? 0);
      const remaining = await storage.indexes.list(PROJECT);
      const options = plannedCase(remaining, TWO_FIELDS, 1, false);
      const { sql, params } = postgresQuerySql(PROJECT, options);
      expectSeeks(await plan(sql, params, true), `cds_index_${options.index?.index.id}`);
      const indexed = await storage.documents.query(PROJECT, options);
      expect(indexed.documents).toEqual((await storage.documents.query(PROJECT, TWO_FIELDS)).documents);
      expect(indexed.documents.length).toBeGreaterThan(0);
      expect(indexed.rowsScanned).toBe(indexed.documents.length);
    });
  });
});
