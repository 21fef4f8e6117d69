/**
 * Leaderboard workload (§5 performance): 1,000,000 entries in one league on each engine, bulk
 * loaded through SQL; the rank structure's rebuild time from the database; p50/p99 of a `me`
 * rank, a users page at offset 0 and at offset 500,000, and a stat submission, through the
 * leaderboard service; next to Redis ZREVRANK / ZREVRANGE on the same scores in the same run.
 *
 * Standalone: `npx tsx bench/leaderboard.ts [--entries N] [--engines sqlite,postgres] [--no-redis]`.
 * Environment: CDS_BENCH_DATABASE_URL (default the test database), CDS_BENCH_REDIS_URL
 * (default redis://127.0.0.1:6379), CDS_REDIS_PREFIX (default cds).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { systemClock } from '../src/core/clock.js';
import { createLeaderboards } from '../src/core/leaderboards/create-leaderboards.js';
import { ANTI_CHEAT_DEFAULTS, TOURNAMENT_DEFAULTS } from '../src/core/leaderboards/leaderboard-model.js';
import type { LeaderboardService } from '../src/core/leaderboards/leaderboard-service.js';
import { MemoryRankCache } from '../src/core/leaderboards/memory-rank-cache.js';
import type { Storage } from '../src/core/ports.js';
import { PostgresStorage, quoteIdent } from '../src/storage/postgres/postgres-storage.js';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { DISTINCT_STATS, loadBoardEntries, statOf, timeOf } from './datasets.js';

/** Settings of one run. */
export interface LeaderboardBenchOptions {
  entries: number;
  engines: ('sqlite' | 'postgres')[];
  redis: boolean;
  /** Samples per read operation (writes take a quarter). */
  samples: number;
  log: (line: string) => void;
}

/** One measured operation. */
export interface OperationResult {
  engine: string;
  operation: string;
  samples: number;
  p50Ms: number;
  p99Ms: number;
}

/** Everything a run measured. */
export interface LeaderboardBenchResult {
  entries: number;
  loadSeconds: Record<string, number>;
  rebuildSeconds: Record<string, number>;
  operations: OperationResult[];
}

const PROJECT = 1;
const SLUG = 'bench';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Times `samples` sequential calls of `operation` (after a short warm-up). */
async function measure(
  engine: string,
  name: string,
  samples: number,
  operation: (i: number) => Promise<unknown>,
): Promise<OperationResult> {
  for (let i = 0; i < Math.min(50, samples); i++) await operation(i);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = process.hrtime.bigint();
    await operation(i);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { engine, operation: name, samples, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99) };
}

/** The rank of user `u` among users 1..n by a plain scan: higher stat, then earlier time, then lower id. */
function plainRank(u: number, n: number): number {
  let before = 0;
  for (let g = 1; g <= n; g++) {
    const d = statOf(g) - statOf(u);
    if (d > 0 || (d === 0 && (timeOf(g) < timeOf(u) || (timeOf(g) === timeOf(u) && g < u)))) before++;
  }
  return before + 1;
}

async function openEngine(
  name: 'sqlite' | 'postgres',
  url: string,
): Promise<{ storage: Storage; drop(): Promise<void> }> {
  if (name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'cds-bench-'));
    const storage = SqliteStorage.open(join(dir, 'bench.sqlite'));
    return { storage, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `cds_bench_${randomBytes(4).toString('hex')}`;
  const storage = await PostgresStorage.open({ connectionString: url, schema, poolSize: 8 });
  return {
    storage,
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
      await client.end();
    },
  };
}

async function benchEngine(
  name: 'sqlite' | 'postgres',
  options: LeaderboardBenchOptions,
  url: string,
  result: LeaderboardBenchResult,
) {
  const { storage, drop } = await openEngine(name, url);
  let service: LeaderboardService | null = null;
  try {
    const setup = createLeaderboards({ store: storage.leaderboards, profiles: storage.accounts, clock: systemClock });
    await setup.create(PROJECT, {
      slug: SLUG,
      name: 'Bench',
      description: '',
      type: 'CONTINUOUS',
      sort: 'desc',
      operator: 'latest',
      reset: 'none',
      leagues: [{ slug: 'global', name: 'Global', order: 0, minStat: null, promoteTop: null, demoteBottom: null }],
      rewards: [],
      ...ANTI_CHEAT_DEFAULTS,
      ...TOURNAMENT_DEFAULTS,
    });
    const board = await storage.leaderboards.get(PROJECT, SLUG);
    if (!board) throw new Error('bench board missing');
    let started = performance.now();
    await loadBoardEntries(storage, board.id, options.entries);
    result.loadSeconds[name] = (performance.now() - started) / 1000;
    options.log(`${name}: loaded ${options.entries} entries in ${result.loadSeconds[name]?.toFixed(1)} s`);

    // A fresh service, as at start: the rank structure is rebuilt from the database by keyset batches.
    service = createLeaderboards({
      store: storage.leaderboards,
      profiles: storage.accounts,
      clock: systemClock,
      cache: new MemoryRankCache(),
    });
    started = performance.now();
    await service.warm();
    result.rebuildSeconds[name] = (performance.now() - started) / 1000;
    options.log(`${name}: rank structure rebuilt in ${result.rebuildSeconds[name]?.toFixed(2)} s`);

    const n = options.entries;
    const user = (i: number) => 1 + ((i * 104_729) % n);
    const s = service;
    // The structure must agree with a plain count over the same data before its speed means anything.
    for (const probe of [1, Math.floor(n / 3), n]) {
      const me = (await s.bundle(PROJECT, probe, SLUG, { include: ['me'] })).me;
      if (me?.rank !== plainRank(probe, n))
        throw new Error(`${name}: rank of user ${probe} is ${me?.rank}, expected ${plainRank(probe, n)}`);
    }
    const ops = [
      await measure(name, 'me rank (bundle include=me)', options.samples, (i) =>
        s.bundle(PROJECT, user(i), SLUG, { include: ['me'] }),
      ),
      await measure(name, 'users page offset 0 (limit 100)', options.samples, () =>
        s.users(PROJECT, 1, SLUG, { league: 'global', limit: 100 }),
      ),
      await measure(name, `users page offset ${Math.floor(n / 2)} (limit 100)`, options.samples, () =>
        s.users(PROJECT, 1, SLUG, { league: 'global', offset: Math.floor(n / 2), limit: 100 }),
      ),
      await measure(name, 'stat submission (latest)', Math.max(100, Math.floor(options.samples / 4)), (i) =>
        s.submit(PROJECT, SLUG, user(i * 7 + 3), (i * 31) % DISTINCT_STATS),
      ),
    ];
    for (const op of ops) {
      result.operations.push(op);
      options.log(`${name}: ${op.operation}: p50 ${op.p50Ms.toFixed(3)} ms, p99 ${op.p99Ms.toFixed(3)} ms`);
    }
  } finally {
    await service?.stop();
    await storage.close();
    await drop();
  }
}

