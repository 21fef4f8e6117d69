/**
 * Reading the change log of documents on PostgreSQL (§10); `document-commits.ts` writes and
 * trims it inside each commit.
 */
import type pg from 'pg';
import type { DocumentCommitRecord, DocumentHistory } from '../../core/documents/document-store.js';
import type { JsonObject } from '../../core/json.js';

const CURRENT_VERSION = 'SELECT version FROM document_versions WHERE project_id = $1';

// One statement: the version row and the entries after `$2` when the log covers it.
const CHANGES_AFTER = `SELECT v.version AS current, v.log_floor, c.version, c.path, c.id, c.data, c.previous
  FROM document_versions v
  LEFT JOIN document_changes c ON c.project_id = v.project_id AND c.version > $2 AND $2 >= v.log_floor AND $2 <= v.version
  WHERE v.project_id = $1
  ORDER BY c.version, c.seq`;

interface ChangeRow {
  current: string;
  log_floor: string;
  version: string | null;
  path: string | null;
  id: string | null;
  data: JsonObject | null;
  previous: JsonObject | null;
}

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/** The project's current document version: 0 before its first commit. */
export async function currentDocumentVersion(db: Queryable, projectId: number): Promise<number> {
  const { rows } = await db.query<{ version: string }>({
    name: 'cds_documents_current_version',
    text: CURRENT_VERSION,
    values: [projectId],
  });
  return rows[0] ? Number(rows[0].version) : 0;
}

/** The commits after `since`, or null when the log no longer covers them. */
export async function documentChangesSince(
  db: Queryable,
  projectId: number,
  since: number,
): Promise<DocumentHistory | null> {
  const { rows } = await db.query<ChangeRow>({
    name: 'cds_documents_changes_after',
    text: CHANGES_AFTER,
    values: [projectId, since],
  });
  const head = rows[0];
  const version = head ? Number(head.current) : 0;
  const floor = head ? Number(head.log_floor) : 0;
  if (since < floor || since > version) return null;
  const commits: DocumentCommitRecord[] = [];
  for (const row of rows) {
    if (row.version === null || row.path === null || row.id === null) continue;
    const rowVersion = Number(row.version);
    let last = commits[commits.length - 1];
    if (last?.version !== rowVersion) {
      last = { version: rowVersion, changes: [] };
      commits.push(last);
    }
    last.changes.push({ path: row.path, id: row.id, data: row.data, previous: row.previous });
  }
  return { version, commits };
}
