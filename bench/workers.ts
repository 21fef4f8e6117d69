/**
 * The `workers` section (`npm run bench -- --only workers --workers 2`): document GET, a
 * 100-document list, document, realtime and board writes, and fan-out paced and in bursts at the
 * run's audiences against two services running side by side on the
 * same small database (the big datasets change nothing for these requests), one with
 * CDS_WORKERS=1 and one with CDS_WORKERS=N. Each HTTP workload is measured on each service paired
 * in turns with its bare baseline as elsewhere, then on the two services in turns for the N ÷ 1
 * figure. Without Redis, so the N workers broadcast through the primary's IPC relay. The load
 * generator shares the machine's cores.
 */
import { availableParallelism } from 'node:os';
import { type HttpLoadResult, type LoadTarget, runHttpLoad } from './http-load.js';
import { type HttpWorkload, serviceWorkloads } from './http-workloads.js';
import type { Figure } from './report.js';
import {
  clientHeaders,
  type PreparedDatabase,
  prepareDatabase,
  type RunningService,
  startService,
} from './service-process.js';
import type { BenchSettings, Engine } from './settings.js';
import { fanoutRows, httpRow, loadWorkload, type SuiteContext, serviceTarget } from './suites.js';

/** Reads and the three kinds of write (document, realtime, board): which gain from a second worker. */
const workloadNames = (settings: BenchSettings) => [
  'document GET',
  'list (limit=100)',
  'document PUT (upsert)',
  `realtime PUT, ${settings.connections} writers`,
  'leaderboard stat submission',
];
/**
 * Warm-up of each workload per worker. With 2 s shared by two just-started workers, V8 was still
 * compiling their code while measured: 1.5–2× the CPU per request of one process, gone after 20 s.
 */
const MIN_WARMUP_SECONDS = 5;
/** Slices of the N-worker service, each after a slice of the one-worker service. */
const HEAD_TO_HEAD_ROUNDS = 8;

/** Small datasets (the workloads read and write single documents); fan-out at the run's audiences. */
function smallSettings(settings: BenchSettings): BenchSettings {
  return {
    ...settings,
    pacedWrites: Math.min(settings.pacedWrites, 60),
    bursts: 1,
    documents: 10_000,
    largeDocuments: 1_000,
    hubDescendants: 100,
    treeLeaves: 1_000,
    subtreeLeaves: 10,
    boardEntries: 1_000,
    datasets: true,
  };
}

/** The paired ratio of a load: the service's rate over its baseline's, measured in turns. */
const pairedRatio = (load: HttpLoadResult) => load.requestsPerSecond / (load.baselineRate ?? Number.NaN);
const fmtUs = (us: number) => us.toFixed(0);

/** A running service per worker count, each on the same database. */
type Services = Map<number, RunningService>;

/** Runs the section on one engine: rows per workload and worker count, and the N ÷ 1 figures. */
export async function runWorkersSuite(context: SuiteContext, engine: Engine): Promise<void> {
  const { result, log } = context;
  const settings = smallSettings(context.settings);
  const counts = [1, Math.max(2, context.settings.workers)] as const;
  log(`workers on ${engine}: CDS_WORKERS=${counts.join(' and ')}, side by side`);
  const prepared = await prepareDatabase(engine, settings);
  const services: Services = new Map();
  try {
    for (const workers of counts) {
      const service = await startService(prepared, undefined, workers);
      services.set(workers, service);
      log(`  CDS_WORKERS=${workers}: ready in ${service.readyMs.toFixed(0)} ms`);
    }
    for (const workload of serviceWorkloads(settings).filter((w) => workloadNames(settings).includes(w.name))) {
      const loads: HttpLoadResult[] = [];
      for (const [workers, service] of services) {
        // Each worker compiles its own hot code: it gets as long a warm-up as one process alone.
        const warmupSeconds = Math.max(MIN_WARMUP_SECONDS, settings.warmupSeconds) * workers;
        const load = await loadWorkload(context, { ...settings, warmupSeconds }, workload, service, prepared);
        result.rows.push(httpRow(`${workload.name} (CDS_WORKERS=${workers})`, engine, load, workload.baseline));
        loads.push(load);
        log(`  ${workload.name} (CDS_WORKERS=${workers}): ${Math.round(load.requestsPerSecond)} req/s`);
      }
      const headToHead = await alternate(settings, workload, services, counts, prepared);
      result.figures.push(workersFigure(workload.name, engine, counts[1], headToHead, loads));
    }
    for (const [workers, service] of services) {
      const target = { url: service.wsUrl, headers: clientHeaders(prepared.project) };
      const label = ` (CDS_WORKERS=${workers})`;
      await fanoutRows({ ...context, settings }, engine, target, { url: context.bare.wsUrl, headers: {} }, label);
    }
  } finally {
    for (const service of services.values()) {
      const code = await service.server.stop();
      if (code !== 0) log(`  service exited with ${code}; log: ${service.server.logFile}`);
    }
    await prepared.drop();
  }
}

