import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { periodContaining } from '../../core/leaderboards/period-schedule.js';
import { scoreOf } from '../../core/leaderboards/rank-order.js';
import { parseDocumentPath } from '../../core/paths.js';
import type { ChangeLogRetention, ImportCommit, TransferStore, TreeSet } from '../../core/ports.js';
import { ROOT_PATH } from '../../core/realtime/tree-path.js';
import { assembleValue } from '../../core/realtime/tree-value.js';
import type { Ruleset } from '../../core/rules/ruleset.js';
import {
  badItem,
  definitionOf,
  type ExportLeaderboard,
  exportedIndex,
  type ImportedIndex,
  type ProjectExport,
} from '../../core/transfer/export-format.js';
import { insertIndexDeclaration, listIndexDeclarations } from './index-store.js';
import { insertBoard, writeDefinitionParts } from './leaderboard-store.js';
import { currentRulesRevision, saveRulesRevision } from './rules-store.js';
import type { SqliteTreeStore } from './tree-store.js';

interface BoardRow {
  id: number;
  slug: string;
  name: string;
  description: string;
  type: ExportLeaderboard['type'];
  sort: ExportLeaderboard['sort'];
  operator: ExportLeaderboard['operator'];
  reset: ExportLeaderboard['reset'];
  /** 0 or 1. */
  client_submit: number;
  stat_min: number | null;
  stat_max: number | null;
}

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
  ) {}

  async exportProject(projectId: number): Promise<ProjectExport> {
    return this.db.transaction((): ProjectExport => {
      const documents = this.db
        .prepare<[number], { path: string; data: string }>(
          'SELECT path, json(data) AS data FROM documents WHERE project_id = ? ORDER BY path',
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
        .prepare<[number], BoardRow>(
          `SELECT id, slug, name, description, type, sort, operator, reset, client_submit, stat_min, stat_max
           FROM leaderboards WHERE project_id = ? ORDER BY slug`,
        )
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
      };
    })();
  }

  async importProject(
    projectId: number,
    file: ProjectExport,
    tree: TreeSet[],
    rules: Ruleset | null,
    indexes: ImportedIndex[],
    retention: ChangeLogRetention,
    now: number,
  ): Promise<ImportCommit> {
    return this.db
      .transaction(() => {
        this.importUsers(projectId, file);
        this.importDocuments(projectId, file, now);
        const known = new Set(
          this.db
            .prepare<[number], { id: number }>('SELECT id FROM users WHERE project_id = ?')
            .all(projectId)
            .map((r) => r.id),
        );
        file.leaderboards.forEach((board, i) => {
          this.importBoard(projectId, board, `leaderboards[${i}]`, known, now);
        });
        return {
          tree: tree.length > 0 ? this.tree.commitInTransaction(projectId, tree, retention) : null,
          rules: rules ? saveRulesRevision(this.db, projectId, rules, now) : null,
          indexes: indexes.flatMap(
            ({ collection, fields }) => insertIndexDeclaration(this.db, projectId, collection, fields) ?? [],
          ),
        };
      })
      .immediate();
  }

  private exportBoard(board: BoardRow): ExportLeaderboard {
    const leagues = this.db
      .prepare<
        [number],
        {
          slug: string;
          name: string;
          order: number;
          min_stat: number | null;
          promote_top: number | null;
          demote_bottom: number | null;
        }
      >(
        'SELECT slug, name, ord AS "order", min_stat, promote_top, demote_bottom FROM leaderboard_leagues WHERE leaderboard_id = ? ORDER BY ord',
      )
      .all(board.id);
    const rewards = this.db
      .prepare<[number], { league: string; rank_from: number; rank_to: number; reward: string }>(
        'SELECT league, rank_from, rank_to, reward FROM leaderboard_rewards WHERE leaderboard_id = ? ORDER BY position',
      )
      .all(board.id)
      .map((r) => ({ ...r, reward: JSON.parse(r.reward) as JsonValue }));
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
    const { id: _id, client_submit, ...fields } = board;
    return { ...fields, client_submit: client_submit === 1, leagues, rewards, entries, assignments };
  }

  private importUsers(projectId: number, file: ProjectExport): void {
    const byId = this.db.prepare<[number, number], { username: string }>(
      'SELECT username FROM users WHERE project_id = ? AND id = ?',
    );
    const byName = this.db.prepare<[number, string], { id: number }>(
      'SELECT id FROM users WHERE project_id = ? AND username = ?',
    );
    const update = this.db.prepare(
      'UPDATE users SET username = ?, nickname = ?, avatar_url = ?, roles = ? WHERE project_id = ? AND id = ?',
    );
    const insert = this.db.prepare(
      `INSERT INTO users (project_id, id, username, password_hash, nickname, avatar_url, roles, device_id, created_at)
       VALUES (?, ?, ?, NULL, ?, ?, ?, NULL, ?)`,
    );
    let maxId = 0;
    file.users.forEach((user, i) => {
      maxId = Math.max(maxId, user.id);
      const existing = byId.get(projectId, user.id);
      const holder = byName.get(projectId, user.username);
      if (existing && existing.username.toLowerCase() !== user.username.toLowerCase()) {
        throw badItem(`users[${i}].id`, `user ${user.id} exists with another username ('${existing.username}')`);
      }
      if (holder && holder.id !== user.id)
        throw badItem(`users[${i}].username`, `'${user.username}' is taken by user ${holder.id}`);
      const roles = JSON.stringify(user.roles);
      if (existing) update.run(user.username, user.nickname, user.avatar_url, roles, projectId, user.id);
      else insert.run(projectId, user.id, user.username, user.nickname, user.avatar_url, roles, Date.now());
    });
    // New sign-ups must not take an imported id.
    this.db.prepare('UPDATE projects SET next_user_id = max(next_user_id, ?) WHERE id = ?').run(maxId + 1, projectId);
  }

  /** The documents as one commit of the project's documents: one new version for all of them (§10). */
  private importDocuments(projectId: number, file: ProjectExport, now: number): void {
    if (file.documents.length === 0) return;
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
      .prepare<[number, string], string>('SELECT json(data) FROM documents WHERE project_id = ? AND path = ?')
      .pluck();
    for (const [seq, doc] of file.documents.entries()) {
      const { path, parent, collection } = parseDocumentPath(doc.path);
      const data = JSON.stringify(doc.data);
      const previous = before.get(projectId, path) ?? null;
      const { id } = upsert.get(projectId, path, parent, collection, randomUUID(), data, now, now, version) as {
        id: string;
      };
      log.run(projectId, version, seq, path, id, data, previous, now);
    }
  }

  private importBoard(projectId: number, board: ExportLeaderboard, at: string, known: Set<number>, now: number): void {
    const def = definitionOf(board);
    const existing = this.db
      .prepare<[number, string], { id: number; reset: string; period_start: number; period_end: number | null }>(
        'SELECT id, reset, period_start, period_end FROM leaderboards WHERE project_id = ? AND slug = ?',
      )
      .get(projectId, board.slug);
    // A replaced board keeps its period unless its schedule changed; its revision moves so cached ranks are dropped.
    const period =
      existing && existing.reset === board.reset
        ? { start: existing.period_start, end: existing.period_end }
        : periodContaining(board.reset, now);
    let boardId: number;
    if (existing) {
      boardId = existing.id;
      this.db
        .prepare(
          `UPDATE leaderboards SET name = ?, description = ?, type = ?, sort = ?, operator = ?, reset = ?, revision = revision + 1,
             period_start = ?, period_end = ?, reset_owner = NULL, reset_lease_until = NULL,
             client_submit = ?, stat_min = ?, stat_max = ? WHERE id = ?`,
        )
        .run(
          def.name,
          def.description,
          def.type,
          def.sort,
          def.operator,
          def.reset,
          period.start,
          period.end,
          def.clientSubmit ? 1 : 0,
          def.statMin,
          def.statMax,
          boardId,
        );
      this.db.prepare('DELETE FROM leaderboard_entries WHERE leaderboard_id = ?').run(boardId);
      this.db.prepare('DELETE FROM leaderboard_assignments WHERE leaderboard_id = ?').run(boardId);
      writeDefinitionParts(this.db, boardId, def);
    } else {
      boardId = insertBoard(this.db, projectId, def, period, now);
    }
    const entry = this.db.prepare(
      'INSERT INTO leaderboard_entries (leaderboard_id, user_id, league, stat_value, score, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    board.entries.forEach((e, i) => {
      if (!known.has(e.user_id)) throw badItem(`${at}.entries[${i}].user_id`, `user ${e.user_id} does not exist`);
      entry.run(
        boardId,
        e.user_id,
        e.league,
        e.stat_value,
        scoreOf(board.sort, e.stat_value),
        Date.parse(e.updated_at),
      );
    });
    const assignment = this.db.prepare(
      'INSERT INTO leaderboard_assignments (leaderboard_id, user_id, league) VALUES (?, ?, ?)',
    );
    board.assignments.forEach((a, i) => {
      if (!known.has(a.user_id)) throw badItem(`${at}.assignments[${i}].user_id`, `user ${a.user_id} does not exist`);
      assignment.run(boardId, a.user_id, a.league);
    });
  }
}
