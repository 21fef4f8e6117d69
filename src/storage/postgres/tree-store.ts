import type pg from 'pg';
import type { JsonValue } from '../../core/json.js';
import { readsNothing } from '../../core/realtime/tree-batch.js';
import { packLeaves } from '../../core/realtime/tree-json.js';
import { descendantRange, ROOT_PATH } from '../../core/realtime/tree-path.js';
import {
  type ChangedPaths,
  type ChangeLogRetention,
  logCovers,
  type PackedSubtree,
  type TreeCommit,
  type TreeHistory,
  type TreeSet,
  type TreeSnapshot,
  type TreeStore,
  TreeStoreBase,
  type TreeWrite,
  type TreeWriteOutcome,
} from '../../core/realtime/tree-store.js';
import { assembleValue } from '../../core/realtime/tree-value.js';
import { inTransaction, type Queryable } from './transactions.js';
import { commitTreeWrites } from './tree-commit.js';
import { commitTreeWritesAtOnce, isWatchedRefusal } from './tree-commit-at-once.js';

interface LeafRow {
  path: string | null;
  value: JsonValue;
  version: string | null;
}

// Snapshots are single statements: one statement sees one consistent state, version included.
const SNAPSHOT_AT = `SELECT NULL AS path, NULL::jsonb AS value,
    (SELECT version FROM tree_versions WHERE project_id = $1) AS version
  UNION ALL SELECT path, value, NULL FROM tree_leaves WHERE project_id = $1 AND path = $2
  UNION ALL SELECT path, value, NULL FROM tree_leaves WHERE project_id = $1 AND path >= $3 AND path < $4`;
const SNAPSHOT_ROOT = `SELECT NULL AS path, NULL::jsonb AS value,
    (SELECT version FROM tree_versions WHERE project_id = $1) AS version
  UNION ALL SELECT path, value, NULL FROM tree_leaves WHERE project_id = $1`;

// A subtree's leaves in one row of one statement: their paths as a JSON array and their values'
// JSON text (jsonb's text form, which core re-writes where it is not canonical) joined by U+0001,
// which jsonb writes only escaped. Two strings cross into JavaScript instead of a row per leaf;
// the leaves come in the index's order as scanned (an ORDER BY or a bytea aggregate costs
// PostgreSQL 40–70 % more, measured, and core does not depend on the order).
// With the project's version, read by the same statement (one statement sees one snapshot).
const packedSql = (
  leaves: string,
) => `SELECT json_agg(l.path)::text AS paths, string_agg(l.value::text, chr(1)) AS texts,
  (SELECT version FROM tree_versions WHERE project_id = $1) AS version
  FROM (${leaves}) l`;
const PACKED_AT = packedSql(`SELECT path, value FROM tree_leaves WHERE project_id = $1 AND path = $2
  UNION ALL SELECT path, value FROM tree_leaves WHERE project_id = $1 AND path >= $3 AND path < $4`);
const PACKED_ROOT = packedSql('SELECT path, value FROM tree_leaves WHERE project_id = $1');

const LEAF_AT = 'SELECT value FROM tree_leaves WHERE project_id = $1 AND path = $2';

/**
 * A skip scan over the primary key: each step seeks the first path after the previous child's
 * subtree, so listing children costs one index seek per child. `$3` is the character position
 * where a child's name starts; paths never contain NUL, so `p || chr(1)` is the next path after p.
 */
function childPathsSql(root: boolean): string {
  const upper = root ? '' : 'AND t.path < $4';
  return `WITH RECURSIVE walk(path) AS (
    (SELECT path FROM tree_leaves t WHERE t.project_id = $1 AND t.path >= $2 ${upper} ORDER BY t.path LIMIT 1)
    UNION ALL
    SELECT (
      SELECT t.path FROM tree_leaves t
      WHERE t.project_id = $1 ${upper} AND t.path >= (
        CASE WHEN strpos(substr(w.path, $3), '/') = 0 THEN w.path || chr(1)
             ELSE substr(w.path, 1, $3 + strpos(substr(w.path, $3), '/') - 2) || '0' END)
      ORDER BY t.path LIMIT 1)
    FROM walk w WHERE w.path IS NOT NULL
  ) SELECT path FROM walk WHERE path IS NOT NULL`;
}

