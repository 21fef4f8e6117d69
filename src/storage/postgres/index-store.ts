import type pg from 'pg';
import type { IndexStore } from '../../core/documents/index-store.js';
import type { DocumentIndex, IndexField, IndexState } from '../../core/documents/indexes.js';
import { type IndexRow, indexRows } from '../rows.js';
import { createIndexSql, postgresIndexName } from './index-sql.js';
import type { Queryable } from './transactions.js';

/** Records a declaration in state `building` (in the caller's transaction, if any); null when it exists. */
export async function insertIndexDeclaration(
  client: Queryable,
  projectId: number,
  declared: Pick<DocumentIndex, 'collection' | 'fields'>,
): Promise<DocumentIndex | null> {
  const { rows } = await client.query<IndexRow>(
    `INSERT INTO document_indexes (project_id, collection, fields, signature, state)
     VALUES ($1, $2, $3, $4, 'building') ON CONFLICT DO NOTHING RETURNING ${indexRows.columns}`,
    indexRows.newValues(projectId, declared),
  );
  return rows[0] ? indexRows.of(rows[0]) : null;
}

/** The project's declarations, by id. */
export async function listIndexDeclarations(client: Queryable, projectId: number): Promise<DocumentIndex[]> {
  const { rows } = await client.query<IndexRow>(
    `SELECT ${indexRows.columns} FROM document_indexes WHERE project_id = $1 ORDER BY id`,
    [projectId],
  );
  return rows.map(indexRows.of);
}

/** Advisory lock keys (two-int form), per schema: the claim of one declaration, the turn to build. */
const CLAIM_KEY = "hashtext(current_schema() || '/cds_index_claim')";
const TURN_KEY = "hashtext(current_schema() || '/cds_index_build')";

/**
 * Waits until no other connection builds an index of `documents`: two concurrent builds of
 * partial expression indexes on one table wait for each other's snapshots and one fails as a
 * deadlock. Polled, because a statement blocked on the lock would hold a snapshot the build waits for.
 */
async function takeBuildTurn(client: pg.PoolClient): Promise<void> {
  for (;;) {
    const turn = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${TURN_KEY}, 0) AS ok`);
    if (turn.rows[0]?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Declared indexes in PostgreSQL. A build is `CREATE INDEX CONCURRENTLY`: reads and writes of
 * the table go on while it runs (it waits for transactions older than itself, never the other
 * way round), then `ANALYZE` gives the planner the new expressions' statistics. A builder
 * holds an advisory lock on its declaration for the build's duration, so an instance that dies
 * mid-build leaves a declaration in `building` that another (or the restarted) instance can
 * claim and build again; builds of the table take turns, across instances.
 */
export class PostgresIndexStore implements IndexStore {
  constructor(private readonly pool: pg.Pool) {}

  async create(projectId: number, collection: string, fields: IndexField[]): Promise<DocumentIndex | null> {
    return insertIndexDeclaration(this.pool, projectId, { collection, fields });
  }

  async list(projectId: number): Promise<DocumentIndex[]> {
    return listIndexDeclarations(this.pool, projectId);
  }

  async building(): Promise<DocumentIndex[]> {
    const { rows } = await this.pool.query<IndexRow>(
      `SELECT ${indexRows.columns} FROM document_indexes WHERE state = 'building' ORDER BY id`,
    );
    return rows.map(indexRows.of);
  }

  async build(index: DocumentIndex): Promise<IndexState | null> {
    const client = await this.pool.connect();
    let claimed = false;
    try {
      // Session locks: released when this connection ends, so a builder that died leaves its claim free.
      const claim = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${CLAIM_KEY}, $1) AS ok`, [
        index.id,
      ]);
      claimed = claim.rows[0]?.ok === true;
      if (!claimed) return 'building';
      await takeBuildTurn(client);
      return await this.buildClaimed(client, index);
    } finally {
      // Once it holds locks, ended rather than returned to the pool: they end with it, whatever happened.
      client.release(claimed);
    }
  }

  /** Builds a declaration this connection has claimed, starting over from what a dead builder left. */
  private async buildClaimed(client: pg.PoolClient, index: DocumentIndex): Promise<IndexState | null> {
    const name = postgresIndexName(index.id);
    const current = await client.query<{ state: IndexState }>('SELECT state FROM document_indexes WHERE id = $1', [
      index.id,
    ]);
    const state = current.rows[0]?.state ?? null;
    if (state !== 'building') return state;
    try {
      // A builder that died mid-way leaves an invalid index of this name behind.
      await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      await client.query(createIndexSql(index));
      await client.query('ANALYZE documents');
      const { rowCount } = await client.query(
        "UPDATE document_indexes SET state = 'ready' WHERE id = $1 AND state = 'building'",
        [index.id],
      );
      if (rowCount !== 0) return 'ready';
      // Dropped while it was being built: the drop could not remove what did not exist yet.
      await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      return null;
    } catch (error) {
      // A failed concurrent build leaves an invalid index behind.
      await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`).catch(() => undefined);
      await client.query("UPDATE document_indexes SET state = 'failed' WHERE id = $1", [index.id]);
      throw error;
    }
  }

  async drop(projectId: number, id: number): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM document_indexes WHERE project_id = $1 AND id = $2', [
      projectId,
      id,
    ]);
    if (!rowCount) return false;
    await this.pool.query(`DROP INDEX CONCURRENTLY IF EXISTS ${postgresIndexName(id)}`);
    return true;
  }
}
