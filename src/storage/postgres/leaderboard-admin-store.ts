import type pg from 'pg';
import { boardRows } from '../../core/leaderboards/board-record.js';
import type { LeaderboardDefinition } from '../../core/leaderboards/leaderboard-model.js';
import type { LeaderboardAdminStore, ResetLease } from '../../core/leaderboards/leaderboard-store.js';
import type { ListingRewrite } from '../../core/leaderboards/listing-rewrite.js';
import { params, writeDefinitionParts } from './leaderboard-rows.js';
import { runListingRewrite } from './listing-rewrite.js';
import { inTransaction } from './transactions.js';

/** The admin API's board edits on PostgreSQL, each one transaction or one statement. */
export class PostgresLeaderboardAdminStore implements LeaderboardAdminStore {
  constructor(private readonly pool: pg.Pool) {}

  async listSlugs(projectId: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ slug: string }>(
      'SELECT slug FROM leaderboards WHERE project_id = $1 ORDER BY slug COLLATE "C"',
      [projectId],
    );
    return rows.map((row) => row.slug);
  }

  redefine(boardId: number, def: LeaderboardDefinition, rehome: ListingRewrite): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      // FOR UPDATE waits for submissions in flight (they hold KEY SHARE) and holds off new ones.
      const locked = await client.query('SELECT 1 FROM leaderboards WHERE id = $1 FOR UPDATE', [boardId]);
      if (locked.rowCount === 0) return false;
      const { editable } = boardRows;
      await client.query(
        `UPDATE leaderboards SET (${editable.join(', ')}) = (${params(editable.length)}), revision = revision + 1
         WHERE id = $${editable.length + 1}`,
        [...boardRows.editValues(def), boardId],
      );
      await writeDefinitionParts(client, boardId, def);
      await runListingRewrite(client, boardId, rehome, null);
      return true;
    });
  }

  async beginResetNow(boardId: number, periodStart: number, { owner, now, until }: ResetLease): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE leaderboards SET reset_owner = $1, reset_lease_until = $2,
         period_end = CASE WHEN period_end IS NOT NULL AND period_end <= $3 THEN period_end ELSE $3 END
       WHERE id = $4 AND period_start = $5 AND (reset_lease_until IS NULL OR reset_lease_until <= $3)`,
      [owner, until, now, boardId, periodStart],
    );
    return result.rowCount === 1;
  }
}
