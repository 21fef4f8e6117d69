import { randomUUID } from 'node:crypto';
import type { AccountStore } from '../auth/account-store.js';
import type { Bus } from '../bus.js';
import type { Clock } from '../clock.js';
import type { EventRecording } from '../events/event-recording.js';
import type { WriteHooks } from '../functions/before-hooks.js';
import { BoardCache } from './board-cache.js';
import { KeyedMutex } from './keyed-mutex.js';
import { LeaderboardResets } from './leaderboard-resets.js';
import { LeaderboardService } from './leaderboard-service.js';
import type { LeaderboardAdminStore, LeaderboardStore } from './leaderboard-store.js';
import { LeagueRanks } from './league-ranks.js';
import { MemoryRankCache } from './memory-rank-cache.js';
import type { RankCache } from './rank-cache.js';
import { RankSync } from './rank-sync.js';
/** What `createLeaderboards` wires together. */
export interface LeaderboardsOptions {
  store: LeaderboardStore;
  profiles: Pick<AccountStore, 'profilesOf'>;
  clock: Clock;
  /** Defaults to ranks held in this process. */
  cache?: RankCache;
  /** This instance's name in reset leases; random by default. */
  owner?: string;
  /** Reset lease length; default 5 minutes. */
  leaseMs?: number;
  /** The admin API's board edits (§6). */
  admin?: LeaderboardAdminStore;
  /** The bus shared with other instances: rank moves (`RankSync`) and board changes (`BoardCache`) travel on it. */
  peers?: Bus;
  /** Told when following another instance's move, or announcing a board change, fails. */
  onSyncError?: (error: unknown) => void;
  /** How long a board definition is served from the process's cache at most; default 5 s. */
  boardMaxAgeMs?: number;
  /** The projects' `leaderboards.stat` before hooks (§16). */
  hooks?: WriteHooks;
  /** Which projects record their events (§16). */
  recording?: EventRecording;
}

/** Builds the leaderboard service with its rank cache and reset runner. */
export function createLeaderboards(options: LeaderboardsOptions): LeaderboardService {
  const cache = options.cache ?? new MemoryRankCache();
  const owner = options.owner ?? `cds-${randomUUID()}`;
  const onSyncError = options.onSyncError ?? (() => undefined);
  const boards = new BoardCache({
    store: options.store,
    clock: options.clock,
    origin: owner,
    onError: onSyncError,
    ...(options.peers ? { bus: options.peers } : {}),
    ...(options.boardMaxAgeMs !== undefined ? { maxAgeMs: options.boardMaxAgeMs } : {}),
  });
  const resets = new LeaderboardResets({
    store: options.store,
    boards,
    cache,
    clock: options.clock,
    owner,
    leaseMs: options.leaseMs ?? 5 * 60_000,
    ...(options.recording ? { recording: options.recording } : {}),
  });
  const writes = new KeyedMutex();
  const sync = options.peers
    ? new RankSync({
        bus: options.peers,
        store: options.store,
        cache,
        writes,
        origin: owner,
        onError: onSyncError,
      })
    : undefined;
  return new LeaderboardService({
    store: options.store,
    boards,
    profiles: options.profiles,
    ranks: new LeagueRanks(options.store, cache, sync),
    resets,
    clock: options.clock,
    writes,
    ...(sync ? { sync } : {}),
    ...(options.admin ? { admin: options.admin } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
    ...(options.recording ? { recording: options.recording } : {}),
  });
}
