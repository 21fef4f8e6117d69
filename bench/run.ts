/**
 * `npm run bench [-- --quick] [-- --generator wrk|autocannon] [-- --engines sqlite,postgres] [-- --only http,fanout,memory,redis,disconnect,scale-out,fanout-mixed,workers] [-- --profile] [-- --match <text>] [-- --seconds N --warmup N] [-- --subscribers 100,1000] [-- --workers N] [-- --from-source]`:
 * every workload against the service on each engine and, in the same run, against the bare
 * baselines; the service runs as `npm start` runs it (`dist/src/main.js`, built first when older
 * than the sources; `--from-source`: `src/main.ts` through tsx, bench/service-entry.ts); prints the Markdown of BENCHMARKS.md (progress goes to stderr) and writes the
 * result to bench/results/bench[-quick].json. Loopback only; every loop is bounded in count and time.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import pg from 'pg';
import { startBaselines } from './baselines.js';
import { type FanoutBenchResult, mixedFanoutMarkdown, runMixedFanoutBench } from './fanout-mixed.js';
import { type BenchResult, checkTargets, markdown } from './report.js';
import { runScaleOutBench, type ScaleOutResult, scaleOutMarkdown, scaleOutOptions } from './scale-out.js';
import { serviceCommand, serviceEntry } from './service-entry.js';
import { benchSettings, type Engine, loadGenerator } from './settings.js';
import { runBaselineSuite, runServiceSuite, type Section, type SuiteContext } from './suites.js';
import { runWorkersSuite } from './workers.js';

const SECTIONS: Section[] = ['http', 'fanout', 'memory', 'redis', 'disconnect'];
// Run after the engines' suites: two instances on PostgreSQL and Redis (bench/scale-out.ts).
const SCALE_OUT = 'scale-out';
// The realtime issue's shape: 1,000 subscribers on one path + 100 on distinct paths, one writer
// as fast as it can (bench/fanout-mixed.ts), next to the bare ws server.
const FANOUT_MIXED = 'fanout-mixed';
// Document GET, a 100-document list, PUT and fan-out with CDS_WORKERS=1 and =N (`--workers N`, default 2) side by side (bench/workers.ts).
const WORKERS = 'workers';

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function listArgument<T extends string>(name: string, known: readonly T[]): T[] | undefined {
  const value = argument(name);
  if (value === undefined) return undefined;
  const items = value.split(',').filter((item) => item !== '');
  const unknown = items.filter((item) => !(known as readonly string[]).includes(item));
  if (unknown.length > 0) throw new Error(`${name}: unknown ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return items as T[];
}

/** Whether a test run (vitest) is using the machine right now. */
function testsRunning(): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('pgrep', ['-f', 'vitest'], (error) => resolve(!error));
  });
}

async function postgresReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const quick = process.argv.includes('--quick');
const engines = listArgument<Engine>('--engines', ['sqlite', 'postgres']);
const settings = benchSettings(quick, process.env, engines);
settings.match = argument('--match');
// Longer or shorter HTTP loads than the preset (A/B runs of a few workloads).
const seconds = argument('--seconds');
const warmup = argument('--warmup');
if (seconds !== undefined) settings.durationSeconds = Number(seconds);
if (warmup !== undefined) settings.warmupSeconds = Number(warmup);
settings.generator = loadGenerator(argument('--generator'));
// CDS_WORKERS of the service in the engines' suites, and the count the workers section compares with 1.
const workers = argument('--workers');
if (workers !== undefined) {
  settings.workers = Number(workers);
  if (!Number.isInteger(settings.workers) || settings.workers < 1) throw new Error('--workers: a positive integer');
}
if (process.argv.includes('--profile')) {
  // One .cpuprofile per service process, written when it exits (open it in Chrome DevTools).
  settings.profileDir = new URL('./results/profiles/', import.meta.url).pathname;
}
// The fan-out audiences (default 100 and 1,000 subscribers).
const subscribers = argument('--subscribers');
if (subscribers !== undefined) {
  settings.fanoutSubscribers = subscribers.split(',').map(Number);
  if (!settings.fanoutSubscribers.every((n) => Number.isSafeInteger(n) && n > 0))
    throw new Error(`--subscribers: positive integers, not ${subscribers}`);
}
const only = listArgument('--only', [...SECTIONS, SCALE_OUT, FANOUT_MIXED, WORKERS]);
const sections = new Set(SECTIONS.filter((section) => !only || only.includes(section)));
// Only the HTTP workloads read the datasets: a fan-out or memory run starts in seconds without them.
settings.datasets = sections.has('http');
let scaleOut: ScaleOutResult | null = null;
let fanoutMixed: FanoutBenchResult | null = null;
const log = (line: string) => process.stderr.write(`${line}\n`);
// Before anything is measured: the build is made when older than the sources, or the run stops.
serviceEntry();
log(`service: ${serviceCommand()}`);