async function benchRedis(
  options: LeaderboardBenchOptions,
  url: string,
  result: LeaderboardBenchResult,
): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  // A unique key under the deployment prefix, deleted afterwards.
  const key = `${process.env.CDS_REDIS_PREFIX ?? 'cds'}:bench:${randomBytes(6).toString('hex')}`;
  try {
    const started = performance.now();
    for (let from = 1; from <= options.entries; from += 10_000) {
      const args: (string | number)[] = [];
      for (let g = from; g < Math.min(from + 10_000, options.entries + 1); g++) args.push(statOf(g), String(g));
      await redis.zadd(key, ...args);
    }
    result.loadSeconds.redis = (performance.now() - started) / 1000;
    options.log(`redis: loaded ${await redis.zcard(key)} scores in ${result.loadSeconds.redis.toFixed(1)} s`);
    const n = options.entries;
    const member = (i: number) => String(1 + ((i * 104_729) % n));
    const ops = [
      await measure('redis', 'ZREVRANK', options.samples, (i) => redis.zrevrank(key, member(i))),
      await measure('redis', 'ZREVRANGE 0 99 WITHSCORES', options.samples, () =>
        redis.zrevrange(key, 0, 99, 'WITHSCORES'),
      ),
      await measure('redis', `ZREVRANGE ${Math.floor(n / 2)} +99 WITHSCORES`, options.samples, () =>
        redis.zrevrange(key, Math.floor(n / 2), Math.floor(n / 2) + 99, 'WITHSCORES'),
      ),
      await measure('redis', 'ZADD (one score)', Math.max(100, Math.floor(options.samples / 4)), (i) =>
        redis.zadd(key, (i * 31) % DISTINCT_STATS, member(i * 7 + 3)),
      ),
    ];
    for (const op of ops) {
      result.operations.push(op);
      options.log(`redis: ${op.operation}: p50 ${op.p50Ms.toFixed(3)} ms, p99 ${op.p99Ms.toFixed(3)} ms`);
    }
  } finally {
    await redis.del(key);
    redis.disconnect();
  }
}

/** Runs the in-process leaderboard workload (the HTTP one is part of `npm run bench`). */
export async function runLeaderboardBench(options: LeaderboardBenchOptions): Promise<LeaderboardBenchResult> {
  const result: LeaderboardBenchResult = {
    entries: options.entries,
    loadSeconds: {},
    rebuildSeconds: {},
    operations: [],
  };
  const url = process.env.CDS_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  for (const engine of options.engines) await benchEngine(engine, options, url, result);
  if (options.redis) await benchRedis(options, process.env.CDS_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', result);
  return result;
}

/** The figures as a Markdown table (the format of BENCHMARKS.md). */
export function leaderboardMarkdown(result: LeaderboardBenchResult): string {
  const lines = ['| engine | operation | p50 (ms) | p99 (ms) | samples |', '|---|---|---:|---:|---:|'];
  for (const op of result.operations) {
    lines.push(`| ${op.engine} | ${op.operation} | ${op.p50Ms.toFixed(3)} | ${op.p99Ms.toFixed(3)} | ${op.samples} |`);
  }
  const load = Object.entries(result.loadSeconds)
    .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
    .join(', ');
  const rebuild = Object.entries(result.rebuildSeconds)
    .map(([k, v]) => `${k} ${v.toFixed(2)} s`)
    .join(', ');
  lines.push(
    '',
    `Bulk load of ${result.entries} entries: ${load}. Rank structure rebuilt from the database: ${rebuild}.`,
  );
  return lines.join('\n');
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const engines = (argValue('--engines') ?? 'sqlite,postgres').split(',') as ('sqlite' | 'postgres')[];
  const result = await runLeaderboardBench({
    entries: Number(argValue('--entries') ?? 1_000_000),
    engines,
    redis: !process.argv.includes('--no-redis'),
    samples: Number(argValue('--samples') ?? 2000),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/leaderboard.json', JSON.stringify(result, null, 2));
  process.stdout.write(`${leaderboardMarkdown(result)}\n`);
}
