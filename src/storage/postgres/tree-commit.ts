/**
 * Tree writes of PostgreSQL as one commit, whatever their number, in at most four round trips:
 *
 * 1. `BEGIN` and the lock of each project's version row, in project order (one simple-protocol
 *    query): a project's writers queue there, on every instance, so versions follow commit order;
 * 2. one read of the stored subtrees the writes' hooks and read-backs name, unless none does;
 * 3. the writes decided in JS, in order, on the tree as the writes before them left it
 *    (`TreeOverlay`; a hook that refuses leaves its write out alone), then one statement storing
 *    the net effect: leaves deleted and inserted, change log appended and trimmed, versions set;
 * 4. `COMMIT`.
 */
import type pg from 'pg';
import { type NewEvent, treeEvent } from '../../core/events/outbox-events.js';
import type { JsonValue } from '../../core/json.js';
import { DisconnectOpGone } from '../../core/realtime/disconnect-op-store.js';
import { TreeOverlay } from '../../core/realtime/tree-overlay.js';
import { descendantRange, ROOT_PATH } from '../../core/realtime/tree-path.js';
import type {
  ChangeLogRetention,
  TreeLeaf,
  TreeSet,
  TreeWrite,
  TreeWriteOutcome,
} from '../../core/realtime/tree-store.js';
import { appendEvents, watchedProjects } from './event-store.js';
import type { Queryable } from './transactions.js';

/**
 * Locks the version rows of `projects` (integers, ascending), creating missing ones at 0; `BEGIN`
 * first when asked; then, when asked, which of them have a webhook (`watchedProjects`).
 */
function lockVersions(projects: readonly number[], begin: boolean, checkWebhooks: boolean): string {
  const list = `'{${projects.join(',')}}'::int[]`;
  return `${begin ? 'BEGIN; ' : ''}INSERT INTO tree_versions (project_id, version, log_floor)
SELECT p, 0, 0 FROM unnest(${list}) AS p
ON CONFLICT (project_id) DO UPDATE SET version = tree_versions.version RETURNING project_id, version, log_floor${
    checkWebhooks ? `; ${watchedProjects(list)}` : ''
  }`;
}

// The leaves at and below each requested path; a null range means the whole project (the root).
const READ_SUBTREES = `SELECT r.i::int AS i, l.path, l.value
FROM unnest($1::int[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS r(project_id, path, lo, hi, i)
CROSS JOIN LATERAL (SELECT * FROM (
  SELECT t.path, t.value FROM tree_leaves t WHERE t.project_id = r.project_id AND t.path = r.path
  UNION ALL SELECT t.path, t.value FROM tree_leaves t WHERE t.project_id = r.project_id AND t.path >= r.lo AND t.path < r.hi
  UNION ALL SELECT t.path, t.value FROM tree_leaves t WHERE r.hi IS NULL AND t.project_id = r.project_id
) u OFFSET 0) l`;

/**
 * A commit's outcome in one statement. Deleted are the stored leaves at `$1`/`$2`, in the ranges
 * `$3`–`$5` and of the projects `$6`, except those the commit writes again (`$7`–`$9`, upserted),
 * so the two never touch one row. The change log gets `$10`–`$14` and each project `$15` its
 * final version `$16`, the log trimmed as of its old floor `$17` and first new version `$18`.
 * Rows to delete are found by one index lookup per array element (`OFFSET 0` keeps the planner
 * from flattening a lookup into a join, which it may plan as a scan of the whole table filtered
 * by every range) and deleted by `ctid`.
 */
