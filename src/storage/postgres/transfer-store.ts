import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { DocumentChangeEntry, DocumentCommitRecord } from '../../core/documents/document-store.js';
import type { DocumentIndex } from '../../core/documents/indexes.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { boardRecord } from '../../core/leaderboards/board-record.js';
import type { Leaderboard, ResetSchedule } from '../../core/leaderboards/leaderboard-model.js';
import { ROOT_PATH } from '../../core/realtime/tree-path.js';
import { assembleValue } from '../../core/realtime/tree-value.js';
import type { ExportLeaderboard, ProjectExport } from '../../core/transfer/export-format.js';
import { exportedIndex } from '../../core/transfer/export-format.js';
import type { ImportBoardRows, ImportFound, ImportLookup, ImportRows } from '../../core/transfer/import-plan.js';
import type { ImportCommit, ImportRequest, TransferStore } from '../../core/transfer/transfer-store.js';
import { exportedWebhook } from '../../core/transfer/webhook-transfer.js';
import { columnsOf } from './columns-of.js';
import { recordCommitEvents } from './event-store.js';
import { insertIndexDeclaration, listIndexDeclarations } from './index-store.js';
import { insertBoard, type PostgresBoardRow, replaceBoard, SELECT_BOARD, toBoard } from './leaderboard-rows.js';
import { currentRulesRevision, saveRulesRevision } from './rules-store.js';
import { inTransaction, type Queryable, READ_SNAPSHOT } from './transactions.js';
import { writeTreeSets } from './tree-store.js';
import { listWebhooks, writeImportedWebhooks } from './webhook-store.js';

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
      await client.query(READ_SNAPSHOT);
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
      const boards = await client.query<PostgresBoardRow>(
        `${SELECT_BOARD} WHERE b.project_id = $1 ORDER BY b.slug COLLATE "C"`,
        [projectId],
      );
      const leaderboards: ExportLeaderboard[] = [];
      for (const row of boards.rows) leaderboards.push(await exportBoard(client, toBoard(row)));
      const rules = (await currentRulesRevision(client, projectId))?.rules ?? null;
      const indexes = (await listIndexDeclarations(client, projectId)).map(exportedIndex);
      const webhooks = (await listWebhooks(client, projectId)).map((webhook) => exportedWebhook(webhook, true));
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
        webhooks,
      };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  importProject(projectId: number, request: ImportRequest): Promise<ImportCommit> {
    return inTransaction(this.pool, async (client) => {
      const rows = request.plan(await find(client, projectId, request.lookup));
      await writeUsers(client, projectId, rows);
      const documents = await writeDocuments(client, projectId, rows);
      for (const board of rows.boards) await writeBoard(client, projectId, board);
      const webhooks = await writeImportedWebhooks(client, projectId, rows.webhooks, rows.now);
      const { tree, retention, rules, now } = request;
      const declared: DocumentIndex[] = [];
      for (const imported of request.indexes) {
        const index = await insertIndexDeclaration(client, projectId, imported);
        if (index) declared.push(index);
      }
      const treeCommit = tree.length > 0 ? await writeTreeSets(client, projectId, tree, retention) : null;
      if (request.events) await recordCommitEvents(client, request.events({ documents, tree: treeCommit }));
      return {
        documents,
        tree: treeCommit,
        rules: rules ? await saveRulesRevision(client, projectId, rules, now) : null,
        indexes: declared,
        webhooks,
      };
    });
  }
}

async function exportBoard(client: Queryable, board: Leaderboard): Promise<ExportLeaderboard> {
  const entries = await client.query<{ user_id: number; stat_value: number; league: string; updated_at: string }>(
    'SELECT user_id, stat_value, league, updated_at FROM leaderboard_entries WHERE leaderboard_id = $1 ORDER BY user_id',
    [board.id],
  );
  const assignments = await client.query<{ user_id: number; league: string }>(
    'SELECT user_id, league FROM leaderboard_assignments WHERE leaderboard_id = $1 ORDER BY user_id',
    [board.id],
  );
  return {
    ...boardRecord(board),
    entries: entries.rows.map((e) => ({ ...e, updated_at: iso(e.updated_at) })),
    assignments: assignments.rows,
  };
}

