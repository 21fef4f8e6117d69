/**
 * `npx tsx bench/scale-out.ts [--quick] [--seconds N] [--connections N] [--from-source]`: the service on one
 * PostgreSQL schema and one Redis prefix as one instance, then as two instances under the same
 * load (the same autocannon connections, split evenly between the two URLs: round robin by
 * connection, no proxy hop), and the cross-instance fan-out latency: a write on one instance to
 * subscribers on the other, unloaded and under a paced load. Prints Markdown for BENCHMARKS.md
 * and writes bench/results/scale-out.json. Loopback only; every load is bounded in time. Each
 * instance runs the build as `npm start` does (bench/service-entry.ts; its sources with
 * `--from-source`).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import WebSocket from 'ws';
import { loadConfig } from '../src/config.js';
import { createdUser } from '../src/core/auth/auth-service.js';
import { PLAYER_ROLE } from '../src/core/auth/player-role.js';
import { createServices } from '../src/services.js';
import { PostgresStorage, quoteIdent } from '../src/storage/postgres/postgres-storage.js';
import { ChildServer, cleanEnv, freePort, sleep, startScriptNodeFlags } from './child.js';
import { type LoadGenerator, machineCpuSeconds } from './http-load.js';
import { serviceCommand, serviceEntry } from './service-entry.js';
import { loadGenerator } from './settings.js';
import { runWrk } from './wrk-load.js';

/** How a run is shaped. */
export interface ScaleOutOptions {
  databaseUrl: string;
  redisUrl: string;
  /** Measured seconds per HTTP load (after a 2 s warm-up). */
  seconds: number;
  /** Connections of every load, whatever the number of instances. */
  connections: number;
  generator: LoadGenerator;
  /** Writes of the unloaded latency probe, and seconds of the paced fan-out. */
  probes: number;
  fanoutSeconds: number;
  /** Only the HTTP workloads whose name contains this (`--match`); the latency probes then run only without it. */
  match?: string;
  log: (line: string) => void;
}

/** One HTTP load's figures. */
export interface ThroughputRow {
  workload: string;
  instances: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Cores of the machine busy during the load (every process: instances, databases, load generator). */
  machineBusy: number;
}

