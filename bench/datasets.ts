/**
 * The benchmark's data, bulk-loaded through SQL on either engine so that setup takes seconds:
 * a document collection, a document with many descendants, a realtime tree, leaderboards (each
 * board given the same entries).
 * Every value is a function of its position, so both engines (and Redis) hold the same data.
 */
import type { Storage } from '../src/core/ports.js';
import { PostgresStorage } from '../src/storage/postgres/postgres-storage.js';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';

/** Ten users per stat value: ties are the common case. */
export const DISTINCT_STATS = 100_000;
/** The `updated_at` of bulk-loaded entries. */
export const BASE_TIME = Date.parse('2026-11-22T00:00:00.000Z');
/** The collection that document GET, list and query read. */
export const ITEMS = 'items';
/** The document whose child collections are computed over its descendants. */
export const HUB_PATH = 'hubs/h0';
/** Child collections of the hub. */
export const HUB_COLLECTIONS = 10;
/** The parent of the realtime subtrees. */
export const ROOMS = 'rooms';

/** The stat of user `g` on the board (and in Redis). */
export const statOf = (g: number) => (g * 7919) % DISTINCT_STATS;
/** The `updated_at` of user `g`'s entry. */
export const timeOf = (g: number) => BASE_TIME + (g % 1000);
/** The path of item `i` (zero-padded, so path order is number order). */
export const itemPath = (i: number) => `${ITEMS}/i${String(i).padStart(6, '0')}`;
/** The path of realtime subtree `k`. */
export const roomPath = (k: number) => `${ROOMS}/r${String(k).padStart(4, '0')}`;
/** Items whose `n` is at least this: half of them, spread evenly over path order. */
export const QUERY_THRESHOLD = 500;

/** What to load. */
export interface DatasetSizes {
  documents: number;
  hubDescendants: number;
  treeLeaves: number;
  subtreeLeaves: number;
  boardEntries: number;
}

const BIO = 'A document of the benchmark collection.';