const WRITE_COMMIT = `WITH ins AS (
  SELECT * FROM unnest($7::int[], $8::text[], $9::jsonb[]) AS i(project_id, path, value)
), doomed AS (
  SELECT l.ctid AS id, l.project_id, l.path FROM unnest($1::int[], $2::text[]) AS p(project_id, path)
    CROSS JOIN LATERAL (SELECT ctid, project_id, path FROM tree_leaves t
      WHERE t.project_id = p.project_id AND t.path = p.path OFFSET 0) l
  UNION ALL
  SELECT l.ctid, l.project_id, l.path FROM unnest($3::int[], $4::text[], $5::text[]) AS r(project_id, lo, hi)
    CROSS JOIN LATERAL (SELECT ctid, project_id, path FROM tree_leaves t
      WHERE t.project_id = r.project_id AND t.path >= r.lo AND t.path < r.hi OFFSET 0) l
  UNION ALL
  SELECT l.ctid, l.project_id, l.path FROM unnest($6::int[]) AS a(project_id)
    CROSS JOIN LATERAL (SELECT ctid, project_id, path FROM tree_leaves t WHERE t.project_id = a.project_id) l
), gone AS (
  DELETE FROM tree_leaves WHERE ctid = ANY(ARRAY(
    SELECT d.id FROM doomed d
    WHERE NOT EXISTS (SELECT 1 FROM ins WHERE ins.project_id = d.project_id AND ins.path = d.path)))
), leaves AS (
  INSERT INTO tree_leaves (project_id, path, value) SELECT project_id, path, value FROM ins
  ON CONFLICT (project_id, path) DO UPDATE SET value = EXCLUDED.value
), logged AS (
  INSERT INTO tree_changes (project_id, version, seq, path, value)
  SELECT * FROM unnest($10::int[], $11::bigint[], $12::int[], $13::text[], $14::jsonb[])
), cut AS (
  SELECT v.project_id, v.version, v.old_floor, GREATEST(v.old_floor, v.version - $19::bigint, COALESCE((
    SELECT c.version FROM tree_changes c
    WHERE c.project_id = v.project_id AND c.version > v.old_floor
      AND c.created_at >= clock_timestamp() - $20 * interval '1 millisecond'
    ORDER BY c.version, c.seq LIMIT 1) - 1, v.first - 1)) AS floor
  FROM unnest($15::int[], $16::bigint[], $17::bigint[], $18::bigint[]) AS v(project_id, version, old_floor, first)
), trimmed AS (
  DELETE FROM tree_changes WHERE ctid = ANY(ARRAY(
    SELECT c.ctid FROM cut CROSS JOIN LATERAL (SELECT ctid FROM tree_changes t
      WHERE t.project_id = cut.project_id AND t.version > cut.old_floor AND t.version <= cut.floor OFFSET 0) c))
)
UPDATE tree_versions t SET version = cut.version, log_floor = cut.floor FROM cut WHERE t.project_id = cut.project_id`;

/** The statements of a commit, for query-plan tests. */
export const postgresTreeCommitSql = { readSubtrees: READ_SUBTREES, writeCommit: WRITE_COMMIT } as const;

interface VersionRow {
  project_id: number;
  version: string;
  log_floor: string;
}

/** A project's part of the commit. */
interface ProjectState {
  overlay: TreeOverlay;
  oldFloor: number;
  first: number;
  version: number;
}

const keyOf = (projectId: number, path: string) => `${projectId}/${path}`;

/**
 * Commits `writes` inside the caller's connection: with `begin`, the commit's own transaction
 * (the caller sends `COMMIT`); without, the caller's open transaction (an import).
 */
