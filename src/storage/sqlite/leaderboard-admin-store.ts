import type Database from 'better-sqlite3';
import { boardRows } from '../../core/leaderboards/board-record.js';
import type { LeaderboardDefinition } from '../../core/leaderboards/leaderboard-model.js';
import type { LeaderboardAdminStore, ResetLease } from '../../core/leaderboards/leaderboard-store.js';
import type { ListingRewrite } from '../../core/leaderboards/listing-rewrite.js';
import { sqliteValues, writeDefinitionParts } from './leaderboard-rows.js';
import { runListingRewrite } from './listing-rewrite.js';

/** The admin API's board edits on SQLite, each one immediate transaction or one statement. */
export class SqliteLeaderboardAdminStore implements LeaderboardAdminStore {
  constructor(private readonly db: Database.Database) {}

  async listSlugs(projectId: number): Promise<string[]> {
    const rows = this.db
      .prepare<[number], { slug: string }>('SELECT slug FROM leaderboards WHERE project_id = ? ORDER BY slug')
      .all(projectId);
    return rows.map((row) => row.slug);
  }

  async redefine(boardId: number, def: LeaderboardDefinition, rehome: ListingRewrite): Promise<boolean> {
    return this.db
      .transaction((): boolean => {
        const updated = this.db
          .prepare(
            `UPDATE leaderboards SET (${boardRows.editable.join(', ')}) = (${boardRows.editable.map(() => '?').join(', ')}),
               revision = revision + 1 WHERE id = ?`,
          )
          .run(...sqliteValues(boardRows.editValues(def)), boardId);
        if (updated.changes === 0) return false;
        writeDefinitionParts(this.db, boardId, def);
        runListingRewrite(this.db, boardId, rehome, null);
        return true;
      })
      .immediate();
  }

  async beginResetNow(boardId: number, periodStart: number, { owner, now, until }: ResetLease): Promise<boolean> {
    const result = this.db
      .prepare(
        `UPDATE leaderboards SET reset_owner = @owner, reset_lease_until = @until,
           period_end = CASE WHEN period_end IS NOT NULL AND period_end <= @now THEN period_end ELSE @now END
         WHERE id = @board AND period_start = @start AND (reset_lease_until IS NULL OR reset_lease_until <= @now)`,
      )
      .run({ owner, until, now, board: boardId, start: periodStart });
    return result.changes === 1;
  }
}