/**
 * The N-worker service loaded in turns with the one-worker service, slice after slice, so the
 * ratio of their rates comes from the same minutes of a host whose speed moves (measured one
 * after the other, three runs of one build gave 0.98×, 1.48× and 1.16× on SQLite GET).
 */
function alternate(
  settings: BenchSettings,
  workload: HttpWorkload,
  services: Services,
  counts: readonly [number, number],
  prepared: PreparedDatabase,
): Promise<HttpLoadResult> {
  const target = (service: RunningService | undefined): LoadTarget => {
    if (!service) throw new Error('a service of the section is missing');
    return serviceTarget(settings, workload, service, prepared);
  };
  return runHttpLoad({
    ...target(services.get(counts[1])),
    generator: settings.generator,
    warmupSeconds: 0,
    durationSeconds: settings.durationSeconds,
    rounds: HEAD_TO_HEAD_ROUNDS,
    baselineTarget: target(services.get(counts[0])),
  });
}

/** The N ÷ 1 figure: the rate ratio of the alternated slices, with what each request cost. */
function workersFigure(
  name: string,
  engine: Engine,
  workers: number,
  headToHead: HttpLoadResult,
  [one, many]: HttpLoadResult[],
): Figure {
  const cores = availableParallelism();
  const rounds = headToHead.roundRatios ?? [];
  const detail = [`rounds ${Math.min(...rounds).toFixed(2)}–${Math.max(...rounds).toFixed(2)}`];
  if (one && many) {
    // With every request costing the machine what it did with one worker, more workers can at most
    // fill the idle cores: what the load generator and the database leave is the ceiling.
    const ceiling = Math.min(workers, cores / one.machineBusy);
    detail.push(
      `measured apart: ${(many.requestsPerSecond / one.requestsPerSecond).toFixed(2)} ×`,
      `paired ratios to the bare baseline ${pairedRatio(one).toFixed(2)} → ${pairedRatio(many).toFixed(2)}`,
      `service CPU ${fmtUs(one.serverCpuUs)} → ${fmtUs(many.serverCpuUs)} µs/req`,
      `load generator ${fmtUs(one.generatorCpuUs)} → ${fmtUs(many.generatorCpuUs)} µs/req`,
      `machine busy ${one.machineBusy.toFixed(2)} → ${many.machineBusy.toFixed(2)} cores of ${cores}`,
      `ceiling at one worker's cost per request ${ceiling.toFixed(2)} ×`,
    );
  }
  return {
    name: `${name}: CDS_WORKERS=${workers} ÷ CDS_WORKERS=1, in turns${name === 'document GET' ? ' (target ≥ 1.3)' : ''}`,
    server: engine,
    value: headToHead.requestsPerSecond / (headToHead.baselineRate ?? Number.NaN),
    unit: '×',
    detail: detail.join('; '),
  };
}
