import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { DocumentChangeEntry, DocumentCommitRecord } from '../../core/documents/document-store.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { boardRecord } from '../../core/leaderboards/board-record.js';
import type { ResetSchedule } from '../../core/leaderboards/leaderboard-model.js';
import { ROOT_PATH } from '../../core/realtime/tree-path.js';
import { assembleValue } from '../../core/realtime/tree-value.js';
import type { ExportLeaderboard, ProjectExport } from '../../core/transfer/export-format.js';
import { exportedIndex } from '../../core/transfer/export-format.js';
import type { ImportBoardRows, ImportFound, ImportLookup, ImportRows } from '../../core/transfer/import-plan.js';
import type { ImportCommit, ImportRequest, TransferStore } from '../../core/transfer/transfer-store.js';
import { exportedWebhook } from '../../core/transfer/webhook-transfer.js';
import type { SqliteEventStore } from './event-store.js';
import { insertIndexDeclaration, listIndexDeclarations } from './index-store.js';
import { insertBoard, readBoard, replaceBoard, SELECT_BOARD, type SqliteBoardRow } from './leaderboard-rows.js';
import { currentRulesRevision, saveRulesRevision } from './rules-store.js';
import type { SqliteTreeStore } from './tree-store.js';
import { listWebhooks, writeImportedWebhooks } from './webhook-store.js';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Export and import of a whole project (§8) on SQLite. Export reads in one transaction (one
 * snapshot); import is one immediate transaction, so a bad item anywhere rolls all of it back.
 * The realtime tree is written like a root PATCH of the tree store: leaves replaced, one new
 * version with one change per top-level key in the change log.
 */
export class SqliteTransferStore implements TransferStore {
  constructor(
    private readonly db: Database.Database,
    private readonly tree: SqliteTreeStore,
    private readonly events: SqliteEventStore,
  ) {}

  async exportProject(projectId: number): Promise<ProjectExport> {
    return this.db.transaction((): ProjectExport => {
      const documents = this.db
        .prepare<[number], { path: string; data: string }>(
          'SELECT path, json(data) AS data FROM documents INDEXED BY documents_by_path WHERE project_id = ? ORDER BY path',
        )
        .all(projectId)
        .map((row) => ({ path: row.path, data: JSON.parse(row.data) as JsonObject }));
      const leaves = this.db
        .prepare<[number], { path: string; value: string }>('SELECT path, value FROM tree_leaves WHERE project_id = ?')
        .all(projectId)
        .map((row) => ({ path: row.path, value: JSON.parse(row.value) as JsonValue }));
      const users = this.db
        .prepare<
          [number],
          { id: number; username: string; nickname: string; avatar_url: string | null; roles: string }
        >('SELECT id, username, nickname, avatar_url, roles FROM users WHERE project_id = ? ORDER BY id')
        .all(projectId)
        .map((row) => ({ ...row, roles: JSON.parse(row.roles) as string[] }));
      const boards = this.db
        .prepare<[number], SqliteBoardRow>(`${SELECT_BOARD} WHERE project_id = ? ORDER BY slug`)
        .all(projectId);
      return {
        format: 'cds-export',
        version: 1,
        documents,
        realtime: assembleValue(ROOT_PATH, leaves),
        users,
        leaderboards: boards.map((board) => this.exportBoard(board)),
        rules: currentRulesRevision(this.db, projectId)?.rules ?? null,
        indexes: listIndexDeclarations(this.db, projectId).map(exportedIndex),
        webhooks: listWebhooks(this.db, projectId).map((webhook) => exportedWebhook(webhook, true)),
      };
    })();
  }

  async importProject(projectId: number, request: ImportRequest): Promise<ImportCommit> {
    const commit = this.db
      .transaction(() => {
        const rows = request.plan(this.find(projectId, request.lookup));
        this.writeUsers(projectId, rows);
        const documents = this.writeDocuments(projectId, rows);
        for (const board of rows.boards) this.writeBoard(projectId, board, rows.now);
        const tree =
          request.tree.length > 0 ? this.tree.commitInTransaction(projectId, request.tree, request.retention) : null;
        if (request.events) this.events.record(request.events({ documents, tree }));
        return {
          webhooks: writeImportedWebhooks(this.db, projectId, rows.webhooks, rows.now),
          documents,
          tree,
          rules: request.rules ? saveRulesRevision(this.db, projectId, request.rules, request.now) : null,
          indexes: request.indexes.flatMap((imported) => insertIndexDeclaration(this.db, projectId, imported) ?? []),
        };
      })
      .immediate();
    // The import's pages are all in the WAL: copy them back now and empty the file, rather than
    // leave every later read searching them until a checkpoint during ordinary writes catches up.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return commit;
  }

  private exportBoard(row: SqliteBoardRow): ExportLeaderboard {
    const board = readBoard(this.db, row);
    const entries = this.db
      .prepare<[number], { user_id: number; stat_value: number; league: string; updated_at: number }>(
        'SELECT user_id, stat_value, league, updated_at FROM leaderboard_entries WHERE leaderboard_id = ? ORDER BY user_id',
      )
      .all(board.id)
      .map((e) => ({ user_id: e.user_id, stat_value: e.stat_value, league: e.league, updated_at: iso(e.updated_at) }));
    const assignments = this.db
      .prepare<[number], { user_id: number; league: string }>(
        'SELECT user_id, league FROM leaderboard_assignments WHERE leaderboard_id = ? ORDER BY user_id',
      )
      .all(board.id);
    return { ...boardRecord(board), entries, assignments };
  }

