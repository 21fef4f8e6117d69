import { LRUCache } from 'lru-cache';
import { type Bus, ChannelListening } from '../bus.js';
import type { Clock } from '../clock.js';
import { parseJsonObject } from '../json.js';
import { isExpired, type Leaderboard } from './leaderboard-model.js';
import type { LeaderboardStore } from './leaderboard-store.js';

/** The bus channel of board changes. */
export const BOARD_CHANNEL = 'boards';

/** Boards of a project that changed (edit, reset, import...), as announced to the other instances. */
interface BoardNotice {
  origin: string;
  projectId: number;
  slugs: string[];
}

/** What the board cache needs. */
export interface BoardCacheDeps {
  store: Pick<LeaderboardStore, 'get'>;
  clock: Clock;
  /** The bus shared with other instances (absent with one instance). */
  bus?: Bus;
  /** This instance's name; its own notices come back over the bus and are skipped. */
  origin: string;
  onError: (error: unknown) => void;
  /** How long a board is served from the cache at most; default 5 s. */
  maxAgeMs?: number;
}

const DEFAULT_MAX_AGE_MS = 5_000;
const MAX_BOARDS = 10_000;

/**
 * The board definitions of this process, by project and slug, so that a leaderboard request
 * reads its board without a store read. The store stays the source of truth:
 *
 * - A board whose period has ended is never served from here: a reset (run by any instance
 *   after the end) must be seen, so such a board is read from the store until it shows the next period.
 * - A change made here (create, edit, reset, import) drops the entry at once and is announced on
 *   `boards`; the other instances drop theirs when the notice arrives, and drop everything when
 *   the bus says notices may have been lost (`onLoss`).
 * - Every entry also lives at most `maxAgeMs` (a few seconds, like the permission cache): a
 *   safety net for changes no notice reports, i.e. a writer whose publish failed (its bus
 *   connection was down while the others' was not, so they get no `onLoss`), `cds import`
 *   (its own process, on an in-process bus) and hand edits of the database.
 *
 * Submissions do not depend on the cache being fresh: `writeEntry` refuses a write computed for
 * another period or board revision than the stored one, and the service then drops the board
 * (`forgetHere`) before retrying.
 */
export class BoardCache {
  private readonly boards: LRUCache<string, Leaderboard>;
  /**
   * Moves on with every drop: a store read that started before a drop may return the board as
   * it was before the change, so it only fills the cache if no drop happened meanwhile.
   */
  private generation = 0;
  private readonly notices = new ChannelListening(
    BOARD_CHANNEL,
    (message) => this.onNotice(message),
    () => this.clear(),
  );

  constructor(private readonly deps: BoardCacheDeps) {
    this.boards = new LRUCache({ max: MAX_BOARDS, ttl: Math.max(1, deps.maxAgeMs ?? DEFAULT_MAX_AGE_MS) });
  }

  /** The board of that slug (null when there is none; misses are not cached). */
  async get(projectId: number, slug: string): Promise<Leaderboard | null> {
    const key = keyOf(projectId, slug);
    const cached = this.boards.get(key);
    if (cached && !isExpired(cached.period, this.deps.clock.now())) return cached;
    if (cached) this.boards.delete(key);
    const generation = this.generation;
    const board = await this.deps.store.get(projectId, slug);
    if (board && generation === this.generation && !isExpired(board.period, this.deps.clock.now())) {
      this.boards.set(key, board);
    }
    return board;
  }

  /** Drops these boards here only (a write found the board moved on, or another instance said so). */
  forgetHere(projectId: number, slugs: readonly string[]): void {
    this.generation++;
    for (const slug of slugs) this.boards.delete(keyOf(projectId, slug));
  }

  /** Drops these boards here and tells the other instances to; call after the change is committed. */
  async changed(projectId: number, slugs: readonly string[]): Promise<void> {
    this.forgetHere(projectId, slugs);
    const { bus, origin, onError } = this.deps;
    if (!bus || slugs.length === 0) return;
    const notice: BoardNotice = { origin, projectId, slugs: [...slugs] };
    try {
      await bus.publish(BOARD_CHANNEL, JSON.stringify(notice));
    } catch (error) {
      // The change stands; the other instances see it when their entry reaches its maximum age.
      onError(error);
    }
  }

  /** Drops every board (messages may have been missed). */
  clear(): void {
    this.generation++;
    this.boards.clear();
  }

  /** Starts following the other instances' changes (nothing to follow without a bus). */
  async listen(): Promise<void> {
    if (this.deps.bus) await this.notices.listen(this.deps.bus);
  }

  /** Stops following. */
  close(): Promise<void> {
    return this.notices.close();
  }

  private onNotice(message: string): void {
    const notice = decodeNotice(message);
    if (notice && notice.origin !== this.deps.origin) this.forgetHere(notice.projectId, notice.slugs);
  }
}

function keyOf(projectId: number, slug: string): string {
  return `${projectId}/${slug}`;
}

/** The notice carried by a bus message; null when it is not one (another version of the service). */
function decodeNotice(message: string): BoardNotice | null {
  const parsed = parseJsonObject(message);
  if (!parsed) return null;
  const { origin, projectId, slugs } = parsed;
  if (typeof origin !== 'string' || typeof projectId !== 'number' || !Number.isSafeInteger(projectId)) return null;
  if (!Array.isArray(slugs) || !slugs.every((slug): slug is string => typeof slug === 'string')) return null;
  return { origin, projectId, slugs };
}