function sqliteLoad(
  db: SqliteStorage['db'],
  projectId: number,
  boardIds: readonly number[],
  sizes: DatasetSizes,
): void {
  const uuid = `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;
  const series = 'WITH RECURSIVE g(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM g WHERE x < @n - 1)';
  const now = Date.now();
  const documents = `INSERT INTO documents (project_id, path, parent, collection, id, data, created_at, updated_at)`;
  db.transaction(() => {
    if (sizes.documents > 0) {
      db.prepare(
        `${series} ${documents}
         SELECT @project, '${ITEMS}/i' || printf('%06d', x), '', '${ITEMS}', ${uuid},
           jsonb_object('n', (x * 7919) % 1000, 'name', 'item ' || x, 'level', x % 50,
             'active', json(CASE WHEN x % 2 = 0 THEN 'true' ELSE 'false' END), 'tags', json_array('red', 'blue'), 'bio', @bio),
           @now, @now FROM g`,
      ).run({ n: sizes.documents, project: projectId, bio: BIO, now });
    }
    if (sizes.hubDescendants > 0) {
      db.prepare(
        `${documents} VALUES (@project, '${HUB_PATH}', '', 'hubs', ${uuid}, jsonb_object('name', 'hub'), @now, @now)`,
      ).run({ project: projectId, now });
      db.prepare(
        `${series} ${documents}
         SELECT @project, '${HUB_PATH}/c' || (x % ${HUB_COLLECTIONS}) || '/d' || printf('%06d', x), '${HUB_PATH}',
           'c' || (x % ${HUB_COLLECTIONS}), ${uuid}, jsonb_object('n', x), @now, @now FROM g`,
      ).run({ n: sizes.hubDescendants, project: projectId, now });
    }
    if (sizes.treeLeaves > 0) {
      db.prepare(
        `${series} INSERT INTO tree_leaves (project_id, path, value)
         SELECT @project, '${ROOMS}/r' || printf('%04d', x / @per) || '/p' || printf('%04d', x % @per), CAST(x % 1000 AS TEXT) FROM g`,
      ).run({ n: sizes.treeLeaves, per: sizes.subtreeLeaves, project: projectId });
    }
    if (sizes.boardEntries > 0) {
      // Loading in key order and indexing afterwards is much faster than keeping the index up to date.
      db.exec('DROP INDEX leaderboard_entries_by_rank');
      const insert = db.prepare(
        `WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < @n)
         INSERT INTO leaderboard_entries (leaderboard_id, user_id, league, stat_value, score, updated_at)
         SELECT @board, x, 'global', (x * 7919) % ${DISTINCT_STATS}, -((x * 7919) % ${DISTINCT_STATS}), ${BASE_TIME} + (x % 1000) FROM g`,
      );
      for (const board of boardIds) insert.run({ n: sizes.boardEntries, board });
      db.exec(
        'CREATE INDEX leaderboard_entries_by_rank ON leaderboard_entries (leaderboard_id, league, score, updated_at, user_id)',
      );
    }
  })();
}

async function postgresLoad(
  pool: PostgresStorage['pool'],
  projectId: number,
  boardIds: readonly number[],
  sizes: DatasetSizes,
): Promise<void> {
  const documents = 'INSERT INTO documents (project_id, path, parent, collection, id, data)';
  if (sizes.documents > 0) {
    await pool.query(
      `${documents}
       SELECT $1, '${ITEMS}/i' || lpad(x::text, 6, '0'), '', '${ITEMS}', gen_random_uuid(),
         jsonb_build_object('n', (x::bigint * 7919) % 1000, 'name', 'item ' || x, 'level', x % 50,
           'active', x % 2 = 0, 'tags', jsonb_build_array('red', 'blue'), 'bio', $3::text)
       FROM generate_series(0, $2::int - 1) AS x`,
      [projectId, sizes.documents, BIO],
    );
  }
  if (sizes.hubDescendants > 0) {
    await pool.query(`${documents} VALUES ($1, '${HUB_PATH}', '', 'hubs', gen_random_uuid(), '{"name":"hub"}')`, [
      projectId,
    ]);
    await pool.query(
      `${documents}
       SELECT $1, '${HUB_PATH}/c' || (x % ${HUB_COLLECTIONS}) || '/d' || lpad(x::text, 6, '0'), '${HUB_PATH}',
         'c' || (x % ${HUB_COLLECTIONS}), gen_random_uuid(), jsonb_build_object('n', x)
       FROM generate_series(0, $2::int - 1) AS x`,
      [projectId, sizes.hubDescendants],
    );
  }
  if (sizes.treeLeaves > 0) {
    await pool.query(
      `INSERT INTO tree_leaves (project_id, path, value)
       SELECT $1, '${ROOMS}/r' || lpad((x / $3::int)::text, 4, '0') || '/p' || lpad((x % $3::int)::text, 4, '0'), to_jsonb(x % 1000)
       FROM generate_series(0, $2::int - 1) AS x`,
      [projectId, sizes.treeLeaves, sizes.subtreeLeaves],
    );
  }
  if (sizes.boardEntries > 0) {
    await pool.query(
      `INSERT INTO leaderboard_entries (leaderboard_id, user_id, league, stat_value, score, updated_at)
       SELECT b, g, 'global', (g::bigint * 7919) % ${DISTINCT_STATS}, -((g::bigint * 7919) % ${DISTINCT_STATS}), ${BASE_TIME} + (g % 1000)
       FROM unnest($1::int[]) AS b, generate_series(1, $2::int) AS g`,
      [boardIds, sizes.boardEntries],
    );
  }
  // What autovacuum does shortly after such a load: statistics and the visibility map. Then the
  // load's dirty pages go to disk now, not in a checkpoint during the measured workloads.
  await pool.query('VACUUM ANALYZE documents, tree_leaves, leaderboard_entries');
  await pool.query('CHECKPOINT');
}

/** Loads every dataset into the project (and each board's entries for users 1..boardEntries, the same on every board). */
export async function loadDatasets(
  storage: Storage,
  projectId: number,
  boards: number | readonly number[],
  sizes: DatasetSizes,
): Promise<void> {
  const boardIds = typeof boards === 'number' ? [boards] : boards;
  if (storage instanceof SqliteStorage) sqliteLoad(storage.db, projectId, boardIds, sizes);
  else if (storage instanceof PostgresStorage) await postgresLoad(storage.pool, projectId, boardIds, sizes);
  else throw new Error('unknown storage engine');
}

/** Inserts `n` entries of board `boardId` only (the in-process leaderboard bench). */
export async function loadBoardEntries(storage: Storage, boardId: number, n: number): Promise<void> {
  const sizes: DatasetSizes = { documents: 0, hubDescendants: 0, treeLeaves: 0, subtreeLeaves: 1, boardEntries: n };
  if (storage instanceof SqliteStorage) sqliteLoad(storage.db, 0, [boardId], sizes);
  else if (storage instanceof PostgresStorage) await postgresLoad(storage.pool, 0, [boardId], sizes);
  else throw new Error('unknown storage engine');
}