/** One latency measurement: time from a writer's send to a subscriber's receipt. */
export interface LatencyRow {
  case: string;
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Everything a run measured. */
export interface ScaleOutResult {
  machine: string;
  startedAt: string;
  options: Omit<ScaleOutOptions, 'log'>;
  throughput: ThroughputRow[];
  latency: LatencyRow[];
}

interface Workload {
  name: string;
  request: (i: number) => { method: 'GET' | 'PUT'; path: string; body?: string };
}

const WORKLOADS: Workload[] = [
  { name: 'document GET', request: (i) => ({ method: 'GET', path: `/documents/docs/bench/d${i % 100}` }) },
  {
    name: 'document PUT',
    request: (i) => ({ method: 'PUT', path: `/documents/docs/bench/w${i % 1000}`, body: `{"data":{"i":${i}}}` }),
  },
  {
    name: 'realtime PUT (one project)',
    request: (i) => ({ method: 'PUT', path: `/realtime/db/bench/r${i % 100}`, body: `{"value":${i}}` }),
  },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

function summary(name: string, samples: number[]): LatencyRow {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    case: name,
    samples: sorted.length,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.at(-1) ?? Number.NaN,
  };
}

/** A fresh schema with a project, one user per connection, and 100 documents to read. */
async function prepare(options: ScaleOutOptions) {
  const schema = `cds_bench_scale_${randomBytes(5).toString('hex')}`;
  const jwtSecret = randomBytes(32).toString('hex');
  const storage = await PostgresStorage.open({ connectionString: options.databaseUrl, schema });
  const env = { DATABASE_URL: options.databaseUrl, CDS_DATABASE_SCHEMA: schema, CDS_JWT_SECRET: jwtSecret };
  try {
    const services = createServices(loadConfig(env), storage);
    const project = await services.accounts.createProject('bench', 'scale-out');
    const headers: Record<string, string>[] = [];
    for (let i = 0; i < options.connections; i++) {
      const user = createdUser(
        await storage.accounts.createUser(project.project_id, {
          username: `scale_${i}`,
          passwordHash: null,
          nickname: `Scale ${i}`,
          roles: [PLAYER_ROLE],
        }),
      );
      const { access_token } = await services.auth.issueAccessToken(project.project_id, user.id);
      headers.push({
        'x-client-id': project.client_id,
        'x-client-secret': project.client_secret,
        authorization: `Bearer ${access_token}`,
      });
    }
    for (let i = 0; i < 100; i++)
      await services.documents.put(project.project_id, `bench/d${i}`, { i, text: 'x'.repeat(200) });
    await services.leaderboards.stop();
    return { schema, env, headers };
  } finally {
    await storage.close();
  }
}

/** Runs one workload over `targets` with the connections split evenly between them. */
async function load(
  targets: string[],
  workload: Workload,
  headers: Record<string, string>[],
  connections: number,
  seconds: number,
  generator: LoadGenerator,
): Promise<Omit<ThroughputRow, 'workload' | 'instances' | 'machineBusy'>> {
  if (generator.kind === 'wrk')
    return loadWithWrk(generator.executable, targets, workload, headers, connections, seconds);
  let counter = 0;
  const latencies: number[] = [];
  let answered = 0;
  let errors = 0;
  const runs = targets.map((url, t) => {
    let connection = t * Math.floor(connections / targets.length);
    let finish: (error: unknown, result: autocannon.Result) => void = () => {};
    const done = new Promise<autocannon.Result>((resolve, reject) => {
      finish = (error, result) => (error ? reject(error) : resolve(result));
    });
    const instance = autocannon(
      {
        url,
        connections: Math.floor(connections / targets.length),
        duration: seconds,
        timeout: 10,
        setupClient: (client) => {
          client.setHeaders({ 'content-type': 'application/json', ...headers[connection++ % headers.length] });
        },
        requests: [
          {
            setupRequest: (request) => {
              const next = workload.request(counter++);
              return { ...request, method: next.method, path: next.path, body: next.body };
            },
          },
        ],
      },
      (error: unknown, result: autocannon.Result) => finish(error, result),
    );
    instance.on('response', (_client, status, _bytes, responseTime) => {
      if (status === 200) {
        answered += 1;
        latencies.push(responseTime);
      } else errors += 1;
    });
    // autocannon stops itself after `duration`; this bounds a run whose server stopped answering.
    const guard = setTimeout(() => instance.stop(), (seconds + 30) * 1000);
    return done.then((result) => {
      clearTimeout(guard);
      errors += result.errors + result.timeouts;
      return result.duration;
    });
  });
  const durations = await Promise.all(runs);
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: answered / Math.max(...durations),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    errors,
  };
}

/** `load` with one wrk process per target, each with its share of the connections and users. */
async function loadWithWrk(
  executable: string,
  targets: string[],
  workload: Workload,
  headers: Record<string, string>[],
  connections: number,
  seconds: number,
): Promise<Omit<ThroughputRow, 'workload' | 'instances' | 'machineBusy'>> {
  const share = Math.floor(connections / targets.length);
  const slices = await Promise.all(
    targets.map((baseUrl, t) =>
      runWrk(
        executable,
        {
          baseUrl,
          connections: share,
          expectStatus: 200,
          headers: (c) => headers[(t * share + c) % headers.length] ?? {},
          // Each target writes its own part of the paths' sequence, as autocannon's shared counter spreads them.
          request: (i) => workload.request(i * targets.length + t),
        },
        seconds,
      ),
    ),
  );
  const histogram = slices.flatMap((slice) => slice.latencies).sort(([a], [b]) => a - b);
  return {
    requestsPerSecond: slices.reduce((sum, slice) => sum + slice.answered / slice.seconds, 0),
    p50Ms: histogramQuantile(histogram, 0.5),
    p99Ms: histogramQuantile(histogram, 0.99),
    errors: slices.reduce((sum, slice) => sum + slice.unexpected + slice.errors, 0),
  };
}

function histogramQuantile(histogram: Array<[number, number]>, q: number): number {
  const total = histogram.reduce((sum, [, count]) => sum + count, 0);
  let seen = 0;
  for (const [value, count] of histogram) {
    seen += count;
    if (seen > q * total) return value;
  }
  return Number.NaN;
}

