import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { DocumentIndex } from '../../core/documents/indexes.js';
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
import { insertBoard, inTransaction, type Queryable, writeDefinitionParts } from './leaderboard-store.js';
import { currentRulesRevision, saveRulesRevision } from './rules-store.js';
import { writeTreeSets } from './tree-store.js';

interface BoardRow {
  id: number;
  slug: string;
  name: string;
  description: string;
  type: ExportLeaderboard['type'];
  sort: ExportLeaderboard['sort'];
  operator: ExportLeaderboard['operator'];
  reset: ExportLeaderboard['reset'];
  client_submit: boolean;
  stat_min: number | null;
  stat_max: number | null;
}

const iso = (ms: string) => new Date(Number(ms)).toISOString();
// Rows per INSERT of a big import (each a few array parameters).
const CHUNK = 10_000;

/**
 * Export and import of a whole project (§8) on PostgreSQL. Export reads in one REPEATABLE READ
 * transaction (one snapshot); import is one transaction, so a bad item anywhere rolls all of it
 * back. The realtime tree is written like a root PATCH of the tree store: leaves replaced, one
 * new version with one change per top-level key in the change log.
 */
export class PostgresTransferStore implements TransferStore {
  constructor(private readonly pool: pg.Pool) {}

  async exportProject(projectId: number): Promise<ProjectExport> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const documents = await client.query<{ path: string; data: JsonObject }>(
        'SELECT path, data FROM documents WHERE project_id = $1 ORDER BY path',
        [projectId],
      );
      const leaves = await client.query<{ path: string; value: JsonValue }>(
        'SELECT path, value FROM tree_leaves WHERE project_id = $1',
        [projectId],
      );
      const users = await client.query<{
        id: number;
        username: string;
        nickname: string;
        avatar_url: string | null;
        roles: string[];
      }>('SELECT id, username, nickname, avatar_url, roles FROM users WHERE project_id = $1 ORDER BY id', [projectId]);
      const boards = await client.query<BoardRow>(
        `SELECT id, slug, name, description, type, sort, operator, reset, client_submit, stat_min, stat_max
         FROM leaderboards WHERE project_id = $1 ORDER BY slug COLLATE "C"`,
        [projectId],
      );
      const leaderboards: ExportLeaderboard[] = [];
      for (const board of boards.rows) leaderboards.push(await exportBoard(client, board));
      const rules = (await currentRulesRevision(client, projectId))?.rules ?? null;
      const indexes = (await listIndexDeclarations(client, projectId)).map(exportedIndex);
      await client.query('COMMIT');
      return {
        format: 'cds-export',
        version: 1,
        documents: documents.rows,
        realtime: assembleValue(ROOT_PATH, leaves.rows),
        users: users.rows,
        leaderboards,
        rules,
        indexes,
      };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  importProject(
    projectId: number,
    file: ProjectExport,
    tree: TreeSet[],
    rules: Ruleset | null,
    indexes: ImportedIndex[],
    retention: ChangeLogRetention,
    now: number,
  ): Promise<ImportCommit> {
    return inTransaction(this.pool, async (client) => {
      await importUsers(client, projectId, file);
      // One commit of the project's documents (§10); its version row is locked before any document, as every writer does.
      const bumped =
        file.documents.length === 0
          ? null
          : await client.query<{ version: string }>(
              `INSERT INTO document_versions (project_id, version) VALUES ($1, 1)
               ON CONFLICT (project_id) DO UPDATE SET version = document_versions.version + 1 RETURNING version`,
              [projectId],
            );
      for (const [seq, doc] of file.documents.entries()) {
        const { path, parent, collection } = parseDocumentPath(doc.path);
        // The change log (§10) has the commit too, so listeners on every instance catch up with it.
        await client.query(
          `WITH written AS (
             INSERT INTO documents (project_id, path, parent, collection, id, data, version)
             VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)
             ON CONFLICT (project_id, path) DO UPDATE SET data = EXCLUDED.data, version = EXCLUDED.version, updated_at = now()
             RETURNING id, (SELECT o.data FROM documents o WHERE o.project_id = $1 AND o.path = $2) AS previous
           )
           INSERT INTO document_changes (project_id, version, seq, path, id, data, previous)
           SELECT $1, $7, $8, $2, id, $6::jsonb, previous FROM written`,
          [projectId, path, parent, collection, randomUUID(), JSON.stringify(doc.data), bumped?.rows[0]?.version, seq],
        );
      }
      const ids = await client.query<{ id: number }>('SELECT id FROM users WHERE project_id = $1', [projectId]);
      const known = new Set(ids.rows.map((r) => r.id));
      for (const [i, board] of file.leaderboards.entries()) {
        await importBoard(client, projectId, board, `leaderboards[${i}]`, known, now);
      }
      const treeCommit = tree.length > 0 ? await writeTreeSets(client, projectId, tree, retention) : null;
      const revision = rules ? await saveRulesRevision(client, projectId, rules, now) : null;
      const declared: DocumentIndex[] = [];
      for (const { collection, fields } of indexes) {
        const index = await insertIndexDeclaration(client, projectId, collection, fields);
        if (index) declared.push(index);
      }
      return { tree: treeCommit, rules: revision, indexes: declared };
    });
  }
}