  private find(projectId: number, lookup: ImportLookup): ImportFound {
    const users = this.db
      .prepare<{ project: number; ids: string; names: string }, { id: number; username: string }>(
        // The username column is COLLATE NOCASE: the second half matches case-insensitively on its index.
        `SELECT id, username FROM users WHERE project_id = @project AND id IN (SELECT value FROM json_each(@ids))
         UNION SELECT id, username FROM users WHERE project_id = @project AND username IN (SELECT value FROM json_each(@names))`,
      )
      .all({ project: projectId, ids: JSON.stringify(lookup.userIds), names: JSON.stringify(lookup.usernames) });
    const boards = this.db
      .prepare<
        [number, string],
        { id: number; slug: string; reset: ResetSchedule; period_start: number; period_end: number | null }
      >(
        `SELECT id, slug, reset, period_start, period_end FROM leaderboards
         WHERE project_id = ? AND slug IN (SELECT value FROM json_each(?))`,
      )
      .all(projectId, JSON.stringify(lookup.boardSlugs))
      .map(({ period_start, period_end, ...board }) => ({
        ...board,
        period: { start: period_start, end: period_end },
      }));
    return { users, boards, webhooks: listWebhooks(this.db, projectId) };
  }

  private writeUsers(projectId: number, rows: ImportRows): void {
    const update = this.db.prepare(
      'UPDATE users SET username = ?, nickname = ?, avatar_url = ?, roles = ? WHERE project_id = ? AND id = ?',
    );
    const insert = this.db.prepare(
      `INSERT INTO users (project_id, id, username, password_hash, nickname, avatar_url, roles, device_id, created_at)
       VALUES (?, ?, ?, NULL, ?, ?, ?, NULL, ?)`,
    );
    for (const user of rows.users) {
      const roles = JSON.stringify(user.roles);
      if (user.exists) update.run(user.username, user.nickname, user.avatarUrl, roles, projectId, user.id);
      else insert.run(projectId, user.id, user.username, user.nickname, user.avatarUrl, roles, rows.now);
    }
    this.db
      .prepare('UPDATE projects SET next_user_id = max(next_user_id, ?) WHERE id = ?')
      .run(rows.nextUserId, projectId);
  }

  /** The documents as one commit of the project's documents: one new version for all of them (§10). */
  private writeDocuments(projectId: number, rows: ImportRows): DocumentCommitRecord | null {
    if (rows.documents.length === 0) return null;
    const { version } = this.db
      .prepare<[number], { version: number }>(
        `INSERT INTO document_versions (project_id, version) VALUES (?, 1)
         ON CONFLICT (project_id) DO UPDATE SET version = version + 1 RETURNING version`,
      )
      .get(projectId) as { version: number };
    const upsert = this.db.prepare(
      `INSERT INTO documents (project_id, path, parent, collection, id, data, created_at, updated_at, version)
       VALUES (?, ?, ?, ?, ?, jsonb(?), ?, ?, ?)
       ON CONFLICT (project_id, path) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at,
         version = excluded.version RETURNING id`,
    );
    // The change log (§10) has the commit too, so listeners on every instance catch up with it.
    const log = this.db.prepare(
      `INSERT INTO document_changes (project_id, version, seq, path, id, data, previous, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const before = this.db
      .prepare<[number, string], string>(
        'SELECT json(data) FROM documents INDEXED BY documents_by_path WHERE project_id = ? AND path = ?',
      )
      .pluck();
    const changes: DocumentChangeEntry[] = [];
    for (const [seq, doc] of rows.documents.entries()) {
      const { path, parent, collection } = doc;
      const data = JSON.stringify(doc.data);
      const previous = before.get(projectId, path) ?? null;
      const written = upsert.get(projectId, path, parent, collection, randomUUID(), data, rows.now, rows.now, version);
      const { id } = written as { id: string };
      log.run(projectId, version, seq, path, id, data, previous, rows.now);
      changes.push({ path, id, data: doc.data, previous: previous === null ? null : JSON.parse(previous) });
    }
    return { version, changes };
  }

  private writeBoard(projectId: number, board: ImportBoardRows, now: number): void {
    const { definition: def, period } = board;
    const boardId = board.existingId ?? insertBoard(this.db, projectId, def, period, now);
    if (board.existingId !== null) replaceBoard(this.db, boardId, def, period);
    const entry = this.db.prepare(
      'INSERT INTO leaderboard_entries (leaderboard_id, user_id, league, stat_value, score, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const e of board.entries) entry.run(boardId, e.userId, e.league, e.statValue, e.score, e.updatedAt);
    const assignment = this.db.prepare(
      'INSERT INTO leaderboard_assignments (leaderboard_id, user_id, league) VALUES (?, ?, ?)',
    );
    for (const a of board.assignments) assignment.run(boardId, a.userId, a.league);
  }
}