/** Opens a socket and subscribes it to `path`, resolving once its `init` arrived. */
function subscriber(url: string, headers: Record<string, string>, path: string, onValue: (value: number) => void) {
  return new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => ws.send(JSON.stringify({ action: 'subscribe', path, id: 1 })));
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { event: string; value?: unknown };
      if (message.event === 'init') resolve(ws);
      else if (message.event === 'update' && typeof message.value === 'number') onValue(message.value);
    });
    ws.on('error', reject);
  });
}

/** Sends `count` sets of `path` from a socket on `writerUrl`, `gapMs` apart; the value is the send time. */
async function paced(writerUrl: string, headers: Record<string, string>, path: string, count: number, gapMs: number) {
  const writer = await new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(writerUrl, { headers });
    ws.on('open', () => resolve(ws));
    ws.on('error', reject);
  });
  for (let i = 0; i < count; i++) {
    writer.send(JSON.stringify({ action: 'set', path, value: performance.now() }));
    await sleep(gapMs);
  }
  await sleep(500);
  writer.close();
}

/** Cross-instance latency: unloaded (one subscriber), then a paced fan-out to 100 subscribers per instance. */
async function latencies(wsUrls: [string, string], headers: Record<string, string>[], options: ScaleOutOptions) {
  const [a, b] = wsUrls;
  const rows: LatencyRow[] = [];
  for (const [name, to] of [
    ['unloaded, subscriber on the other instance', b],
    ['unloaded, subscriber on the writer’s instance', a],
  ] as const) {
    const samples: number[] = [];
    const ws = await subscriber(to, headers[1] ?? {}, 'probe', (sent) => samples.push(performance.now() - sent));
    await paced(a, headers[0] ?? {}, 'probe', options.probes, 10);
    ws.close();
    rows.push(summary(name, samples));
  }
  const other: number[] = [];
  const same: number[] = [];
  const sockets = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      subscriber(i % 2 ? b : a, headers[i % headers.length] ?? {}, 'fan', (sent) =>
        (i % 2 ? other : same).push(performance.now() - sent),
      ),
    ),
  );
  await paced(a, headers[0] ?? {}, 'fan', options.fanoutSeconds * 50, 20);
  for (const ws of sockets) ws.close();
  rows.push(summary('50 writes/s to 100 subscribers per instance: the other instance', other));
  rows.push(summary('50 writes/s to 100 subscribers per instance: the writer’s instance', same));
  return rows;
}