/** What the import's lookup names, the boards locked for the replacement. */
async function find(client: Queryable, projectId: number, lookup: ImportLookup): Promise<ImportFound> {
  const users = await client.query<{ id: number; username: string }>(
    'SELECT id, username FROM users WHERE project_id = $1 AND (id = ANY($2::int[]) OR lower(username) = ANY($3::text[]))',
    [projectId, lookup.userIds, lookup.usernames],
  );
  const boards = await client.query<{
    id: number;
    slug: string;
    reset: ResetSchedule;
    period_start: string;
    period_end: string | null;
  }>(
    `SELECT id, slug, reset, period_start, period_end FROM leaderboards
     WHERE project_id = $1 AND slug = ANY($2::text[]) ORDER BY id FOR UPDATE`,
    [projectId, lookup.boardSlugs],
  );
  return {
    users: users.rows,
    webhooks: await listWebhooks(client, projectId, true),
    boards: boards.rows.map(({ period_start, period_end, ...board }) => ({
      ...board,
      period: { start: Number(period_start), end: period_end === null ? null : Number(period_end) },
    })),
  };
}

async function writeUsers(client: Queryable, projectId: number, rows: ImportRows): Promise<void> {
  for (const user of rows.users) {
    const roles = JSON.stringify(user.roles);
    if (user.exists) {
      await client.query(
        'UPDATE users SET username = $1, nickname = $2, avatar_url = $3, roles = $4::jsonb WHERE project_id = $5 AND id = $6',
        [user.username, user.nickname, user.avatarUrl, roles, projectId, user.id],
      );
    } else {
      await client.query(
        `INSERT INTO users (project_id, id, username, password_hash, nickname, avatar_url, roles, device_id, created_at)
         VALUES ($1, $2, $3, NULL, $4, $5, $6::jsonb, NULL, to_timestamp($7::float8 / 1000))`,
        [projectId, user.id, user.username, user.nickname, user.avatarUrl, roles, rows.now],
      );
    }
  }
  await client.query('UPDATE projects SET next_user_id = GREATEST(next_user_id, $1) WHERE id = $2', [
    rows.nextUserId,
    projectId,
  ]);
}

/** One commit of the project's documents (§10); its version row is locked before any document, as every writer does. */
async function writeDocuments(
  client: Queryable,
  projectId: number,
  rows: ImportRows,
): Promise<DocumentCommitRecord | null> {
  if (rows.documents.length === 0) return null;
  const bumped = await client.query<{ version: string }>(
    `INSERT INTO document_versions (project_id, version) VALUES ($1, 1)
     ON CONFLICT (project_id) DO UPDATE SET version = document_versions.version + 1 RETURNING version`,
    [projectId],
  );
  const version = Number(bumped.rows[0]?.version);
  const changes: DocumentChangeEntry[] = [];
  // The change log (§10) has the commit too, so listeners on every instance catch up with it.
  for (const [seq, doc] of rows.documents.entries()) {
    const logged = await client.query<{ id: string; previous: JsonObject | null }>(
      `WITH written AS (
         INSERT INTO documents (project_id, path, parent, collection, id, data, version, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, to_timestamp($8::float8 / 1000), to_timestamp($8::float8 / 1000))
         ON CONFLICT (project_id, path) DO UPDATE SET data = EXCLUDED.data, version = EXCLUDED.version,
           updated_at = EXCLUDED.updated_at
         RETURNING id, (SELECT o.data FROM documents o WHERE o.project_id = $1 AND o.path = $2) AS previous
       )
       INSERT INTO document_changes (project_id, version, seq, path, id, data, previous)
       SELECT $1, $7, $9, $2, id, $6::jsonb, previous FROM written
       RETURNING id, previous`,
      [projectId, doc.path, doc.parent, doc.collection, randomUUID(), JSON.stringify(doc.data), version, rows.now, seq],
    );
    const { id, previous } = logged.rows[0] as { id: string; previous: JsonObject | null };
    changes.push({ path: doc.path, id, data: doc.data, previous });
  }
  return { version, changes };
}

async function writeBoard(client: Queryable, projectId: number, board: ImportBoardRows): Promise<void> {
  const { definition: def, period } = board;
  const boardId = board.existingId ?? ((await insertBoard(client, projectId, def, period)) as number);
  if (board.existingId !== null) await replaceBoard(client, boardId, def, period);
  for (let from = 0; from < board.entries.length; from += CHUNK) {
    const chunk = board.entries.slice(from, from + CHUNK);
    await client.query(
      `INSERT INTO leaderboard_entries (leaderboard_id, user_id, league, stat_value, score, updated_at)
       SELECT $1, * FROM unnest($2::int[], $3::text[], $4::float8[], $5::float8[], $6::bigint[])`,
      [boardId, ...columnsOf(chunk, 'userId', 'league', 'statValue', 'score', 'updatedAt')],
    );
  }
  for (let from = 0; from < board.assignments.length; from += CHUNK) {
    const chunk = board.assignments.slice(from, from + CHUNK);
    await client.query(
      'INSERT INTO leaderboard_assignments (leaderboard_id, user_id, league) SELECT $1, * FROM unnest($2::int[], $3::text[])',
      [boardId, ...columnsOf(chunk, 'userId', 'league')],
    );
  }
}