const started = performance.now();
const result: BenchResult = {
  machine: `${process.platform} ${process.arch}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; PostgreSQL, Redis and the load generator (${settings.generator.kind === 'wrk' ? 'wrk, one thread' : 'autocannon, in the bench process'}) on the same host; service: ${serviceCommand()}`,
  quick,
  startedAt: new Date().toISOString(),
  seconds: 0,
  load: '',
  settings,
  rows: [],
  figures: [],
  failures: [],
};
// Sampled through the run: other engineers' test runs share the two cores.
let samples = 0;
let busy = 0;
const sampler = setInterval(() => {
  void testsRunning().then((running) => {
    samples += 1;
    if (running) busy += 1;
  });
}, 5_000);
const loadAtStart = loadavg()[0] ?? 0;
// Up through the engines' suites too: each service workload runs in turns with its baseline.
const bare = await startBaselines();
const context: SuiteContext = { settings, sections, result, log, bare };
/** Runs a suite; a failure is reported with the results instead of ending the run. */
async function attempt(name: string, suite: () => Promise<void>): Promise<void> {
  try {
    await suite();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    log(`[failed] ${name}: ${reason}`);
    result.failures.push(`${name}: ${reason.split('\n')[0]}`);
  }
}

try {
  await attempt('baselines', () => runBaselineSuite(context));
  for (const engine of settings.engines) {
    if (engine === 'postgres' && !(await postgresReachable(settings.databaseUrl))) {
      log(`[skip] PostgreSQL: not reachable at ${settings.databaseUrl}`);
      result.failures.push(`PostgreSQL not reachable at ${settings.databaseUrl}`);
      continue;
    }
    if (sections.size > 0) await attempt(`service on ${engine}`, () => runServiceSuite(context, engine));
    if (!only || only.includes(WORKERS)) await attempt(`workers on ${engine}`, () => runWorkersSuite(context, engine));
  }
  if (!only || only.includes(SCALE_OUT)) {
    log('scale-out: one and two instances on PostgreSQL and Redis');
    await attempt(SCALE_OUT, async () => {
      scaleOut = await runScaleOutBench(scaleOutOptions(quick, log));
    });
  }
  if (!only || only.includes(FANOUT_MIXED)) {
    log('fan-out, mixed: subscribers on one path and on distinct paths, one writer as fast as it can');
    await attempt(FANOUT_MIXED, async () => {
      fanoutMixed = await runMixedFanoutBench({ quick, engines: settings.engines, log });
    });
  }
} finally {
  clearInterval(sampler);
  await bare.stop();
}
result.seconds = (performance.now() - started) / 1000;
result.load =
  busy === 0
    ? `no test run seen on the machine during the run (load average ${loadAtStart.toFixed(2)} at start)`
    : `machine busy: a test run was seen in ${busy} of ${samples} samples`;

mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const file = new URL(`./results/bench${quick ? '-quick' : ''}.json`, import.meta.url);
writeFileSync(
  file,
  `${JSON.stringify({ ...result, targets: checkTargets(result), scaleOut, fanoutMixed }, null, 2)}\n`,
);
process.stdout.write(`${markdown(result)}\n`);
if (scaleOut) process.stdout.write(`\n### Scale-out\n\n${scaleOutMarkdown(scaleOut)}\n`);
if (fanoutMixed) process.stdout.write(`\n### Fan-out, mixed\n\n${mixedFanoutMarkdown(fanoutMixed)}\n`);
log(`done in ${result.seconds.toFixed(0)} s; results in ${file.pathname}`);