const CHANGES_AFTER = `SELECT v.version AS current, v.log_floor, c.version, c.path, c.value
  FROM tree_versions v
  LEFT JOIN tree_changes c ON c.project_id = v.project_id AND c.version > $2 AND $2 >= v.log_floor AND $2 <= v.version
  WHERE v.project_id = $1
  ORDER BY c.version, c.seq`;

const PATHS_CHANGED_AFTER = `SELECT v.version, v.log_floor, ARRAY(
    SELECT c.path FROM tree_changes c WHERE c.project_id = $1 AND c.version > $2 AND c.version <= $2::bigint + $3::bigint
  ) AS paths
  FROM tree_versions v WHERE v.project_id = $1`;

/** The realtime tree on PostgreSQL: one row per leaf (`COLLATE "C"` paths), a version row per project, a change log. */
export class PostgresTreeStore extends TreeStoreBase implements TreeStore {
  /** Projects seen with a webhook: their writes go straight to the transaction path (a hint; it checks again). */
  private readonly watched = new Set<number>();

  constructor(private readonly pool: pg.Pool) {
    super();
  }

  /**
   * One transaction for the writes, rolled back whole when a statement fails: one autocommitted
   * statement when no write reads the stored tree (tree-commit-at-once.ts), else tree-commit.ts
   * (which opens the transaction with its first statements).
   */
  async commit(writes: readonly TreeWrite[], retention: ChangeLogRetention): Promise<TreeWriteOutcome[]> {
    // A write recording its event needs the commit's transaction for it (the statement at once has
    // none): one that records always, or only if its project has a webhook and the project has one.
    const always = writes.some((write) => write.event && write.event.record !== 'if-webhook');
    const ifWebhook = writes.some((write) => write.event?.record === 'if-webhook');
    if (readsNothing(writes) && !always && !writes.some((write) => this.watched.has(write.projectId))) {
      try {
        return await commitTreeWritesAtOnce(this.pool, writes, retention, ifWebhook);
      } catch (error) {
        if (!isWatchedRefusal(error)) throw error;
        for (const write of writes) this.watched.add(write.projectId);
      }
    }
    const learn = (found: ReadonlySet<number>) => {
      for (const write of writes) {
        if (found.has(write.projectId)) this.watched.add(write.projectId);
        else this.watched.delete(write.projectId);
      }
    };
    return inTransaction(this.pool, (client) => commitTreeWrites(client, writes, retention, true, learn), null);
  }

  async snapshot(projectId: number, path: string): Promise<TreeSnapshot> {
    return readSnapshot(this.pool, projectId, path);
  }

  async packedLeaves(projectId: number, path: string): Promise<PackedSubtree> {
    const range = descendantRange(path);
    const root = path === ROOT_PATH;
    const { rows } = await this.pool.query<{ paths: string | null; texts: string | null; version: string | null }>(
      root ? PACKED_ROOT : PACKED_AT,
      root ? [projectId] : [projectId, path, range.from, range.to],
    );
    const row = rows[0];
    const version = Number(row?.version ?? 0);
    if (!row?.paths || row.texts === null) return { packed: new Uint8Array(0), version };
    const texts = row.texts.split('\u0001');
    const leaves = (JSON.parse(row.paths) as string[]).map((leafPath, i) => ({
      path: leafPath,
      json: texts[i] as string,
    }));
    return { packed: packLeaves(leaves), version };
  }

