/**
 * The change log of documents on SQLite (§10): one row per document a commit changed, written in
 * the commit's transaction, trimmed there like the tree's log, read by any instance for `since`.
 */
import type Database from 'better-sqlite3';
import type {
  DocumentChangeEntry,
  DocumentCommitRecord,
  DocumentHistory,
} from '../../core/documents/document-store.js';
import type { ChangeLogRetention } from '../../core/realtime/tree-store.js';

const SQL = {
  bumpVersion: `INSERT INTO document_versions (project_id, version, log_floor) VALUES (?, 1, 0)
    ON CONFLICT (project_id) DO UPDATE SET version = version + 1 RETURNING version, log_floor`,
  readVersion: 'SELECT version, log_floor FROM document_versions WHERE project_id = ?',
  setFloor: 'UPDATE document_versions SET log_floor = ? WHERE project_id = ?',
  insertChange: `INSERT INTO document_changes (project_id, version, seq, path, id, data, previous, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  trimChanges: 'DELETE FROM document_changes WHERE project_id = ? AND version > ? AND version <= ?',
  firstFreshChange: `SELECT version FROM document_changes WHERE project_id = ? AND version > ? AND created_at >= ?
    ORDER BY version, seq LIMIT 1`,
  lastChange: 'SELECT max(version) AS version FROM document_changes WHERE project_id = ? AND version > ?',
  changesAfter:
    'SELECT version, path, id, data, previous FROM document_changes WHERE project_id = ? AND version > ? ORDER BY version, seq',
};

interface VersionRow {
  version: number;
  log_floor: number;
}

interface ChangeRow {
  version: number;
  path: string;
  id: string;
  data: string | null;
  previous: string | null;
}

/** A project's part of one group commit: its version and what its writes changed, in order. */
export class CommitLogEntry {
  private seq = 0;
  /** The changes of the writes that succeeded, last change of a path last. */
  readonly changes = new Map<string, DocumentChangeEntry>();

  constructor(
    readonly projectId: number,
    readonly version: number,
  ) {}

  nextSeq(): number {
    return this.seq++;
  }

  /** The commit's record: each changed document once, in the order of its last change. */
  record(): DocumentCommitRecord {
    return { version: this.version, changes: [...this.changes.values()] };
  }
}

/** Statements of the document change log. */
export class SqliteDocumentLog {
  private readonly s: { [K in keyof typeof SQL]: Database.Statement };

  constructor(private readonly db: Database.Database) {
    this.s = Object.fromEntries(Object.entries(SQL).map(([key, sql]) => [key, db.prepare(sql)])) as {
      [K in keyof typeof SQL]: Database.Statement;
    };
  }

  /** Takes the project's next version and trims its log (inside the commit's transaction). */
  bump(projectId: number, retention: ChangeLogRetention, now: number): CommitLogEntry {
    const { version, log_floor } = this.s.bumpVersion.get(projectId) as VersionRow;
    this.trim(projectId, version, log_floor, retention, now);
    return new CommitLogEntry(projectId, version);
  }

  /** Appends one change of the commit (inside its transaction: a refused batch takes it back). */
  append(entry: CommitLogEntry, change: DocumentChangeEntry, now: number): void {
    const data = change.data === null ? null : JSON.stringify(change.data);
    const previous = change.previous === null ? null : JSON.stringify(change.previous);
    this.s.insertChange.run(
      entry.projectId,
      entry.version,
      entry.nextSeq(),
      change.path,
      change.id,
      data,
      previous,
      now,
    );
  }

  currentVersion(projectId: number): number {
    return ((this.s.readVersion.get(projectId) as VersionRow | undefined) ?? { version: 0 }).version;
  }

  changesSince(projectId: number, since: number): DocumentHistory | null {
    return this.db.transaction(() => {
      const { version, log_floor } = (this.s.readVersion.get(projectId) as VersionRow | undefined) ?? {
        version: 0,
        log_floor: 0,
      };
      if (since < log_floor || since > version) return null;
      const commits: DocumentCommitRecord[] = [];
      for (const row of this.s.changesAfter.all(projectId, since) as ChangeRow[]) {
        let last = commits[commits.length - 1];
        if (last?.version !== row.version) {
          last = { version: row.version, changes: [] };
          commits.push(last);
        }
        last.changes.push({
          path: row.path,
          id: row.id,
          data: row.data === null ? null : JSON.parse(row.data),
          previous: row.previous === null ? null : JSON.parse(row.previous),
        });
      }
      return { version, commits };
    })();
  }

  /** Keeps the commits after max(version - maxWrites, last expired one); the floor records what is covered. */
  private trim(projectId: number, version: number, floor: number, retention: ChangeLogRetention, now: number): void {
    // Scans from the oldest entry and stops at the first fresh one: cost follows what is trimmed.
    const fresh = this.s.firstFreshChange.get(projectId, floor, now - retention.maxAgeMs) as
      | { version: number }
      | undefined;
    // None fresh: every entry expired, and the commits after the last one changed nothing (nothing is lost).
    const last = fresh ? null : (this.s.lastChange.get(projectId, floor) as { version: number | null }).version;
    const ageFloor = fresh ? fresh.version - 1 : (last ?? floor);
    const newFloor = Math.max(floor, version - retention.maxWrites, ageFloor);
    if (newFloor <= floor) return;
    this.s.trimChanges.run(projectId, floor, newFloor);
    this.s.setFloor.run(newFloor, projectId);
  }
}