export async function commitTreeWrites(
  client: Queryable,
  writes: readonly TreeWrite[],
  retention: ChangeLogRetention,
  begin: boolean,
  /** Told which of the writes' projects have a webhook, when a write records its event only then. */
  onWatched?: (watched: ReadonlySet<number>) => void,
): Promise<TreeWriteOutcome[]> {
  const projectIds = [...new Set(writes.map((write) => write.projectId))].sort((a, b) => a - b);
  const checkWebhooks = writes.some((write) => write.event?.record === 'if-webhook');
  const answer = (await client.query(lockVersions(projectIds, begin, checkWebhooks))) as unknown as
    | pg.QueryResult
    | pg.QueryResult[];
  const results = Array.isArray(answer) ? answer : [answer];
  const locked = results[begin ? 1 : 0] as pg.QueryResult<VersionRow> | undefined;
  const watched = new Set(
    (checkWebhooks ? (results[results.length - 1]?.rows ?? []) : []).map(
      (row) => (row as { project_id: number }).project_id,
    ),
  );
  if (checkWebhooks) onWatched?.(watched);
  const projects = new Map<number, ProjectState>();
  for (const row of locked?.rows ?? []) {
    const version = Number(row.version);
    const state = { overlay: new TreeOverlay(), oldFloor: Number(row.log_floor), first: version + 1, version };
    projects.set(row.project_id, state);
  }
  const gone = await consumeOps(client, writes);
  const stored = await readStored(client, writes);
  const time = Date.now();
  const changes: { projectId: number; version: number; seq: number; path: string; value: JsonValue }[] = [];
  const outcomes = writes.map((write): TreeWriteOutcome => {
    if (write.consumes !== undefined && gone.has(write.consumes))
      return { ok: false, error: new DisconnectOpGone(write.consumes) };
    const project = projects.get(write.projectId) as ProjectState;
    const storedAt = (path: string) => stored.get(keyOf(write.projectId, path)) ?? [];
    let sets: TreeSet[];
    try {
      const current = (path: string): [string, JsonValue] => [path, project.overlay.valueAt(path, storedAt(path))];
      sets = write.hook ? write.hook.resolve(new Map(write.hook.reads.map(current)), time) : write.sets;
    } catch (error) {
      return { ok: false, error };
    }
    project.overlay.apply(sets);
    const version = ++project.version;
    for (const [seq, set] of sets.entries())
      changes.push({ projectId: write.projectId, version, seq, path: set.path, value: set.value });
    const value = write.readBack === null ? null : project.overlay.valueAt(write.readBack, storedAt(write.readBack));
    return { ok: true, commit: { version, changes: sets.map((set) => ({ path: set.path, value: set.value })), value } };
  });
  // Commits the trim would drop at once are not logged at all.
  const kept = changes.filter(
    (change) => change.version > (projects.get(change.projectId)?.version ?? 0) - retention.maxWrites,
  );
  await writeCommit(client, projects, kept, retention);
  await recordTreeEvents(client, writes, outcomes, time, watched);
  return outcomes;
}

/** The `realtime.written` events of the writes that record them (always, or `watched`), appended last. */
async function recordTreeEvents(
  client: Queryable,
  writes: readonly TreeWrite[],
  outcomes: readonly TreeWriteOutcome[],
  time: number,
  watched: ReadonlySet<number>,
): Promise<void> {
  const byProject = new Map<number, NewEvent[]>();
  outcomes.forEach((outcome, i) => {
    const write = writes[i] as TreeWrite;
    if (!outcome.ok || !write.event) return;
    if (write.event.record === 'if-webhook' && !watched.has(write.projectId)) return;
    const events = byProject.get(write.projectId) ?? [];
    events.push(treeEvent(write.projectId, write.event, outcome.commit, time));
    byProject.set(write.projectId, events);
  });
  for (const [projectId, events] of byProject) await appendEvents(client, projectId, events, time);
}

/**
 * Deletes the rows of the on-disconnect ops the writes run (§17), after the version locks; answers
 * the ids whose row was gone already (another instance ran the op): those writes are refused.
 */
async function consumeOps(client: Queryable, writes: readonly TreeWrite[]): Promise<Set<string>> {
  const ids = writes.flatMap((write) => (write.consumes === undefined ? [] : [write.consumes]));
  if (ids.length === 0) return new Set();
  const { rows } = await client.query<{ id: string }>({
    name: 'cds_tree_consume_ops',
    text: 'DELETE FROM disconnect_ops WHERE id = ANY($1::text[]) RETURNING id',
    values: [ids],
  });
  const consumed = new Set(rows.map((row) => row.id));
  return new Set(ids.filter((id) => !consumed.has(id)));
}

