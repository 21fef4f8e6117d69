/**
 * The same-run baselines: this machine's limit for each kind of work. Bare Fastify routes and a
 * bare `ws` broadcast server in their own process (bench/baseline-server.ts), and Redis sorted
 * sets over the leaderboard's scores (a unique key under the deployment prefix, deleted after).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { ChildServer, cleanEnv, freePort } from './child.js';
import { statOf } from './datasets.js';
import { quantile } from './http-load.js';
import type { BenchSettings } from './settings.js';

/** The baseline process. */
export interface BaselineServer {
  httpUrl: string;
  wsUrl: string;
  server: ChildServer;
  stop(): Promise<void>;
}

/** One measured Redis command. */
export interface RedisResult {
  command: string;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** Starts bench/baseline-server.ts and waits until it answers. */
export async function startBaselines(): Promise<BaselineServer> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-bench-baseline-'));
  const [httpPort, wsPort] = [await freePort(), await freePort()];
  const env = cleanEnv({ BENCH_HTTP_PORT: String(httpPort), BENCH_WS_PORT: String(wsPort) });
  const spawnedAt = performance.now();
  const server = ChildServer.spawn('bench/baseline-server.ts', env, join(dir, 'baseline.log'));
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  const stop = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await server.waitFor(`${httpUrl}/bare/doc`, spawnedAt, 60_000);
    return { httpUrl, wsUrl: `ws://127.0.0.1:${wsPort}`, server, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

const MAX_SAMPLES = 2_000_000;

/** `concurrency` callers in a closed loop for `seconds`, over one pipelining connection. */
async function closedLoop(
  seconds: number,
  concurrency: number,
  operation: (i: number) => Promise<unknown>,
): Promise<Omit<RedisResult, 'command'>> {
  const samples = new Float64Array(MAX_SAMPLES);
  let n = 0;
  let issued = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const caller = async () => {
    while (performance.now() < deadline && n < MAX_SAMPLES) {
      const at = performance.now();
      await operation(issued++);
      samples[n++] = performance.now() - at;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  const elapsed = (performance.now() - started) / 1000;
  return {
    requests: n,
    requestsPerSecond: n / elapsed,
    p50Ms: quantile(samples, n, 0.5),
    p99Ms: quantile(samples, n, 0.99),
  };
}

/** ZREVRANK, ZREVRANGE at offset 0 and at the middle, and ZADD over the board's scores. */
export async function runRedisBaselines(settings: BenchSettings, log: (line: string) => void): Promise<RedisResult[]> {
  const redis = new Redis(settings.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  const key = `${settings.redisPrefix}:bench:${randomBytes(6).toString('hex')}`;
  try {
    const n = settings.boardEntries;
    for (let from = 1; from <= n; from += 10_000) {
      const args: (string | number)[] = [];
      for (let g = from; g < Math.min(from + 10_000, n + 1); g++) args.push(statOf(g), String(g));
      await redis.zadd(key, ...args);
    }
    const member = (i: number) => String(1 + ((i * 104_729) % n));
    const middle = Math.floor(n / 2);
    const commands: [string, (i: number) => Promise<unknown>][] = [
      ['ZREVRANK', (i) => redis.zrevrank(key, member(i))],
      ['ZREVRANGE 0 99 WITHSCORES', () => redis.zrevrange(key, 0, 99, 'WITHSCORES')],
      [`ZREVRANGE ${middle} +99 WITHSCORES`, () => redis.zrevrange(key, middle, middle + 99, 'WITHSCORES')],
      ['ZADD', (i) => redis.zadd(key, (i * 31) % 100_000, member(i))],
    ];
    const results: RedisResult[] = [];
    for (const [command, operation] of commands) {
      if (settings.warmupSeconds > 0) await closedLoop(settings.warmupSeconds, settings.connections, operation);
      const result = { command, ...(await closedLoop(settings.durationSeconds, settings.connections, operation)) };
      log(`  redis ${command}: ${Math.round(result.requestsPerSecond)} ops/s`);
      results.push(result);
    }
    return results;
  } finally {
    await redis.del(key);
    redis.disconnect();
  }
}
