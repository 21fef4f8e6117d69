import type pg from 'pg';
import { KEPT_REVISIONS, type RulesRevision, type RulesStore } from '../../core/rules/rules-store.js';
import type { Ruleset } from '../../core/rules/ruleset.js';
import { inTransaction, type Queryable } from './transactions.js';

interface RevisionRow {
  revision: number;
  rules: Ruleset;
  /** BIGINT epoch milliseconds arrive as a string. */
  updated_at: string;
}

const toRevision = (row: RevisionRow): RulesRevision => ({
  revision: row.revision,
  rules: row.rules,
  updatedAt: Number(row.updated_at),
});

// The first key of the two-key advisory locks that serialize a project's rules saves (the second is the project id).
const RULES_LOCK_SPACE = 7_317_009;

/**
 * Saves `rules` as the project's next revision inside the caller's transaction. A transaction
 * advisory lock per project serializes the saves of every instance, so `max + 1` read after
 * taking it is free until this transaction ends; revisions beyond the kept ones are dropped.
 */
export async function saveRulesRevision(
  client: Queryable,
  projectId: number,
  rules: Ruleset,
  now: number,
): Promise<RulesRevision> {
  await client.query('SELECT pg_advisory_xact_lock($1, $2)', [RULES_LOCK_SPACE, projectId]);
  const { rows } = await client.query<RevisionRow>(
    `INSERT INTO rules_revisions (project_id, revision, rules, updated_at)
     SELECT $1, coalesce(max(revision), 0) + 1, $2::json, $3 FROM rules_revisions WHERE project_id = $1
     RETURNING revision, rules, updated_at`,
    [projectId, JSON.stringify(rules), now],
  );
  const saved = toRevision(rows[0] as RevisionRow);
  await client.query('DELETE FROM rules_revisions WHERE project_id = $1 AND revision <= $2', [
    projectId,
    saved.revision - KEPT_REVISIONS,
  ]);
  return saved;
}

/** The newest saved ruleset of a project (null when none). */
export async function currentRulesRevision(client: Queryable, projectId: number): Promise<RulesRevision | null> {
  const { rows } = await client.query<RevisionRow>(
    'SELECT revision, rules, updated_at FROM rules_revisions WHERE project_id = $1 ORDER BY revision DESC LIMIT 1',
    [projectId],
  );
  return rows[0] ? toRevision(rows[0]) : null;
}

/** Ruleset revisions in PostgreSQL; reads are one statement, a save one transaction. */
export class PostgresRulesStore implements RulesStore {
  constructor(private readonly pool: pg.Pool) {}

  current(projectId: number): Promise<RulesRevision | null> {
    return currentRulesRevision(this.pool, projectId);
  }

  async currentRevision(projectId: number): Promise<number> {
    const { rows } = await this.pool.query<{ revision: number | null }>(
      'SELECT max(revision) AS revision FROM rules_revisions WHERE project_id = $1',
      [projectId],
    );
    return rows[0]?.revision ?? 0;
  }

  save(projectId: number, rules: Ruleset, now: number): Promise<RulesRevision> {
    return inTransaction(this.pool, (client) => saveRulesRevision(client, projectId, rules, now));
  }

  async revisions(projectId: number, limit: number): Promise<RulesRevision[]> {
    const { rows } = await this.pool.query<RevisionRow>(
      'SELECT revision, rules, updated_at FROM rules_revisions WHERE project_id = $1 ORDER BY revision DESC LIMIT $2',
      [projectId, limit],
    );
    return rows.map(toRevision);
  }
}
