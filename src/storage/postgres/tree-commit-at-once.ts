/**
 * Tree writes that read nothing stored (PUT and DELETE without a §11 hook) committed in one round
 * trip: the writes' net effect is decided in JS before any lock, versions as offsets from the
 * project's version; then one autocommitted call of `cds_tree_commit` (migration 11) locks each
 * project's version row, moving it on by the commit's writes, and stores the effect in a second
 * statement that sees every commit before it. The row lock is held for that statement and the
 * commit only, not across client round trips, so instances' commits of one project overlap
 * everything but their writes; versions still follow commit order on every instance.
 */
import type pg from 'pg';
import { batchOutcomes, planTreeBatch } from '../../core/realtime/tree-batch.js';
import type { ChangeLogRetention, TreeWrite, TreeWriteOutcome } from '../../core/realtime/tree-store.js';
import { leafColumns } from './tree-commit.js';

/**
 * Migration 11: the function. Never edit it here; a change is a new migration. It is VOLATILE,
 * so its second statement takes a fresh snapshot after the lock (READ COMMITTED): it sees the
 * leaves and log of every commit that held the lock before. The arguments are those of
 * `tree-commit.ts`'s WRITE_COMMIT, with change-log versions as offsets (`p_ch_offset`, 1 for a
 * project's first write) and the number of writes per project (`p_counts`, projects ascending).
 */
export const TREE_COMMIT_FUNCTION = `
CREATE FUNCTION cds_tree_commit(
  p_points_project INT[], p_points_path TEXT[],
  p_ranges_project INT[], p_ranges_lo TEXT[], p_ranges_hi TEXT[], p_wiped INT[],
  p_ins_project INT[], p_ins_path TEXT[], p_ins_value JSONB[],
  p_ch_project INT[], p_ch_offset BIGINT[], p_ch_seq INT[], p_ch_path TEXT[], p_ch_value JSONB[],
  p_projects INT[], p_counts BIGINT[], p_max_writes BIGINT, p_max_age_ms DOUBLE PRECISION
) RETURNS TABLE (locked_project INT, base BIGINT) LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  v_bases BIGINT[];
  v_floors BIGINT[];
BEGIN
  WITH moved AS (
    INSERT INTO tree_versions AS t (project_id, version, log_floor)
    SELECT u.p, u.n, 0 FROM unnest(p_projects, p_counts) AS u(p, n) ORDER BY u.p
    ON CONFLICT (project_id) DO UPDATE SET version = t.version + EXCLUDED.version
    RETURNING t.project_id, t.version, t.log_floor
  )
  SELECT array_agg(m.version - u.n ORDER BY u.i), array_agg(m.log_floor ORDER BY u.i) INTO v_bases, v_floors
  FROM unnest(p_projects, p_counts) WITH ORDINALITY AS u(p, n, i) JOIN moved m ON m.project_id = u.p;

  WITH ins AS (
    SELECT * FROM unnest(p_ins_project, p_ins_path, p_ins_value) AS i(project_id, path, value)
  ), doomed AS (
    SELECT l.ctid AS id, l.project_id, l.path FROM unnest(p_points_project, p_points_path) AS p(project_id, path)
      CROSS JOIN LATERAL (SELECT t.ctid, t.project_id, t.path FROM tree_leaves t
        WHERE t.project_id = p.project_id AND t.path = p.path OFFSET 0) l
    UNION ALL
    SELECT l.ctid, l.project_id, l.path FROM unnest(p_ranges_project, p_ranges_lo, p_ranges_hi) AS r(project_id, lo, hi)
      CROSS JOIN LATERAL (SELECT t.ctid, t.project_id, t.path FROM tree_leaves t
        WHERE t.project_id = r.project_id AND t.path >= r.lo AND t.path < r.hi OFFSET 0) l
    UNION ALL
    SELECT l.ctid, l.project_id, l.path FROM unnest(p_wiped) AS a(project_id)
      CROSS JOIN LATERAL (SELECT t.ctid, t.project_id, t.path FROM tree_leaves t
        WHERE t.project_id = a.project_id OFFSET 0) l
  ), gone AS (
    DELETE FROM tree_leaves WHERE ctid = ANY(ARRAY(
      SELECT d.id FROM doomed d
      WHERE NOT EXISTS (SELECT 1 FROM ins WHERE ins.project_id = d.project_id AND ins.path = d.path)))
  ), leaves AS (
    INSERT INTO tree_leaves (project_id, path, value) SELECT i.project_id, i.path, i.value FROM ins i
    ON CONFLICT (project_id, path) DO UPDATE SET value = EXCLUDED.value
  ), bases AS (
    SELECT * FROM unnest(p_projects, p_counts, v_bases, v_floors) AS b(project_id, n, base, old_floor)
  ), logged AS (
    INSERT INTO tree_changes (project_id, version, seq, path, value)
    SELECT c.project_id, b.base + c.o, c.seq, c.path, c.value
    FROM unnest(p_ch_project, p_ch_offset, p_ch_seq, p_ch_path, p_ch_value) AS c(project_id, o, seq, path, value)
    JOIN bases b ON b.project_id = c.project_id
  ), cut AS (
    SELECT b.project_id, b.old_floor, GREATEST(b.old_floor, b.base + b.n - p_max_writes, COALESCE((
      SELECT c.version FROM tree_changes c
      WHERE c.project_id = b.project_id AND c.version > b.old_floor
        AND c.created_at >= clock_timestamp() - p_max_age_ms * interval '1 millisecond'
      ORDER BY c.version, c.seq LIMIT 1) - 1, b.base)) AS floor
    FROM bases b
  ), trimmed AS (
    DELETE FROM tree_changes WHERE ctid = ANY(ARRAY(
      SELECT c.ctid FROM cut CROSS JOIN LATERAL (SELECT t.ctid FROM tree_changes t
        WHERE t.project_id = cut.project_id AND t.version > cut.old_floor AND t.version <= cut.floor OFFSET 0) c))
  )
  UPDATE tree_versions t SET log_floor = cut.floor FROM cut WHERE t.project_id = cut.project_id;

  RETURN QUERY SELECT u.p, u.base FROM unnest(p_projects, v_bases) AS u(p, base);
END
$fn$;
`;

