/**
 * The §15 workloads: a selective random range of 100 over a collection with and without a
 * declared index, the same over a collection ten times larger, and a PUT into an indexed
 * collection measured in turns with a PUT into one without indexes. The collections are
 * bulk-loaded through SQL; `n` is a permutation of 0..size-1 scattered over path order, so
 * without an index a range reads the whole collection whatever its place.
 */
import { parseIndexFields } from '../src/core/documents/indexes.js';
import type { Storage } from '../src/core/ports.js';
import { PostgresStorage } from '../src/storage/postgres/postgres-storage.js';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import type { LoadRequest } from './http-load.js';
import type { HttpWorkload } from './http-workloads.js';
import { itemData } from './payloads.js';
import type { BenchSettings } from './settings.js';

/** 100,000 documents with an index on `n`, the same without, and the large collection with one. */
export const INDEXED = 'ranked';
export const UNINDEXED = 'plain';
export const LARGE = 'large';
/** The name of the PUT row's paired baseline. */
export const UNINDEXED_PUT_BASELINE = 'the same PUT into a collection without indexes';
export const INDEXED_PUT = 'document PUT into an indexed collection (§15)';

/** The `n` of document `x` of a collection of `size` (7919 is prime and divides no power of ten). */
const keyOf = (x: number, size: number) => (x * 7919) % size;
const pathOf = (collection: string, x: number) => `${collection}/i${String(x).padStart(7, '0')}`;
const spread = (i: number, n: number) => (i * 104_729 + 7) % n;
const fmt = (n: number) => n.toLocaleString('en-US');

/** Connections of the row without an index: each request reads the whole collection, and with
 * the usual 50 they would queue past the load's 10 s timeout (and keep the server busy after it). */
const SCAN_CONNECTIONS = 4;

/** The name of the range row over `size` documents. */
export const rangeRowName = (size: number, indexed: boolean) =>
  indexed
    ? `query, random range of 100 in ${fmt(size)} (limit=100), index on n`
    : `unindexed query, random range of 100 in ${fmt(size)} (limit=100, ${SCAN_CONNECTIONS} connections)`;

function sqliteLoad(db: SqliteStorage['db'], projectId: number, collection: string, size: number): void {
  const uuid = `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;
  db.prepare(
    `WITH RECURSIVE g(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM g WHERE x < @size - 1)
     INSERT INTO documents (project_id, path, parent, collection, id, data, created_at, updated_at)
     SELECT @project, @collection || '/i' || printf('%07d', x), '', @collection, ${uuid},
       jsonb_object('n', (x * 7919) % @size, 'name', 'item ' || x, 'level', x % 50,
         'active', json(CASE WHEN x % 2 = 0 THEN 'true' ELSE 'false' END), 'tags', json_array('red', 'blue'),
         'bio', 'A document of the benchmark collection.'),
       @now, @now FROM g`,
  ).run({ size, project: projectId, collection, now: Date.now() });
}

async function postgresLoad(pool: PostgresStorage['pool'], projectId: number, collection: string, size: number) {
  await pool.query(
    `INSERT INTO documents (project_id, path, parent, collection, id, data)
     SELECT $1, $2 || '/i' || lpad(x::text, 7, '0'), '', $2, gen_random_uuid(),
       jsonb_build_object('n', (x::bigint * 7919) % $3, 'name', 'item ' || x, 'level', x % 50,
         'active', x % 2 = 0, 'tags', jsonb_build_array('red', 'blue'), 'bio', 'A document of the benchmark collection.')
     FROM generate_series(0, $3::int - 1) AS x`,
    [projectId, collection, size],
  );
}

/** Bulk-loads `size` documents into `collection` of the project. */
async function loadCollection(storage: Storage, projectId: number, collection: string, size: number) {
  if (storage instanceof SqliteStorage) sqliteLoad(storage.db, projectId, collection, size);
  else if (storage instanceof PostgresStorage) await postgresLoad(storage.pool, projectId, collection, size);
  else throw new Error('unknown storage engine');
}

/** Declares and builds the index on `n` of `collection`, as a POST would; resolves to the build's seconds. */
async function buildIndex(storage: Storage, projectId: number, collection: string): Promise<number> {
  const index = await storage.indexes.create(projectId, collection, parseIndexFields([{ field: 'n' }]));
  if (!index) throw new Error(`index of ${collection} exists`);
  const started = performance.now();
  const state = await storage.indexes.build(index);
  if (state !== 'ready') throw new Error(`index of ${collection} is ${state}`);
  return (performance.now() - started) / 1000;
}

/** What loading the collections took: seconds to load each size, and to build each index. */
export interface IndexedLoad {
  loadSeconds: number;
  buildSeconds: { documents: number; seconds: number }[];
}

/** Loads the three collections and builds the indexes of two (before the service starts). */
export async function loadIndexedCollections(
  storage: Storage,
  projectId: number,
  settings: BenchSettings,
): Promise<IndexedLoad> {
  const started = performance.now();
  await loadCollection(storage, projectId, INDEXED, settings.documents);
  await loadCollection(storage, projectId, UNINDEXED, settings.documents);
  await loadCollection(storage, projectId, LARGE, settings.largeDocuments);
  if (storage instanceof PostgresStorage) await storage.pool.query('VACUUM ANALYZE documents');
  const loadSeconds = (performance.now() - started) / 1000;
  const buildSeconds = [
    { documents: settings.documents, seconds: await buildIndex(storage, projectId, INDEXED) },
    { documents: settings.largeDocuments, seconds: await buildIndex(storage, projectId, LARGE) },
  ];
  // The load's and the builds' dirty pages (about a gigabyte) go to disk now: left to the next
  // timed checkpoint, they are written during the measured write rows and every commit's fsync
  // waits behind them (in the full run of 2026-11-24, PostgreSQL document POST measured 678
  // requests/s; with this checkpoint, 2,979).
  if (storage instanceof PostgresStorage) await storage.pool.query('CHECKPOINT');
  return { loadSeconds, buildSeconds };
}

/** The range query over `collection` of `size` documents, at a scattered start. */
function rangeRequest(collection: string, size: number): (i: number) => LoadRequest {
  return (i) => {
    const from = spread(i, size - 100);
    return {
      method: 'GET',
      path: `/documents/query/${collection}?where=n__gte:${from}&where=n__lt:${from + 100}&limit=100`,
    };
  };
}

/** The range rows, each against the bare 100-document page; the one without an index last. */
export function rangeWorkloads(settings: BenchSettings): HttpWorkload[] {
  const row = (collection: string, size: number, indexed: boolean): HttpWorkload => ({
    name: rangeRowName(size, indexed),
    baseline: 'bare 100-document GET',
    expectStatus: 200,
    request: rangeRequest(collection, size),
    ...(indexed ? {} : { connections: SCAN_CONNECTIONS }),
  });
  return [
    row(INDEXED, settings.documents, true),
    row(LARGE, settings.largeDocuments, true),
    row(UNINDEXED, settings.documents, false),
  ];
}

/** A PUT replacing document `x` of `collection` (its index entry is rewritten; `n` stays a permutation). */
export function putRequest(collection: string, size: number): (i: number) => LoadRequest {
  return (i) => {
    const x = spread(i, size);
    const data = { ...itemData(x), n: keyOf(x, size) };
    return { method: 'PUT', path: `/documents/docs/${pathOf(collection, x)}`, body: JSON.stringify({ data }) };
  };
}