  async children(projectId: number, path: string): Promise<{ leaf: JsonValue; keys: string[] }> {
    const leaf = await this.pool.query<{ value: JsonValue }>(LEAF_AT, [projectId, path]);
    if (leaf.rows[0]) return { leaf: leaf.rows[0].value, keys: [] };
    const root = path === ROOT_PATH;
    const prefix = root ? '' : `${path}/`;
    // substr/strpos count characters (code points), not UTF-16 units.
    const start = [...prefix].length + 1;
    const params = root ? [projectId, '\u0001', start] : [projectId, prefix, start, descendantRange(path).to];
    const { rows } = await this.pool.query<{ path: string }>(childPathsSql(root), params);
    return {
      leaf: null,
      keys: rows.map((row) => {
        const rest = row.path.slice(prefix.length);
        const slash = rest.indexOf('/');
        return slash === -1 ? rest : rest.slice(0, slash);
      }),
    };
  }

  async currentVersion(projectId: number): Promise<number> {
    const { rows } = await this.pool.query<{ version: string }>(
      'SELECT version FROM tree_versions WHERE project_id = $1',
      [projectId],
    );
    return rows[0] ? Number(rows[0].version) : 0;
  }

  async changedPathsSince(projectId: number, since: number, maxCommits: number): Promise<ChangedPaths | null> {
    const { rows } = await this.pool.query<{ version: string; log_floor: string; paths: string[] }>(
      PATHS_CHANGED_AFTER,
      [projectId, since, maxCommits],
    );
    const head = rows[0];
    const version = head ? Number(head.version) : 0;
    const floor = head ? Number(head.log_floor) : 0;
    if (!logCovers(since, version, floor, maxCommits)) return null;
    return { version, paths: head?.paths ?? [] };
  }

  async changesSince(projectId: number, since: number): Promise<TreeHistory | null> {
    const { rows } = await this.pool.query<{
      current: string;
      log_floor: string;
      version: string | null;
      path: string | null;
      value: JsonValue;
    }>(CHANGES_AFTER, [projectId, since]);
    const head = rows[0];
    const version = head ? Number(head.current) : 0;
    const floor = head ? Number(head.log_floor) : 0;
    if (!logCovers(since, version, floor)) return null;
    const commits: TreeCommit[] = [];
    for (const row of rows) {
      if (row.version === null || row.path === null) continue;
      const rowVersion = Number(row.version);
      let last = commits[commits.length - 1];
      if (last?.version !== rowVersion) {
        last = { version: rowVersion, changes: [] };
        commits.push(last);
      }
      last.changes.push({ path: row.path, value: row.value });
    }
    return { version, commits };
  }

  protected async writeAlone(
    write: TreeWrite,
    retention: ChangeLogRetention,
  ): Promise<TreeCommit & { value: JsonValue }> {
    const [outcome] = await this.commit([write], retention);
    if (!outcome?.ok) throw outcome?.error;
    return outcome.commit;
  }
}

/** One commit of `sets` inside the caller's open transaction (an import, §8). */
export async function writeTreeSets(
  client: Queryable,
  projectId: number,
  sets: TreeSet[],
  retention: ChangeLogRetention,
): Promise<TreeCommit> {
  const [outcome] = await commitTreeWrites(client, [{ projectId, sets, readBack: null }], retention, false);
  if (!outcome?.ok) throw outcome?.error;
  const { version, changes } = outcome.commit;
  // Out of the change log, its floor moved to the import (as on SQLite, where a log entry of the
  // whole tree would slow every later commit): a subscriber resuming from before it gets a snapshot.
  await client.query(
    `WITH trimmed AS (DELETE FROM tree_changes WHERE project_id = $1 AND version <= $2)
     UPDATE tree_versions SET log_floor = $2 WHERE project_id = $1`,
    [projectId, version],
  );
  return { version, changes };
}

async function readSnapshot(db: Queryable, projectId: number, path: string): Promise<TreeSnapshot> {
  const range = descendantRange(path);
  const params = path === ROOT_PATH ? [projectId] : [projectId, path, range.from, range.to];
  const { rows } = await db.query<LeafRow>(path === ROOT_PATH ? SNAPSHOT_ROOT : SNAPSHOT_AT, params);
  let version = 0;
  const leaves = [];
  for (const row of rows) {
    if (row.path === null) version = row.version === null ? 0 : Number(row.version);
    else leaves.push({ path: row.path, value: row.value });
  }
  return { version, value: assembleValue(path, leaves) };
}
