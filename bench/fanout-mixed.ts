/**
 * Mixed fan-out workload (§4, the realtime issue's shape): N WebSocket subscribers on one path and M on distinct paths, one writer
 * committing as fast as a window of in-flight writes allows (half the writes on the shared path,
 * half round-robin on the distinct ones), for a fixed time. Reports writes/s, delivered
 * messages/s, write→delivery latency p50/p99 and lost messages, for the real service on each
 * engine and for a bare `ws` broadcast server of the same messages, in the same run. Loopback
 * only; clients run in a worker thread; every wait is bounded.
 *
 * Standalone: `npx tsx bench/fanout-mixed.ts [--quick] [--engines sqlite,postgres] [--no-baseline]`.
 * Environment: CDS_BENCH_DATABASE_URL (default the local test database).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { Storage } from '../src/core/ports.js';
import { PostgresStorage, quoteIdent } from '../src/storage/postgres/postgres-storage.js';
import { startBareBroadcast } from './bare-broadcast.js';
import type { ClientCommand, ClientReport } from './fanout-mixed-clients.js';

/** Settings of one run. */
export interface FanoutBenchOptions {
  quick: boolean;
  engines: ('sqlite' | 'postgres')[];
  /** Also measure the bare `ws` broadcast server (default true). */
  baseline?: boolean;
  log: (line: string) => void;
}

/** One measured server. */
export interface FanoutRow extends ClientReport {
  server: string;
  writesPerSecond: number;
  deliveredPerSecond: number;
  peakRssMiB: number;
  /** Write→delivery latency with one write at a time (the §4 "unloaded" figure). */
  unloadedP50Ms: number;
  unloadedP99Ms: number;
}

/** Everything a run measured. */
export interface FanoutBenchResult {
  shared: number;
  distinct: number;
  durationMs: number;
  window: number;
  rows: FanoutRow[];
}

const DATABASE_URL = process.env.CDS_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CLIENTS_URL = new URL('./fanout-mixed-clients.ts', import.meta.url).href;
const WINDOW = 16;
const MAX_WRITES = 2_000_000;
const UNLOADED_WRITES = 200;

/** A server under test: where clients connect, with which headers, and how to stop it. */
interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  stop(): Promise<void>;
}

class ClientWorker {
  // The worker runs TypeScript too: it registers tsx's loader itself, as workers do not inherit it.
  private readonly worker = new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(CLIENTS_URL)}); });`,
    { eval: true },
  );
  private failure: Error | null = null;

  constructor() {
    this.worker.on('error', (error) => {
      this.failure = error;
    });
  }

  request<T>(command: ClientCommand, timeoutMs = 180_000): Promise<T> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      const onError = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      const timer = setTimeout(() => {
        this.worker.off('error', onError);
        reject(new Error(`${command.type}: no answer from the client worker`));
      }, timeoutMs);
      this.worker.once('error', onError);
      this.worker.once('message', (message: { type: string; message?: string }) => {
        clearTimeout(timer);
        this.worker.off('error', onError);
        if (message.type === 'error') reject(new Error(message.message));
        else resolve(message as T);
      });
    });
  }

  send<T>(command: ClientCommand): Promise<T> {
    const answer = this.request<T>(command);
    this.worker.postMessage(command);
    return answer;
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function startService(engine: 'sqlite' | 'postgres'): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-bench-'));
  const schema = `cds_bench_${process.pid}_${Date.now()}`;
  let storage: Storage | undefined;
  if (engine === 'postgres') storage = await PostgresStorage.open({ connectionString: DATABASE_URL, schema });
  const config = loadConfig({ CDS_JWT_SECRET: 'b'.repeat(40), CDS_LOG_LEVEL: 'silent', CDS_DATA_DIR: dataDir });
  const app = await buildApp(config, storage ? { storage } : {});
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.http.server.address() as AddressInfo;
  const project = await app.services.accounts.createProject('bench', 'fanout');
  const user = await app.services.accounts.createUser(project.project_id, {
    username: 'bench',
    password: 'bench-password',
  });
  const { access_token } = await app.services.accounts.issueToken(project.project_id, user.id);
  return {
    name: `cds on ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
    url: `ws://127.0.0.1:${port}/realtime/ws`,
    headers: {
      'x-client-id': project.client_id,
      'x-client-secret': project.client_secret,
      authorization: `Bearer ${access_token}`,
    },
    async stop() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (engine === 'postgres') {
        const client = new pg.Client({ connectionString: DATABASE_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
        await client.end();
      }
    },
  };
}

