import type Database from 'better-sqlite3';
import { KEPT_REVISIONS, type RulesRevision, type RulesStore } from '../../core/rules/rules-store.js';
import type { Ruleset } from '../../core/rules/ruleset.js';

interface RevisionRow {
  revision: number;
  rules: string;
  updated_at: number;
}

const toRevision = (row: RevisionRow): RulesRevision => ({
  revision: row.revision,
  rules: JSON.parse(row.rules) as Ruleset,
  updatedAt: row.updated_at,
});

/**
 * Saves `rules` as the project's next revision and drops revisions beyond the kept ones. One
 * INSERT … SELECT max + 1: SQLite has one writer at a time, so the revision is taken atomically.
 * Call it alone or inside a transaction (the import's).
 */
export function saveRulesRevision(
  db: Database.Database,
  projectId: number,
  rules: Ruleset,
  now: number,
): RulesRevision {
  return db.transaction(() => {
    const row = db
      .prepare<[number, string, number, number], RevisionRow>(
        `INSERT INTO rules_revisions (project_id, revision, rules, updated_at)
         SELECT ?, coalesce(max(revision), 0) + 1, ?, ? FROM rules_revisions WHERE project_id = ?
         RETURNING revision, rules, updated_at`,
      )
      .get(projectId, JSON.stringify(rules), now, projectId) as RevisionRow;
    db.prepare('DELETE FROM rules_revisions WHERE project_id = ? AND revision <= ?').run(
      projectId,
      row.revision - KEPT_REVISIONS,
    );
    return toRevision(row);
  })();
}

/** The newest saved ruleset of a project (null when none), for `saveRulesRevision`'s callers and export. */
export function currentRulesRevision(db: Database.Database, projectId: number): RulesRevision | null {
  const row = db
    .prepare<[number], RevisionRow>(
      'SELECT revision, rules, updated_at FROM rules_revisions WHERE project_id = ? ORDER BY revision DESC LIMIT 1',
    )
    .get(projectId);
  return row ? toRevision(row) : null;
}

/** Ruleset revisions in SQLite; each method is one statement (a save, one transaction). */
export class SqliteRulesStore implements RulesStore {
  constructor(private readonly db: Database.Database) {}

  async current(projectId: number): Promise<RulesRevision | null> {
    return currentRulesRevision(this.db, projectId);
  }

  async currentRevision(projectId: number): Promise<number> {
    const row = this.db
      .prepare<[number], { revision: number | null }>(
        'SELECT max(revision) AS revision FROM rules_revisions WHERE project_id = ?',
      )
      .get(projectId);
    return row?.revision ?? 0;
  }

  async save(projectId: number, rules: Ruleset, now: number): Promise<RulesRevision> {
    return saveRulesRevision(this.db, projectId, rules, now);
  }

  async revisions(projectId: number, limit: number): Promise<RulesRevision[]> {
    return this.db
      .prepare<[number, number], RevisionRow>(
        'SELECT revision, rules, updated_at FROM rules_revisions WHERE project_id = ? ORDER BY revision DESC LIMIT ?',
      )
      .all(projectId, limit)
      .map(toRevision);
  }
}
