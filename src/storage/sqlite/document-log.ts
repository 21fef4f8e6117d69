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
import { type ChangeLogRetention, countFloor } from '../../core/realtime/tree-store.js';

const SQL = {
  storeVersion: `INSERT INTO document_versions (project_id, version, log_floor) VALUES (?, ?, 0)
    ON CONFLICT (project_id) DO UPDATE SET version = excluded.version`,
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

export interface VersionRow {
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

/** Statements of the document change log. */
export class SqliteDocumentLog {
  private readonly s: { [K in keyof typeof SQL]: Database.Statement };

  constructor(private readonly db: Database.Database) {
    this.s = Object.fromEntries(Object.entries(SQL).map(([key, sql]) => [key, db.prepare(sql)])) as {
      [K in keyof typeof SQL]: Database.Statement;
    };
  }

  /** The project's version and log floor before a commit (inside its transaction). */
  read(projectId: number): VersionRow {
    return (this.s.readVersion.get(projectId) as VersionRow | undefined) ?? { version: 0, log_floor: 0 };
  }

  /** Appends what one commit changed (inside its transaction: a refused batch takes it back). */
  append(projectId: number, version: number, changes: readonly DocumentChangeEntry[], now: number): void {
    changes.forEach((change, seq) => {
      const data = change.data === null ? null : JSON.stringify(change.data);
      const previous = change.previous === null ? null : JSON.stringify(change.previous);
      this.s.insertChange.run(projectId, version, seq, change.path, change.id, data, previous, now);
    });
  }

  /** Stores the project's version after a group commit's calls and trims its log (inside the transaction). */
  close(projectId: number, before: VersionRow, version: number, retention: ChangeLogRetention, now: number): void {
    this.s.storeVersion.run(projectId, version);
    this.trim(projectId, version, before.log_floor, retention, now);
  }

  currentVersion(projectId: number): number {
    return this.read(projectId).version;
  }

  changesSince(projectId: number, since: number): DocumentHistory | null {
    return this.db.transaction(() => {
      const { version, log_floor } = this.read(projectId);
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
    const newFloor = Math.max(countFloor(version, floor, retention.maxWrites), ageFloor);
    if (newFloor <= floor) return;
    this.s.trimChanges.run(projectId, floor, newFloor);
    this.s.setFloor.run(newFloor, projectId);
  }
}