async function exportBoard(client: Queryable, board: BoardRow): Promise<ExportLeaderboard> {
  const leagues = await client.query<ExportLeaderboard['leagues'][number]>(
    'SELECT slug, name, ord AS "order", min_stat, promote_top, demote_bottom FROM leaderboard_leagues WHERE leaderboard_id = $1 ORDER BY ord',
    [board.id],
  );
  const rewards = await client.query<{ league: string; rank_from: number; rank_to: number; reward: JsonValue }>(
    'SELECT league, rank_from, rank_to, reward FROM leaderboard_rewards WHERE leaderboard_id = $1 ORDER BY position',
    [board.id],
  );
  const entries = await client.query<{ user_id: number; stat_value: number; league: string; updated_at: string }>(
    'SELECT user_id, stat_value, league, updated_at FROM leaderboard_entries WHERE leaderboard_id = $1 ORDER BY user_id',
    [board.id],
  );
  const assignments = await client.query<{ user_id: number; league: string }>(
    'SELECT user_id, league FROM leaderboard_assignments WHERE leaderboard_id = $1 ORDER BY user_id',
    [board.id],
  );
  const { id: _id, ...fields } = board;
  return {
    ...fields,
    leagues: leagues.rows,
    rewards: rewards.rows,
    entries: entries.rows.map((e) => ({ ...e, updated_at: iso(e.updated_at) })),
    assignments: assignments.rows,
  };
}

async function importUsers(client: Queryable, projectId: number, file: ProjectExport): Promise<void> {
  let maxId = 0;
  for (const [i, user] of file.users.entries()) {
    maxId = Math.max(maxId, user.id);
    const existing = await client.query<{ username: string }>(
      'SELECT username FROM users WHERE project_id = $1 AND id = $2',
      [projectId, user.id],
    );
    const holder = await client.query<{ id: number }>(
      'SELECT id FROM users WHERE project_id = $1 AND lower(username) = lower($2)',
      [projectId, user.username],
    );
    const current = existing.rows[0];
    if (current && current.username.toLowerCase() !== user.username.toLowerCase()) {
      throw badItem(`users[${i}].id`, `user ${user.id} exists with another username ('${current.username}')`);
    }
    const taken = holder.rows[0];
    if (taken && taken.id !== user.id)
      throw badItem(`users[${i}].username`, `'${user.username}' is taken by user ${taken.id}`);
    const roles = JSON.stringify(user.roles);
    if (current) {
      await client.query(
        'UPDATE users SET username = $1, nickname = $2, avatar_url = $3, roles = $4::jsonb WHERE project_id = $5 AND id = $6',
        [user.username, user.nickname, user.avatar_url, roles, projectId, user.id],
      );
    } else {
      await client.query(
        `INSERT INTO users (project_id, id, username, password_hash, nickname, avatar_url, roles, device_id)
         VALUES ($1, $2, $3, NULL, $4, $5, $6::jsonb, NULL)`,
        [projectId, user.id, user.username, user.nickname, user.avatar_url, roles],
      );
    }
  }
  // New sign-ups must not take an imported id.
  await client.query('UPDATE projects SET next_user_id = GREATEST(next_user_id, $1) WHERE id = $2', [
    maxId + 1,
    projectId,
  ]);
}

