/**
 * The sizes and durations of one benchmark run: the full run of the issue, or `--quick`, a short
 * version (smaller datasets, short runs) that finishes in under 3 minutes on a laptop.
 */

import type { LoadGenerator } from './http-load.js';
import { wrkExecutable } from './wrk-load.js';

/** The storage engines the service is measured on. */
export type Engine = 'sqlite' | 'postgres';

/** Everything a run's size depends on. */
export interface BenchSettings {
  quick: boolean;
  engines: Engine[];
  /** What sends the HTTP loads (`--generator`): wrk when installed, else autocannon. */
  generator: LoadGenerator;
  /** Concurrent HTTP connections of the load generator. */
  connections: number;
  /** Untimed load before each measured HTTP run. */
  warmupSeconds: number;
  /** Length of each measured HTTP run, in `rounds` slices; each slice of a service workload
   * follows a slice of its baseline half as long. */
  durationSeconds: number;
  rounds: number;
  /** Pause before a memory reading, so that start-up or connection work has settled. */
  settleMs: number;
  /** Documents in the collection that GET, list and query read. */
  documents: number;
  /** Documents of the large indexed collection (§15: the range query at this size). */
  largeDocuments: number;
  /** Descendants of the document whose `collections` are computed. */
  hubDescendants: number;
  /** Leaves of the realtime tree, in subtrees of `subtreeLeaves`. */
  treeLeaves: number;
  subtreeLeaves: number;
  /** Entries of the leaderboard. */
  boardEntries: number;
  /** Users with tokens: connection `c` is user `c + 1` (so writes of one user never queue on each
   * other); reads of a user's own rank pick any of them. */
  users: number;
  /** Fan-out: the audiences measured (subscribers on the one path, one pair of rows each), paced
   * writes per second and their count, burst size and count. */
  fanoutSubscribers: number[];
  pacedRate: number;
  pacedWrites: number;
  burstWrites: number;
  bursts: number;
  /** Idle subscribed WebSockets for the memory figure. */
  idleSockets: number;
  /** PostgreSQL and Redis of the run (loopback). */
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  /** Only the HTTP workloads whose name contains this, or one of its `|`-separated parts (`--match`). */
  match?: string;
  /** Where the service writes CPU profiles (`--profile`); none when unset. */
  profileDir?: string;
  /** Load the datasets (false when only fan-out or memory is measured: they read none of them). */
  datasets: boolean;
  /** CDS_WORKERS of the service in the engines' suites (`--workers`; default 1), and the count the
   * `workers` section compares with one. */
  workers: number;
}

/** Whether the HTTP workload `name` runs under `--match`. */
export function matches(settings: BenchSettings, name: string): boolean {
  return !settings.match || settings.match.split('|').some((part) => name.includes(part));
}

/** The settings of a full run, or of `--quick`. */
export function benchSettings(quick: boolean, env: NodeJS.ProcessEnv, engines?: Engine[]): BenchSettings {
  return {
    quick,
    engines: engines ?? ['sqlite', 'postgres'],
    generator: loadGenerator(),
    connections: 50,
    warmupSeconds: quick ? 0.25 : 2,
    durationSeconds: quick ? 1 : 10,
    rounds: quick ? 1 : 3,
    settleMs: quick ? 500 : 2_000,
    documents: 100_000,
    largeDocuments: 1_000_000,
    hubDescendants: 100_000,
    treeLeaves: quick ? 100_000 : 1_000_000,
    subtreeLeaves: 1_000,
    boardEntries: quick ? 100_000 : 1_000_000,
    users: 1_000,
    // Small audiences stress the per-write cost, large ones the per-delivery cost (issue 20).
    fanoutSubscribers: [100, 1_000],
    pacedRate: 20,
    pacedWrites: quick ? 30 : 200,
    burstWrites: 200,
    bursts: quick ? 1 : 3,
    idleSockets: quick ? 1_000 : 10_000,
    databaseUrl: env.CDS_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    redisUrl: env.CDS_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisPrefix: env.CDS_REDIS_PREFIX ?? 'cds',
    datasets: true,
    workers: 1,
  };
}

/**
 * wrk when it is on PATH (or `kind` asks for it), else autocannon. wrk spends a third of
 * autocannon's CPU per request, which matters where the generator shares the service's cores.
 */
export function loadGenerator(kind?: string): LoadGenerator {
  if (kind !== undefined && kind !== 'wrk' && kind !== 'autocannon')
    throw new Error(`--generator: wrk or autocannon, not ${kind}`);
  const executable = kind === 'autocannon' ? undefined : wrkExecutable();
  if (executable) return { kind: 'wrk', executable };
  if (kind === 'wrk') throw new Error('--generator wrk: no wrk on PATH (Debian: apt-get install wrk)');
  return { kind: 'autocannon' };
}
