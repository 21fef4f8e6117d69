import type pg from 'pg';
import type { JsonValue } from '../../core/json.js';
import type {
  ChangeLogRetention,
  TreeCommit,
  TreeHistory,
  TreeSet,
  TreeSnapshot,
  TreeStore,
  TreeWriteHook,
} from '../../core/ports.js';
import { ancestorsOf, descendantRange, ROOT_PATH } from '../../core/realtime/tree-path.js';
import { assembleValue } from '../../core/realtime/tree-value.js';

/** The part of `pg` this store uses: a pool's query and a checked-out client's query. */
export type Queryable = Pick<pg.PoolClient, 'query'>;

interface LeafRow {
  path: string | null;
  value: JsonValue;
  version: string | null;
}

// Locks the project's version row for the rest of the transaction: concurrent writes of a
// project queue here, so versions follow commit order and no write is lost.
const BUMP_VERSION = `INSERT INTO tree_versions (project_id, version, log_floor) VALUES ($1, 1, 0)
  ON CONFLICT (project_id) DO UPDATE SET version = tree_versions.version + 1
  RETURNING version, log_floor`;

const DELETE_AT_ANY = 'DELETE FROM tree_leaves WHERE project_id = $1 AND path = ANY($2::text[])';
const DELETE_SUBTREE = `DELETE FROM tree_leaves
  WHERE project_id = $1 AND (path = $2 OR (path >= $3 AND path < $4))`;
const DELETE_ALL = 'DELETE FROM tree_leaves WHERE project_id = $1';
const INSERT_LEAVES = `INSERT INTO tree_leaves (project_id, path, value)
  SELECT $1::int, p, v::jsonb FROM unnest($2::text[], $3::text[]) AS t(p, v)`;
const INSERT_CHANGES = `INSERT INTO tree_changes (project_id, version, seq, path, value)
  SELECT $1::int, $2::bigint, s, p, v::jsonb FROM unnest($3::int[], $4::text[], $5::text[]) AS t(s, p, v)`;

// One statement: finds the first log entry still fresh (scanning from the oldest, so the cost
// follows what is trimmed), moves the floor past the expired and the surplus, deletes below it.
const TRIM_LOG = `WITH fresh AS (
    SELECT version FROM tree_changes
    WHERE project_id = $1 AND version > $2 AND created_at >= clock_timestamp() - $5 * interval '1 millisecond'
    ORDER BY version, seq LIMIT 1
  ), cut AS (
    SELECT GREATEST($2::bigint, $3::bigint - $4::bigint, COALESCE((SELECT version FROM fresh) - 1, $3::bigint - 1)) AS floor
  ), trimmed AS (
    DELETE FROM tree_changes WHERE project_id = $1 AND version > $2 AND version <= (SELECT floor FROM cut)
  )
  UPDATE tree_versions SET log_floor = (SELECT floor FROM cut)
  WHERE project_id = $1 AND log_floor < (SELECT floor FROM cut)`;

// Snapshots are single statements: one statement sees one consistent state, version included.
const SNAPSHOT_AT = `SELECT NULL AS path, NULL::jsonb AS value,
    (SELECT version FROM tree_versions WHERE project_id = $1) AS version
  UNION ALL SELECT path, value, NULL FROM tree_leaves WHERE project_id = $1 AND path = $2
  UNION ALL SELECT path, value, NULL FROM tree_leaves WHERE project_id = $1 AND path >= $3 AND path < $4`;
const SNAPSHOT_ROOT = `SELECT NULL AS path, NULL::jsonb AS value,
    (SELECT version FROM tree_versions WHERE project_id = $1) AS version
  UNION ALL SELECT path, value, NULL FROM tree_leaves WHERE project_id = $1`;

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

/** The realtime tree on PostgreSQL: one row per leaf (`COLLATE "C"` paths), a version row per project, a change log. */
export class PostgresTreeStore implements TreeStore {
  constructor(private readonly pool: pg.Pool) {}