/** Starts one instance on the prepared schema (the build, as `npm start` runs it) and waits for /readyz. */
async function startInstance(env: Record<string, string>, dir: string, name: string) {
  const port = await freePort();
  const server = ChildServer.spawn(
    serviceEntry(),
    // One process per instance: this bench measures instances sharing Redis, not workers.
    cleanEnv({ ...env, PORT: String(port), HOST: '127.0.0.1', CDS_DATA_DIR: join(dir, name), CDS_WORKERS: '1' }),
    join(dir, `${name}.log`),
    startScriptNodeFlags(),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await server.waitFor(`${baseUrl}/readyz`, performance.now());
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { server, baseUrl, wsUrl: `ws://127.0.0.1:${port}/realtime/ws` };
}

/** Runs the whole scale-out benchmark; always stops what it started and drops its schema. */
export async function runScaleOutBench(options: ScaleOutOptions): Promise<ScaleOutResult> {
  const { log, ...shape } = options;
  serviceEntry(); // builds first when the build is older than the sources
  const result: ScaleOutResult = {
    machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; service: ${serviceCommand()}`,
    startedAt: new Date().toISOString(),
    options: shape,
    throughput: [],
    latency: [],
  };
  const dir = mkdtempSync(join(tmpdir(), 'cds-bench-scale-'));
  const prepared = await prepare(options);
  const prefix = `cds_bench_${randomBytes(4).toString('hex')}`;
  const env = { ...prepared.env, REDIS_URL: options.redisUrl, CDS_REDIS_PREFIX: prefix };
  const servers: ChildServer[] = [];
  const measure = async (targets: string[]) => {
    for (const workload of WORKLOADS.filter((w) => !options.match || w.name.includes(options.match))) {
      const { connections, generator } = options;
      await load(targets, workload, prepared.headers, connections, 2, generator);
      const machineBefore = machineCpuSeconds();
      const started = performance.now();
      const figures = await load(targets, workload, prepared.headers, connections, options.seconds, generator);
      const machineBusy = (machineCpuSeconds() - machineBefore) / ((performance.now() - started) / 1000);
      result.throughput.push({ workload: workload.name, instances: targets.length, ...figures, machineBusy });
      log(`  ${targets.length} instance(s), ${workload.name}: ${Math.round(figures.requestsPerSecond)} req/s`);
    }
  };
  try {
    const a = await startInstance(env, dir, 'a');
    servers.push(a.server);
    await measure([a.baseUrl]);
    const b = await startInstance(env, dir, 'b');
    servers.push(b.server);
    if (!options.match) {
      log('  cross-instance latency');
      result.latency = await latencies([a.wsUrl, b.wsUrl], prepared.headers, options);
    }
    await measure([a.baseUrl, b.baseUrl]);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    const client = new pg.Client({ connectionString: options.databaseUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(prepared.schema)} CASCADE`).finally(() => client.end());
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');

/** Two instances over one: the tree writes of one project must reach 1.5× (issue 21). */
const SCALE_TARGETS: Record<string, number> = { 'realtime PUT (one project)': 1.5 };

function scaleOutTargets(result: ScaleOutResult): string[] {
  const lines: string[] = [];
  for (const [workload, target] of Object.entries(SCALE_TARGETS)) {
    const rate = (instances: number) =>
      result.throughput.find((row) => row.workload === workload && row.instances === instances)?.requestsPerSecond;
    const one = rate(1);
    const two = rate(2);
    if (one === undefined || two === undefined) continue;
    const ratio = two / one;
    // What a second instance could add at most if every request cost the machine what it did with one.
    const busy = result.throughput.find((row) => row.workload === workload && row.instances === 1)?.machineBusy;
    const ceiling = busy
      ? `; ceiling ${(cpus().length / busy).toFixed(2)}× (${cpus().length} cores ÷ ${busy.toFixed(2)} busy with one)`
      : '';
    lines.push(
      `| ${workload}: two instances ≥ ${target}× one | ${ratio.toFixed(2)}×${ceiling} | ${ratio >= target ? 'met' : '**missed**'} |`,
    );
  }
  return lines.length === 0 ? [] : ['| target | figure | met |', '|---|---:|---|', ...lines, ''];
}

/** The Markdown of BENCHMARKS.md's scale-out section. */
export function scaleOutMarkdown(result: ScaleOutResult): string {
  const lines = [
    `Machine: ${result.machine}; PostgreSQL, Redis, both instances and the load generator on the same host.`,
    '',
    '| workload | instances | req/s | p50 (ms) | p99 (ms) | errors | machine busy (cores) |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...result.throughput.map(
      (row) =>
        `| ${row.workload} | ${row.instances} | ${Math.round(row.requestsPerSecond).toLocaleString('en-US')} | ${ms(row.p50Ms)} | ${ms(row.p99Ms)} | ${row.errors} | ${row.machineBusy.toFixed(2)} |`,
    ),
    '',
    ...scaleOutTargets(result),
    '| cross-instance delivery | deliveries | p50 (ms) | p99 (ms) | max (ms) |',
    '|---|---:|---:|---:|---:|',
    ...result.latency.map(
      (row) =>
        `| ${row.case} | ${row.samples.toLocaleString('en-US')} | ${ms(row.p50Ms)} | ${ms(row.p99Ms)} | ${ms(row.maxMs)} |`,
    ),
  ];
  return lines.join('\n');
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** The options of a standalone or `npm run bench` run. */
export function scaleOutOptions(quick: boolean, log: (line: string) => void): ScaleOutOptions {
  return {
    databaseUrl: process.env.CDS_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    redisUrl: process.env.CDS_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    seconds: Number(argument('--seconds') ?? (quick ? 2 : 10)),
    connections: Number(argument('--connections') ?? 32),
    generator: loadGenerator(argument('--generator')),
    probes: quick ? 50 : 300,
    fanoutSeconds: quick ? 2 : 6,
    ...(argument('--match') ? { match: argument('--match') as string } : {}),
    log,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const result = await runScaleOutBench(scaleOutOptions(process.argv.includes('--quick'), log));
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/scale-out.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${scaleOutMarkdown(result)}\n`);
}