async function importBoard(
  client: Queryable,
  projectId: number,
  board: ExportLeaderboard,
  at: string,
  known: Set<number>,
  now: number,
): Promise<void> {
  const def = definitionOf(board);
  const found = await client.query<{ id: number; reset: string; period_start: string; period_end: string | null }>(
    'SELECT id, reset, period_start, period_end FROM leaderboards WHERE project_id = $1 AND slug = $2 FOR UPDATE',
    [projectId, board.slug],
  );
  const existing = found.rows[0];
  // A replaced board keeps its period unless its schedule changed; its revision moves so cached ranks are dropped.
  const period =
    existing && existing.reset === board.reset
      ? { start: Number(existing.period_start), end: existing.period_end === null ? null : Number(existing.period_end) }
      : periodContaining(board.reset, now);
  let boardId: number;
  if (existing) {
    boardId = existing.id;
    await client.query(
      `UPDATE leaderboards SET name = $1, description = $2, type = $3, sort = $4, operator = $5, reset = $6, revision = revision + 1,
         period_start = $7, period_end = $8, reset_owner = NULL, reset_lease_until = NULL,
         client_submit = $9, stat_min = $10, stat_max = $11 WHERE id = $12`,
      [
        def.name,
        def.description,
        def.type,
        def.sort,
        def.operator,
        def.reset,
        period.start,
        period.end,
        def.clientSubmit,
        def.statMin,
        def.statMax,
        boardId,
      ],
    );
    await client.query('DELETE FROM leaderboard_entries WHERE leaderboard_id = $1', [boardId]);
    await client.query('DELETE FROM leaderboard_assignments WHERE leaderboard_id = $1', [boardId]);
    await writeDefinitionParts(client, boardId, def);
  } else {
    boardId = (await insertBoard(client, projectId, def, period)) as number;
  }
  board.entries.forEach((e, i) => {
    if (!known.has(e.user_id)) throw badItem(`${at}.entries[${i}].user_id`, `user ${e.user_id} does not exist`);
  });
  board.assignments.forEach((a, i) => {
    if (!known.has(a.user_id)) throw badItem(`${at}.assignments[${i}].user_id`, `user ${a.user_id} does not exist`);
  });
  for (let from = 0; from < board.entries.length; from += CHUNK) {
    const chunk = board.entries.slice(from, from + CHUNK);
    await client.query(
      `INSERT INTO leaderboard_entries (leaderboard_id, user_id, league, stat_value, score, updated_at)
       SELECT $1, * FROM unnest($2::int[], $3::text[], $4::float8[], $5::float8[], $6::bigint[])`,
      [
        boardId,
        chunk.map((e) => e.user_id),
        chunk.map((e) => e.league),
        chunk.map((e) => e.stat_value),
        chunk.map((e) => scoreOf(board.sort, e.stat_value)),
        chunk.map((e) => Date.parse(e.updated_at)),
      ],
    );
  }
  for (let from = 0; from < board.assignments.length; from += CHUNK) {
    const chunk = board.assignments.slice(from, from + CHUNK);
    await client.query(
      'INSERT INTO leaderboard_assignments (leaderboard_id, user_id, league) SELECT $1, * FROM unnest($2::int[], $3::text[])',
      [boardId, chunk.map((a) => a.user_id), chunk.map((a) => a.league)],
    );
  }
}