const ARGUMENTS = `p_points_project INT[], p_points_path TEXT[],
  p_ranges_project INT[], p_ranges_lo TEXT[], p_ranges_hi TEXT[], p_wiped INT[],
  p_ins_project INT[], p_ins_path TEXT[], p_ins_value JSONB[],
  p_ch_project INT[], p_ch_offset BIGINT[], p_ch_seq INT[], p_ch_path TEXT[], p_ch_value JSONB[],
  p_projects INT[], p_counts BIGINT[], p_max_writes BIGINT, p_max_age_ms DOUBLE PRECISION`;

/** The SQLSTATE of `cds_tree_commit_unwatched` refusing a commit of a project with a webhook. */
const WATCHED = 'CDSWH';

/**
 * Migration 20: `cds_tree_commit` for writes that record their events only if their project has a
 * webhook (§16). It reads `webhooks` first (see `watchedProjects` in event-store.ts for why that
 * read is ordered against a webhook's creation) and refuses, writing nothing, when a project has
 * one: the caller then commits through the transaction path, which records the events.
 */
export const TREE_COMMIT_UNWATCHED_FUNCTION = `
CREATE FUNCTION cds_tree_commit_unwatched(${ARGUMENTS})
RETURNS TABLE (locked_project INT, base BIGINT) LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  IF EXISTS (SELECT 1 FROM webhooks w WHERE w.project_id = ANY(p_projects)) THEN
    RAISE EXCEPTION 'a project of the commit has a webhook' USING ERRCODE = '${WATCHED}';
  END IF;
  RETURN QUERY SELECT * FROM cds_tree_commit(p_points_project, p_points_path, p_ranges_project, p_ranges_lo,
    p_ranges_hi, p_wiped, p_ins_project, p_ins_path, p_ins_value, p_ch_project, p_ch_offset, p_ch_seq, p_ch_path,
    p_ch_value, p_projects, p_counts, p_max_writes, p_max_age_ms);
END
$fn$;
`;

const call = (fn: string) => `SELECT locked_project, base FROM ${fn}(
  $1::int[], $2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::int[], $8::text[], $9::jsonb[],
  $10::int[], $11::bigint[], $12::int[], $13::text[], $14::jsonb[], $15::int[], $16::bigint[], $17::bigint, $18::float8)`;
const CALL = call('cds_tree_commit');
const CALL_UNWATCHED = call('cds_tree_commit_unwatched');

/** Whether `error` is `cds_tree_commit_unwatched` refusing a project with a webhook (nothing was written). */
export const isWatchedRefusal = (error: unknown): boolean => (error as { code?: unknown })?.code === WATCHED;

/**
 * Commits `writes` (which read nothing: see `readsNothing`) in one autocommitted statement; with
 * `unwatched`, only if none of their projects has a webhook (else `isWatchedRefusal`).
 */
export async function commitTreeWritesAtOnce(
  pool: Pick<pg.Pool, 'query'>,
  writes: readonly TreeWrite[],
  retention: ChangeLogRetention,
  unwatched = false,
): Promise<TreeWriteOutcome[]> {
  const plan = planTreeBatch(writes);
  const writesOf = new Map(plan.projects.map((project) => [project.projectId, project.writes]));
  // Commits the trim would drop at once are not logged at all.
  const kept = plan.changes.filter(
    (change) => change.offset > (writesOf.get(change.projectId) ?? 0) - retention.maxWrites,
  );
  const { rows } = await pool.query<{ locked_project: number; base: string }>({
    name: unwatched ? 'cds_tree_commit_unwatched' : 'cds_tree_commit',
    text: unwatched ? CALL_UNWATCHED : CALL,
    values: [
      ...leafColumns(plan.projects.map((project) => [project.projectId, project.overlay] as const)),
      kept.map((change) => change.projectId),
      kept.map((change) => change.offset),
      kept.map((change) => change.seq),
      kept.map((change) => change.path),
      kept.map((change) => change.json),
      plan.projects.map((project) => project.projectId),
      plan.projects.map((project) => project.writes),
      retention.maxWrites,
      retention.maxAgeMs,
    ],
  });
  return batchOutcomes(writes, plan, new Map(rows.map((row) => [row.locked_project, Number(row.base)])));
}
