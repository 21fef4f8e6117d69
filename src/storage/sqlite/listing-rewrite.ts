import type Database from 'better-sqlite3';
import type { LeagueChange, ListingRewrite } from '../../core/leaderboards/listing-rewrite.js';
import type { LeagueCount } from '../../core/leaderboards/promotion.js';
import type { RankKey } from '../../core/leaderboards/rank-order.js';

/** The part of a database these functions use (the leaderboard store passes its statement cache). */
export type Preparer = Pick<Database.Database, 'prepare'>;

/** How many keys one keyset read of a rewrite takes. */
const REWRITE_BATCH = 10_000;

/**
 * The keys of a league's listing in rank order, strictly after `after`, at most `limit`: the
 * entries, then the users assigned without an entry.
 */
export function scanListing(
  db: Preparer,
  boardId: number,
  league: string,
  after: RankKey | null,
  limit: number,
): RankKey[] {
  const keys: RankKey[] = [];
  if (after === null || Number.isFinite(after.score)) {
    const rows = after
      ? db
          .prepare<
            [number, string, number, number, number, number],
            { user_id: number; score: number; updated_at: number }
          >(
            `SELECT user_id, score, updated_at FROM leaderboard_entries
             WHERE leaderboard_id = ? AND league = ? AND (score, updated_at, user_id) > (?, ?, ?)
             ORDER BY score, updated_at, user_id LIMIT ?`,
          )
          .all(boardId, league, after.score, after.updatedAt, after.userId, limit)
      : db
          .prepare<[number, string, number], { user_id: number; score: number; updated_at: number }>(
            `SELECT user_id, score, updated_at FROM leaderboard_entries
             WHERE leaderboard_id = ? AND league = ? ORDER BY score, updated_at, user_id LIMIT ?`,
          )
          .all(boardId, league, limit);
    for (const row of rows) keys.push({ score: row.score, updatedAt: row.updated_at, userId: row.user_id });
    if (keys.length === limit) return keys;
  }
  const afterUser = after && !Number.isFinite(after.score) ? after.userId : 0;
  const unranked = db
    .prepare<[number, string, number, number], { user_id: number }>(
      `SELECT a.user_id FROM leaderboard_assignments a
       WHERE a.leaderboard_id = ? AND a.league = ? AND a.user_id > ?
         AND NOT EXISTS (SELECT 1 FROM leaderboard_entries e WHERE e.leaderboard_id = a.leaderboard_id AND e.user_id = a.user_id)
       ORDER BY a.user_id LIMIT ?`,
    )
    .all(boardId, league, afterUser, limit - keys.length);
  for (const row of unranked) keys.push({ score: Number.POSITIVE_INFINITY, updatedAt: 0, userId: row.user_id });
  return keys;
}

/**
 * Runs core's `rewrite` over the board's listings, inside the caller's transaction: reads each
 * league it asks for by keyset batches, writes the archive rows (into period `archiveAs`) as they
 * come, and applies the league changes once every league was read.
 */
export function runListingRewrite(
  db: Preparer,
  boardId: number,
  rewrite: ListingRewrite,
  archiveAs: number | null,
): void {
  const counts = db
    .prepare<{ board: number }, LeagueCount>(
      `SELECT league, sum(ranked) AS ranked, count(*) AS assigned FROM (
         SELECT league, 1 AS ranked FROM leaderboard_entries WHERE leaderboard_id = @board
         UNION ALL
         SELECT a.league, 0 FROM leaderboard_assignments a WHERE a.leaderboard_id = @board
           AND NOT EXISTS (SELECT 1 FROM leaderboard_entries e WHERE e.leaderboard_id = a.leaderboard_id AND e.user_id = a.user_id)
       ) GROUP BY league ORDER BY league`,
    )
    .all({ board: boardId });
  const archive = db.prepare(
    `INSERT INTO leaderboard_history (leaderboard_id, period_start, league, rank, user_id, stat_value, updated_at, reward)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const entries: LeagueChange[] = [];
  const assignments: LeagueChange[] = [];
  for (const league of rewrite.leaguesToRead(counts)) {
    let after: RankKey | null = null;
    for (;;) {
      const batch = scanListing(db, boardId, league, after, REWRITE_BATCH);
      const rows = rewrite.place(league, batch);
      for (const h of rows.history) {
        const reward = h.reward === null ? null : JSON.stringify(h.reward);
        archive.run(boardId, archiveAs, h.league, h.rank, h.userId, h.statValue, h.updatedAt, reward);
      }
      entries.push(...rows.entries);
      assignments.push(...rows.assignments);
      after = batch.at(-1) ?? null;
      if (batch.length < REWRITE_BATCH) break;
    }
  }
  const moveEntry = db.prepare('UPDATE leaderboard_entries SET league = ? WHERE leaderboard_id = ? AND user_id = ?');
  for (const change of entries) moveEntry.run(change.league, boardId, change.userId);
  const moveAssignment = db.prepare(
    'UPDATE leaderboard_assignments SET league = ? WHERE leaderboard_id = ? AND user_id = ?',
  );
  const dropAssignment = db.prepare('DELETE FROM leaderboard_assignments WHERE leaderboard_id = ? AND user_id = ?');
  for (const change of assignments) {
    if (change.league === null) dropAssignment.run(boardId, change.userId);
    else moveAssignment.run(change.league, boardId, change.userId);
  }
}
