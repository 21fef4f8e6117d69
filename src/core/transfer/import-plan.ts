/**
 * The §8 import's conflict rules and the rows it writes, decided here from what the engine found
 * in the project inside the import's transaction; the engines only look up and write.
 */
import type { JsonObject } from '../json.js';
import { definitionOf } from '../leaderboards/board-record.js';
import type { LeaderboardDefinition, Period, ResetSchedule } from '../leaderboards/leaderboard-model.js';
import { periodContaining } from '../leaderboards/period-schedule.js';
import { scoreOf } from '../leaderboards/rank-order.js';
import { parseDocumentPath } from '../paths.js';
import { badItem, type ProjectExport } from './export-format.js';
import { type ImportWebhookRow, planWebhooks } from './webhook-transfer.js';

/** What the engine must look up in the project: the names the file uses. */
export interface ImportLookup {
  /** Ids of the file's users and of the users its entries and assignments name. */
  userIds: number[];
  /** The file's usernames, lower-cased (usernames compare case-insensitively). */
  usernames: string[];
  boardSlugs: string[];
}

/** What the engine found for an `ImportLookup`. */
export interface ImportFound {
  /** Existing users whose id or (case-insensitive) username the lookup names. */
  users: { id: number; username: string }[];
  /** Existing boards of those slugs. */
  boards: { id: number; slug: string; reset: ResetSchedule; period: Period }[];
  /** The project's webhooks (§16), by id. */
  webhooks: { id: number; url: string; events: string[] }[];
}

/** A user row to write; `exists` tells an update (password and device kept) from an insert. */
export interface ImportUserRow {
  id: number;
  username: string;
  nickname: string;
  avatarUrl: string | null;
  roles: string[];
  exists: boolean;
}

/** One board to write: replaced whole (`existingId`) or created. */
export interface ImportBoardRows {
  existingId: number | null;
  definition: LeaderboardDefinition;
  period: Period;
  entries: { userId: number; league: string; statValue: number; score: number; updatedAt: number }[];
  assignments: { userId: number; league: string }[];
}

/** Everything an import writes, besides the realtime tree and the ruleset. */
export interface ImportRows {
  /** Creation and update time of new rows (epoch ms). */
  now: number;
  users: ImportUserRow[];
  /** The lowest id new sign-ups may take afterwards (0: no users imported). */
  nextUserId: number;
  documents: { path: string; parent: string; collection: string; data: JsonObject }[];
  boards: ImportBoardRows[];
  /** Webhooks (§16) to update or create. */
  webhooks: ImportWebhookRow[];
}

/** The names a checked file uses. */
export function importLookup(file: ProjectExport): ImportLookup {
  const userIds = new Set(file.users.map((user) => user.id));
  for (const board of file.leaderboards) {
    for (const entry of board.entries) userIds.add(entry.user_id);
    for (const assignment of board.assignments) userIds.add(assignment.user_id);
  }
  return {
    userIds: [...userIds],
    usernames: file.users.map((user) => user.username.toLowerCase()),
    boardSlugs: file.leaderboards.map((board) => board.slug),
  };
}

/**
 * The rows a checked file writes into a project holding `found`; throws a 400 naming the first
 * item in conflict with it (then the engine's transaction writes nothing).
 */
export function planImport(file: ProjectExport, found: ImportFound, now: number): ImportRows {
  const byId = new Map(found.users.map((user) => [user.id, user]));
  const byName = new Map(found.users.map((user) => [user.username.toLowerCase(), user]));
  const users = file.users.map((user, i): ImportUserRow => {
    const existing = byId.get(user.id);
    if (existing && existing.username.toLowerCase() !== user.username.toLowerCase()) {
      throw badItem(`users[${i}].id`, `user ${user.id} exists with another username ('${existing.username}')`);
    }
    const holder = byName.get(user.username.toLowerCase());
    if (holder && holder.id !== user.id) {
      throw badItem(`users[${i}].username`, `'${user.username}' is taken by user ${holder.id}`);
    }
    const { id, username, nickname, avatar_url: avatarUrl, roles } = user;
    return { id, username, nickname, avatarUrl, roles, exists: existing !== undefined };
  });
  const known = new Set([...file.users.map((user) => user.id), ...byId.keys()]);
  const boards = new Map(found.boards.map((board) => [board.slug, board]));
  return {
    now,
    users,
    nextUserId: file.users.reduce((next, user) => Math.max(next, user.id + 1), 0),
    documents: file.documents.map((doc) => {
      const { path, parent, collection } = parseDocumentPath(doc.path);
      return { path, parent, collection, data: doc.data as JsonObject };
    }),
    boards: file.leaderboards.map((board, i): ImportBoardRows => {
      const at = `leaderboards[${i}]`;
      board.entries.forEach((e, j) => {
        if (!known.has(e.user_id)) throw badItem(`${at}.entries[${j}].user_id`, `user ${e.user_id} does not exist`);
      });
      board.assignments.forEach((a, j) => {
        if (!known.has(a.user_id)) throw badItem(`${at}.assignments[${j}].user_id`, `user ${a.user_id} does not exist`);
      });
      const existing = boards.get(board.slug);
      return {
        existingId: existing?.id ?? null,
        definition: definitionOf(board),
        // A replaced board keeps its period unless its schedule changed; its revision moves so cached ranks are dropped.
        period: existing && existing.reset === board.reset ? existing.period : periodContaining(board.reset, now),
        entries: board.entries.map((e) => ({
          userId: e.user_id,
          league: e.league,
          statValue: e.stat_value,
          score: scoreOf(board.sort, e.stat_value),
          updatedAt: Date.parse(e.updated_at),
        })),
        assignments: board.assignments.map((a) => ({ userId: a.user_id, league: a.league })),
      };
    }),
    webhooks: planWebhooks(file.webhooks ?? [], found.webhooks),
  };
}
