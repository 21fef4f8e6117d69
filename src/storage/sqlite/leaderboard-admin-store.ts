import type Database from 'better-sqlite3';
import { type LeaderboardDefinition, lowestLeague } from '../../core/leaderboards/leaderboard-model.js';
import type { LeaderboardAdminStore } from '../../core/ports.js';
import { writeDefinitionParts } from './leaderboard-store.js';

/**
 * A CONTINUOUS entry's league under the board's current leagues: the highest (above the lowest)
 * whose `min_stat` the stat reaches, else the lowest — `leagueForStat` of `submission.ts` in SQL.
 */
const REHOME_BY_STAT = `UPDATE leaderboard_entries SET league = coalesce((
  SELECT l.slug FROM leaderboard_leagues l
  WHERE l.leaderboard_id = leaderboard_entries.leaderboard_id AND l.ord > 0 AND l.min_stat IS NOT NULL
    AND CASE WHEN @desc THEN leaderboard_entries.stat_value >= l.min_stat ELSE leaderboard_entries.stat_value <= l.min_stat END
  ORDER BY l.ord DESC LIMIT 1), @lowest)
WHERE leaderboard_id = @board`;

const orphansToLowest = (table: string) =>
  `UPDATE ${table} SET league = @lowest WHERE leaderboard_id = @board
   AND league NOT IN (SELECT slug FROM leaderboard_leagues WHERE leaderboard_id = @board)`;

/** The admin API's board edits on SQLite, each one immediate transaction or one statement. */
export class SqliteLeaderboardAdminStore implements LeaderboardAdminStore {
  constructor(private readonly db: Database.Database) {}

  async listSlugs(projectId: number): Promise<string[]> {
    const rows = this.db
      .prepare<[number], { slug: string }>('SELECT slug FROM leaderboards WHERE project_id = ? ORDER BY slug')
      .all(projectId);
    return rows.map((row) => row.slug);
  }

  async redefine(boardId: number, def: LeaderboardDefinition): Promise<boolean> {
    const params = { board: boardId, lowest: lowestLeague(def).slug, desc: def.sort === 'desc' ? 1 : 0 };
    return this.db
      .transaction((): boolean => {
        const updated = this.db
          .prepare(
            `UPDATE leaderboards SET name = ?, description = ?, operator = ?, client_submit = ?, stat_min = ?, stat_max = ?,
               revision = revision + 1 WHERE id = ?`,
          )
          .run(def.name, def.description, def.operator, def.clientSubmit ? 1 : 0, def.statMin, def.statMax, boardId);
        if (updated.changes === 0) return false;
        writeDefinitionParts(this.db, boardId, def);
        if (def.type === 'CONTINUOUS') {
          this.db.prepare(REHOME_BY_STAT).run(params);
        } else {
          const { board, lowest } = params;
          this.db.prepare(orphansToLowest('leaderboard_entries')).run({ board, lowest });
          this.db.prepare(orphansToLowest('leaderboard_assignments')).run({ board, lowest });
        }
        return true;
      })
      .immediate();
  }

  async beginResetNow(
    boardId: number,
    periodStart: number,
    owner: string,
    now: number,
    until: number,
  ): Promise<boolean> {
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
