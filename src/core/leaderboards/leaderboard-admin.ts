/** The admin API's side of leaderboards (§6): listing, editing and "reset now". */
import { conflict, notFound } from '../errors.js';
import type { BoardCache } from './board-cache.js';
import { checkDefinition } from './leaderboard-definition.js';
import type { Leaderboard, LeaderboardDefinition, Tournament } from './leaderboard-model.js';
import type { LeaderboardResets } from './leaderboard-resets.js';
import type { ArchivedPeriod, LeaderboardAdminStore, LeaderboardStore } from './leaderboard-store.js';
import { redefineRewrite } from './listing-rewrite.js';

/** What an admin may change of a board; slug, type, sort and reset stay (they define its ranks and periods). */
export type LeaderboardEdit = Partial<
  Pick<
    LeaderboardDefinition,
    'name' | 'description' | 'operator' | 'leagues' | 'rewards' | 'clientSubmit' | 'statMin' | 'statMax'
  > &
    Tournament
>;

/** What the board administration needs: the leaderboard stores and the reset runner of the service. */
export interface LeaderboardAdminDeps {
  store: LeaderboardStore;
  admin: LeaderboardAdminStore;
  /** Told of every edit (resets tell it themselves). */
  boards: Pick<BoardCache, 'changed'>;
  resets: LeaderboardResets;
}

const BOARD_NOT_FOUND = 'Leaderboard not found';

/**
 * Board administration. An edit moves the board's revision on, so every instance's rank cache
 * loads the re-homed entries afresh instead of patching its buckets, and is announced to every
 * instance's board cache. Admin reads go to the store, never to the cache.
 */
export class LeaderboardAdmin {
  constructor(private readonly deps: LeaderboardAdminDeps) {}

  /** Every board of a project, by slug. */
  async list(projectId: number): Promise<Leaderboard[]> {
    const slugs = await this.deps.admin.listSlugs(projectId);
    const boards = await Promise.all(slugs.map((slug) => this.deps.store.get(projectId, slug)));
    return boards.filter((board): board is Leaderboard => board !== null);
  }

  /** The board of that slug; 404 otherwise. */
  async get(projectId: number, slug: string): Promise<Leaderboard> {
    const board = await this.deps.store.get(projectId, slug);
    if (!board) throw notFound(BOARD_NOT_FOUND);
    return board;
  }

  /** Applies an edit; 422 when the result is not a valid definition. */
  async update(projectId: number, slug: string, edit: LeaderboardEdit): Promise<Leaderboard> {
    const board = await this.get(projectId, slug);
    const definition: LeaderboardDefinition = {
      slug: board.slug,
      name: edit.name ?? board.name,
      description: edit.description ?? board.description,
      type: board.type,
      sort: board.sort,
      operator: edit.operator ?? board.operator,
      reset: board.reset,
      leagues: edit.leagues ?? board.leagues,
      rewards: edit.rewards ?? board.rewards,
      clientSubmit: edit.clientSubmit ?? board.clientSubmit,
      // null is a value here (no bound), so only a missing field keeps the board's bound.
      statMin: edit.statMin === undefined ? board.statMin : edit.statMin,
      statMax: edit.statMax === undefined ? board.statMax : edit.statMax,
      joinRequired: edit.joinRequired ?? board.joinRequired,
      maxParticipants: edit.maxParticipants === undefined ? board.maxParticipants : edit.maxParticipants,
      maxSubmissions: edit.maxSubmissions === undefined ? board.maxSubmissions : edit.maxSubmissions,
      startsAt: edit.startsAt === undefined ? board.startsAt : edit.startsAt,
      endsAt: edit.endsAt === undefined ? board.endsAt : edit.endsAt,
    };
    checkDefinition(definition);
    if (!(await this.deps.admin.redefine(board.id, definition, redefineRewrite(definition))))
      throw notFound(BOARD_NOT_FOUND);
    await this.deps.boards.changed(projectId, [slug]);
    return this.get(projectId, slug);
  }

  /** Ends the current period now and runs its reset; 409 while another reset of the board runs. */
  async resetNow(projectId: number, slug: string): Promise<{ archived: ArchivedPeriod; current: Leaderboard }> {
    const board = await this.get(projectId, slug);
    const archived =
      (await this.deps.resets.resetNow(board, this.deps.admin)) &&
      (await this.deps.store.archivedPeriod(board.id, board.period.start));
    if (!archived) throw conflict('A reset of this leaderboard is in progress; try again shortly');
    return { archived, current: await this.get(projectId, slug) };
  }
}