async function startBaseline(): Promise<Target> {
  const server = await startBareBroadcast();
  return { name: 'bare ws broadcast', url: server.url, headers: {}, stop: () => server.close() };
}

async function measure(target: Target, shared: number, distinct: number, durationMs: number): Promise<FanoutRow> {
  const clients = new ClientWorker();
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 100);
  try {
    await clients.send({ type: 'connect', url: target.url, headers: target.headers, shared, distinct });
    const { report } = await clients.send<{ report: ClientReport }>({
      type: 'run',
      durationMs,
      window: WINDOW,
      maxWrites: MAX_WRITES,
      gapMs: 0,
    });
    // Then one write at a time, a few milliseconds apart: latency without queueing.
    const { report: unloaded } = await clients.send<{ report: ClientReport }>({
      type: 'run',
      durationMs: 10_000,
      window: 1,
      maxWrites: UNLOADED_WRITES,
      gapMs: 5,
    });
    await clients.send({ type: 'close' });
    return {
      server: target.name,
      ...report,
      unloadedP50Ms: unloaded.latencyP50Ms,
      unloadedP99Ms: unloaded.latencyP99Ms,
      writesPerSecond: report.writes / (report.elapsedMs / 1000),
      deliveredPerSecond: report.delivered / (report.elapsedMs / 1000),
      peakRssMiB: peakRss / 2 ** 20,
    };
  } finally {
    clearInterval(sampler);
    await clients.terminate();
  }
}

/** Runs the workload against the baseline and the service on each engine. */
export async function runMixedFanoutBench(options: FanoutBenchOptions): Promise<FanoutBenchResult> {
  const shared = options.quick ? 200 : 1000;
  const distinct = options.quick ? 20 : 100;
  const durationMs = options.quick ? 2_000 : 10_000;
  const starters: [string, () => Promise<Target>][] = options.baseline === false ? [] : [['baseline', startBaseline]];
  for (const engine of options.engines) {
    if (engine === 'postgres' && !(await postgresReachable())) {
      options.log(`[skip] fan-out on PostgreSQL: not reachable at ${DATABASE_URL}`);
      continue;
    }
    starters.push([engine, () => startService(engine)]);
  }
  const rows: FanoutRow[] = [];
  for (const [name, start] of starters) {
    options.log(`fan-out: ${name}, ${shared} + ${distinct} subscribers, ${durationMs / 1000} s`);
    const target = await start();
    try {
      rows.push(await measure(target, shared, distinct, durationMs));
    } finally {
      await target.stop();
    }
  }
  return { shared, distinct, durationMs, window: WINDOW, rows };
}

const format = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';

/** The result as a Markdown table (BENCHMARKS.md). */
export function mixedFanoutMarkdown(result: FanoutBenchResult): string {
  const lines = [
    `${result.shared} subscribers on one path + ${result.distinct} on distinct paths; one writer, ${result.window} writes in flight, ${result.durationMs / 1000} s; half the writes on the shared path. Unloaded: ${UNLOADED_WRITES} writes one at a time, 5 ms apart.`,
    '',
    '| server | writes/s | delivered msg/s | latency p50 (ms) | latency p99 (ms) | unloaded p50 / p99 (ms) | delivered / expected | closed early | peak RSS (MiB) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of result.rows) {
    lines.push(
      `| ${row.server} | ${format(row.writesPerSecond)} | ${format(row.deliveredPerSecond)} | ${format(row.latencyP50Ms, 1)} | ${format(row.latencyP99Ms, 1)} | ${format(row.unloadedP50Ms, 1)} / ${format(row.unloadedP99Ms, 1)} | ${format(row.delivered)} / ${format(row.expected)} | ${row.closedEarly} | ${format(row.peakRssMiB)} |`,
    );
  }
  return lines.join('\n');
}

function argument(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const engines = (argument('--engines') ?? 'sqlite,postgres').split(',') as ('sqlite' | 'postgres')[];
  const result = await runMixedFanoutBench({
    quick: process.argv.includes('--quick'),
    engines,
    baseline: !process.argv.includes('--no-baseline'),
    log: console.log,
  });
  console.log(mixedFanoutMarkdown(result));
}