/** The stored leaves at and below every path a hook or read-back names, by project and path; one statement. */
async function readStored(client: Queryable, writes: readonly TreeWrite[]): Promise<Map<string, TreeLeaf[]>> {
  const targets = new Map<string, { projectId: number; path: string }>();
  for (const write of writes) {
    const paths = [...(write.hook?.reads ?? []), ...(write.readBack === null ? [] : [write.readBack])];
    for (const path of paths) targets.set(keyOf(write.projectId, path), { projectId: write.projectId, path });
  }
  const stored = new Map<string, TreeLeaf[]>();
  if (targets.size === 0) return stored;
  const list = [...targets.values()];
  const ranges = list.map(({ path }) => (path === ROOT_PATH ? null : descendantRange(path)));
  const { rows } = await client.query<{ i: number; path: string; value: JsonValue }>({
    name: 'cds_tree_read_subtrees',
    text: READ_SUBTREES,
    values: [
      list.map((target) => target.projectId),
      list.map((target) => (target.path === ROOT_PATH ? null : target.path)),
      ranges.map((range) => range?.from ?? null),
      ranges.map((range) => range?.to ?? null),
    ],
  });
  for (const [key] of targets) stored.set(key, []);
  const keys = [...targets.keys()];
  for (const row of rows) stored.get(keys[row.i - 1] as string)?.push({ path: row.path, value: row.value });
  return stored;
}

/**
 * The leaf statement's first nine parameters for the overlays of a commit's projects: points and
 * subtree ranges to delete, projects wiped whole, and the leaves to insert (shared by both paths).
 */
export function leafColumns(overlays: readonly (readonly [number, TreeOverlay])[]): unknown[] {
  const points: [number, string][] = [];
  const ranges: [number, string, string][] = [];
  const wiped: number[] = [];
  const inserted: [number, TreeLeaf][] = [];
  for (const [projectId, overlay] of overlays) {
    const { all, points: at, subtrees } = overlay.deletions;
    if (all) wiped.push(projectId);
    for (const path of [...at, ...subtrees]) points.push([projectId, path]);
    for (const path of subtrees) {
      const { from, to } = descendantRange(path);
      ranges.push([projectId, from, to]);
    }
    for (const leaf of overlay.insertions) inserted.push([projectId, leaf]);
  }
  return [
    points.map(([projectId]) => projectId),
    points.map(([, path]) => path),
    ranges.map(([projectId]) => projectId),
    ranges.map(([, from]) => from),
    ranges.map(([, , to]) => to),
    wiped,
    inserted.map(([projectId]) => projectId),
    inserted.map(([, leaf]) => leaf.path),
    inserted.map(([, leaf]) => JSON.stringify(leaf.value)),
  ];
}

async function writeCommit(
  client: Queryable,
  projects: Map<number, ProjectState>,
  changes: { projectId: number; version: number; seq: number; path: string; value: JsonValue }[],
  retention: ChangeLogRetention,
): Promise<void> {
  const versions: [number, ProjectState][] = [];
  for (const [projectId, state] of projects) if (state.version >= state.first) versions.push([projectId, state]);
  if (versions.length === 0) return;
  await client.query({
    name: 'cds_tree_write_commit',
    text: WRITE_COMMIT,
    values: [
      ...leafColumns(versions.map(([projectId, state]) => [projectId, state.overlay])),
      changes.map((change) => change.projectId),
      changes.map((change) => change.version),
      changes.map((change) => change.seq),
      changes.map((change) => change.path),
      changes.map((change) => JSON.stringify(change.value)),
      versions.map(([projectId]) => projectId),
      versions.map(([, state]) => state.version),
      versions.map(([, state]) => state.oldFloor),
      versions.map(([, state]) => state.first),
      retention.maxWrites,
      retention.maxAgeMs,
    ],
  });
}