  async set(projectId: number, set: TreeSet, retention: ChangeLogRetention, hook?: TreeWriteHook): Promise<TreeCommit> {
    const { version, changes } = await this.write(projectId, [set], retention, null, hook);
    return { version, changes };
  }

  patch(
    projectId: number,
    path: string,
    sets: TreeSet[],
    retention: ChangeLogRetention,
    hook?: TreeWriteHook,
  ): Promise<TreeCommit & { value: JsonValue }> {
    return this.write(projectId, sets, retention, path, hook);
  }

  async delete(
    projectId: number,
    path: string,
    retention: ChangeLogRetention,
    hook?: TreeWriteHook,
  ): Promise<TreeCommit> {
    const deletion = [{ path, value: null, leaves: [] }];
    const { version, changes } = await this.write(projectId, deletion, retention, null, hook);
    return { version, changes };
  }

  async snapshot(projectId: number, path: string): Promise<TreeSnapshot> {
    return readSnapshot(this.pool, projectId, path);
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
    if (since < floor || since > version) return null;
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

  private async write(
    projectId: number,
    sets: TreeSet[],
    retention: ChangeLogRetention,
    readBack: string | null,
    hook?: TreeWriteHook,
  ): Promise<TreeCommit & { value: JsonValue }> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { version, changes } = await writeTreeSets(client, projectId, sets, retention, hook);
      const value = readBack === null ? null : (await readSnapshot(client, projectId, readBack)).value;
      await client.query('COMMIT');
      return { version, changes, value };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}

/**
 * One commit of `sets` inside the caller's transaction: takes the project's next version (and
 * its row lock), applies the sets, logs and trims. Imports (§8) commit through it too.
 */
export async function writeTreeSets(
  client: Queryable,
  projectId: number,
  written: TreeSet[],
  retention: ChangeLogRetention,
  hook?: TreeWriteHook,
): Promise<TreeCommit> {
  const bumped = await client.query<{ version: string; log_floor: string }>(BUMP_VERSION, [projectId]);
  const row = bumped.rows[0] as { version: string; log_floor: string };
  const version = Number(row.version);
  // The version row is locked: nothing changes the values the hook reads until this commits.
  const sets = hook ? hook.resolve(await readValues(client, projectId, hook.reads), Date.now()) : written;
  await applySets(client, projectId, version, sets);
  await client.query(TRIM_LOG, [projectId, row.log_floor, version, retention.maxWrites, retention.maxAgeMs]);
  return { version, changes: sets.map((set) => ({ path: set.path, value: set.value })) };
}

/**
 * The statements of one write, batched. Patch keys are never prefixes of one another, so an
 * ancestor of one set never lies inside another set's subtree and the steps commute.
 */
async function applySets(client: Queryable, projectId: number, version: number, sets: TreeSet[]): Promise<void> {
  const ancestors = new Set<string>();
  for (const set of sets) if (set.leaves.length > 0) for (const a of ancestorsOf(set.path)) ancestors.add(a);
  if (ancestors.size > 0) await client.query(DELETE_AT_ANY, [projectId, [...ancestors]]);
  for (const set of sets) {
    if (set.path === ROOT_PATH) {
      await client.query(DELETE_ALL, [projectId]);
    } else {
      const { from, to } = descendantRange(set.path);
      await client.query(DELETE_SUBTREE, [projectId, set.path, from, to]);
    }
  }
  const leaves = sets.flatMap((set) => set.leaves);
  if (leaves.length > 0) {
    await client.query(INSERT_LEAVES, [
      projectId,
      leaves.map((leaf) => leaf.path),
      leaves.map((leaf) => JSON.stringify(leaf.value)),
    ]);
  }
  if (sets.length > 0) {
    await client.query(INSERT_CHANGES, [
      projectId,
      version,
      sets.map((_, seq) => seq),
      sets.map((set) => set.path),
      sets.map((set) => JSON.stringify(set.value)),
    ]);
  }
}

async function readValues(db: Queryable, projectId: number, paths: readonly string[]) {
  const values = new Map<string, JsonValue>();
  for (const path of new Set(paths)) values.set(path, (await readSnapshot(db, projectId, path)).value);
  return values;
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
