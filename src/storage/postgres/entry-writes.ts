/**
 * The statements that write one leaderboard entry on PostgreSQL, each a compare-and-set against
 * the entry as read: plain, or (§18) with the player's submission counted in the same statement,
 * so a limited tournament's submission costs no extra round trip. Only the board's lock and the
 * transaction around them live in the store.
 */
import type pg from 'pg';
import type { EntryWrite } from '../../core/leaderboards/leaderboard-store.js';
import { entryRows } from '../rows.js';

const UPDATE_ENTRY = `UPDATE leaderboard_entries SET league = $1, stat_value = $2, score = $3, updated_at = $4
  WHERE leaderboard_id = $5 AND user_id = $6 AND stat_value = $7 AND updated_at = $8 AND league = $9`;

/** The entry's update (a previous entry) or insert (none); no row changed means a concurrent write won. */
export function entryWrite(boardId: number, write: EntryWrite): pg.QueryConfig {
  const { next, previous } = write;
  if (previous) return { text: UPDATE_ENTRY, values: entryRows.updateValues(boardId, write, previous) };
  return {
    text: `INSERT INTO leaderboard_entries (leaderboard_id, user_id, league, stat_value, score, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    values: [boardId, next.userId, next.league, next.statValue, write.score, next.updatedAt],
  };
}

/** The count's upsert, refused at `limit`; its parameters are numbered by the statement around it. */
const counted = (board: string, period: string, user: string, limit: string) => `counted AS (
  INSERT INTO leaderboard_submission_counts AS c (leaderboard_id, period_start, user_id, submissions)
  VALUES (${board}, ${period}, ${user}, 1)
  ON CONFLICT (leaderboard_id, period_start, user_id) DO UPDATE SET submissions = c.submissions + 1
    WHERE c.submissions < ${limit}
  RETURNING 1)`;

const OUTCOME = 'SELECT EXISTS (SELECT 1 FROM counted) AS counted, EXISTS (SELECT 1 FROM written) AS written';

/**
 * The entry's write and the submission's count in one statement, answering `counted` (false: the
 * limit was reached, nothing written) and `written` (false while counted: a concurrent write won,
 * and the caller must roll the count back).
 */
export function countedEntryWrite(boardId: number, write: EntryWrite, limit: number): pg.QueryConfig {
  const { next, previous, periodStart } = write;
  if (previous) {
    return {
      name: 'cds_leaderboard_counted_update',
      text: `WITH ${counted('$5', '$10', '$6', '$11')},
        written AS (${UPDATE_ENTRY} AND EXISTS (SELECT 1 FROM counted) RETURNING 1)
        ${OUTCOME}`,
      values: [...entryRows.updateValues(boardId, write, previous), periodStart, limit],
    };
  }
  return {
    name: 'cds_leaderboard_counted_insert',
    text: `WITH ${counted('$1', '$7', '$2', '$8')},
      written AS (
        INSERT INTO leaderboard_entries (leaderboard_id, user_id, league, stat_value, score, updated_at)
        SELECT $1::integer, $2::integer, $3::text, $4::double precision, $5::double precision, $6::bigint
        WHERE EXISTS (SELECT 1 FROM counted) ON CONFLICT DO NOTHING RETURNING 1)
      ${OUTCOME}`,
    values: [boardId, next.userId, next.league, next.statValue, write.score, next.updatedAt, periodStart, limit],
  };
}
