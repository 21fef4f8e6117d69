import type { LeagueChange, ListingRewrite } from '../../core/leaderboards/listing-rewrite.js';
import type { RankKey } from '../../core/leaderboards/rank-order.js';
import { columnsOf } from './columns-of.js';
import type { Queryable } from './transactions.js';

/** How many keys one keyset read of a rewrite takes, and how many rows one write statement carries. */
const REWRITE_BATCH = 10_000;

/**
 * The keys of a league's listing in rank order, strictly after `after`, at most `limit`: the
 * entries, then the users assigned without an entry.
 */
export async function scanListing(
  db: Queryable,
  boardId: number,
  league: string,
  after: RankKey | null,
  limit: number,
): Promise<RankKey[]> {
  const keys: RankKey[] = [];
  if (after === null || Number.isFinite(after.score)) {
    const { rows } = after
      ? await db.query<{ user_id: number; score: number; updated_at: string }>(
          `SELECT user_id, score, updated_at FROM leaderboard_entries
           WHERE leaderboard_id = $1 AND league = $2 AND (score, updated_at, user_id) > ($3, $4, $5)
           ORDER BY score, updated_at, user_id LIMIT $6`,
          [boardId, league, after.score, after.updatedAt, after.userId, limit],
        )
      : await db.query<{ user_id: number; score: number; updated_at: string }>(
          `SELECT user_id, score, updated_at FROM leaderboard_entries
           WHERE leaderboard_id = $1 AND league = $2 ORDER BY score, updated_at, user_id LIMIT $3`,
          [boardId, league, limit],
        );
    for (const row of rows) keys.push({ score: row.score, updatedAt: Number(row.updated_at), userId: row.user_id });
    if (keys.length === limit) return keys;
  }
  const afterUser = after && !Number.isFinite(after.score) ? after.userId : 0;
  const { rows } = await db.query<{ user_id: number }>(
    `SELECT a.user_id FROM leaderboard_assignments a
     WHERE a.leaderboard_id = $1 AND a.league = $2 AND a.user_id > $3
       AND NOT EXISTS (SELECT 1 FROM leaderboard_entries e WHERE e.leaderboard_id = a.leaderboard_id AND e.user_id = a.user_id)
     ORDER BY a.user_id LIMIT $4`,
    [boardId, league, afterUser, limit - keys.length],
  );
  for (const row of rows) keys.push({ score: Number.POSITIVE_INFINITY, updatedAt: 0, userId: row.user_id });
  return keys;
}

/**
 * Runs core's `rewrite` over the board's listings on the caller's transaction client: reads each
 * league it asks for by keyset batches, writes the archive rows (into period `archiveAs`) as they
 * come, and applies the league changes once every league was read.
 */
export async function runListingRewrite(
  client: Queryable,
  boardId: number,
  rewrite: ListingRewrite,
  archiveAs: number | null,
): Promise<void> {
  const { rows: counts } = await client.query<{ league: string; ranked: string; assigned: string }>(
    `SELECT league, sum(ranked) AS ranked, count(*) AS assigned FROM (
       SELECT league, 1 AS ranked FROM leaderboard_entries WHERE leaderboard_id = $1
       UNION ALL
       SELECT a.league, 0 FROM leaderboard_assignments a WHERE a.leaderboard_id = $1
         AND NOT EXISTS (SELECT 1 FROM leaderboard_entries e WHERE e.leaderboard_id = a.leaderboard_id AND e.user_id = a.user_id)
     ) listing GROUP BY league ORDER BY league COLLATE "C"`,
    [boardId],
  );
  const leagues = rewrite.leaguesToRead(
    counts.map((c) => ({ league: c.league, ranked: Number(c.ranked), assigned: Number(c.assigned) })),
  );
  const entries: LeagueChange[] = [];
  const assignments: LeagueChange[] = [];
  for (const league of leagues) {
    let after: RankKey | null = null;
    for (;;) {
      const batch = await scanListing(client, boardId, league, after, REWRITE_BATCH);
      const { history, ...changes } = rewrite.place(league, batch);
      if (history.length > 0) {
        await client.query(
          `INSERT INTO leaderboard_history (leaderboard_id, period_start, league, rank, user_id, stat_value, updated_at, reward)
           SELECT $1::int, $2::bigint, * FROM unnest($3::text[], $4::int[], $5::int[], $6::float8[], $7::bigint[], $8::jsonb[])`,
          [
            boardId,
            archiveAs,
            ...columnsOf(history, 'league', 'rank', 'userId', 'statValue', 'updatedAt'),
            history.map((h) => (h.reward === null ? null : JSON.stringify(h.reward))),
          ],
        );
      }
      entries.push(...changes.entries);
      assignments.push(...changes.assignments);
      after = batch.at(-1) ?? null;
      if (batch.length < REWRITE_BATCH) break;
    }
  }
  await moveUsers(client, 'leaderboard_entries', boardId, entries);
  await moveUsers(
    client,
    'leaderboard_assignments',
    boardId,
    assignments.filter((c) => c.league !== null),
  );
  const dropped = assignments.filter((c) => c.league === null).map((c) => c.userId);
  for (let i = 0; i < dropped.length; i += REWRITE_BATCH) {
    await client.query('DELETE FROM leaderboard_assignments WHERE leaderboard_id = $1 AND user_id = ANY($2::int[])', [
      boardId,
      dropped.slice(i, i + REWRITE_BATCH),
    ]);
  }
}

/** Sets the league of each user named in `changes` (never null here) in `table`, by batches. */
async function moveUsers(
  client: Queryable,
  table: 'leaderboard_entries' | 'leaderboard_assignments',
  boardId: number,
  changes: readonly LeagueChange[],
): Promise<void> {
  for (let i = 0; i < changes.length; i += REWRITE_BATCH) {
    const part = changes.slice(i, i + REWRITE_BATCH);
    await client.query(
      `UPDATE ${table} t SET league = m.league FROM unnest($2::int[], $3::text[]) AS m(user_id, league)
       WHERE t.leaderboard_id = $1 AND t.user_id = m.user_id`,
      [boardId, part.map((c) => c.userId), part.map((c) => c.league)],
    );
  }
}
