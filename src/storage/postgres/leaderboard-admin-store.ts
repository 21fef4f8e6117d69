import type pg from 'pg';
import { type LeaderboardDefinition, lowestLeague } from '../../core/leaderboards/leaderboard-model.js';
import type { LeaderboardAdminStore } from '../../core/ports.js';
import { inTransaction, writeDefinitionParts } from './leaderboard-store.js';

/**
 * A CONTINUOUS entry's league under the board's current leagues: the highest (above the lowest)
 * whose `min_stat` the stat reaches, else the lowest — `leagueForStat` of `submission.ts` in SQL.
 */
const REHOME_BY_STAT = `UPDATE leaderboard_entries e SET league = coalesce((
  SELECT l.slug FROM leaderboard_leagues l
  WHERE l.leaderboard_id = e.leaderboard_id AND l.ord > 0 AND l.min_stat IS NOT NULL
    AND CASE WHEN $3::boolean THEN e.stat_value >= l.min_stat ELSE e.stat_value <= l.min_stat END
  ORDER BY l.ord DESC LIMIT 1), $2)
WHERE e.leaderboard_id = $1`;

const orphansToLowest = (table: string) =>
  `UPDATE ${table} SET league = $2 WHERE leaderboard_id = $1
   AND league NOT IN (SELECT slug FROM leaderboard_leagues WHERE leaderboard_id = $1)`;

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

  redefine(boardId: number, def: LeaderboardDefinition): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      // FOR UPDATE waits for submissions in flight (they hold KEY SHARE) and holds off new ones.
      const locked = await client.query('SELECT 1 FROM leaderboards WHERE id = $1 FOR UPDATE', [boardId]);
      if (locked.rowCount === 0) return false;
      await client.query(
        `UPDATE leaderboards SET name = $1, description = $2, operator = $3, client_submit = $4, stat_min = $5,
           stat_max = $6, revision = revision + 1 WHERE id = $7`,
        [def.name, def.description, def.operator, def.clientSubmit, def.statMin, def.statMax, boardId],
      );
      await writeDefinitionParts(client, boardId, def);
      const lowest = lowestLeague(def).slug;
      if (def.type === 'CONTINUOUS') {
        await client.query(REHOME_BY_STAT, [boardId, lowest, def.sort === 'desc']);
      } else {
        await client.query(orphansToLowest('leaderboard_entries'), [boardId, lowest]);
        await client.query(orphansToLowest('leaderboard_assignments'), [boardId, lowest]);
      }
      return true;
    });
  }

  async beginResetNow(
    boardId: number,
    periodStart: number,
    owner: string,
    now: number,
    until: number,
  ): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE leaderboards SET reset_owner = $1, reset_lease_until = $2,
         period_end = CASE WHEN period_end IS NOT NULL AND period_end <= $3 THEN period_end ELSE $3 END
       WHERE id = $4 AND period_start = $5 AND (reset_lease_until IS NULL OR reset_lease_until <= $3)`,
      [owner, until, now, boardId, periodStart],
    );
    return result.rowCount === 1;
  }
}
