/**
 * The `workers` section (`npm run bench -- --only workers --workers 2`): document GET, document
 * PUT and fan-out against the service with CDS_WORKERS=1, then with CDS_WORKERS=N, in the same
 * run on the same small database (the big datasets change nothing for these requests), each HTTP
 * workload paired in turns with its bare baseline as elsewhere. Without Redis, so the N workers
 * broadcast through the primary's IPC relay. The load generator shares the machine's cores.
 */
import { availableParallelism } from 'node:os';
import type { HttpLoadResult } from './http-load.js';
import { serviceWorkloads } from './http-workloads.js';
import { clientHeaders, prepareDatabase, startService } from './service-process.js';
import type { BenchSettings, Engine } from './settings.js';
import { fanoutRows, httpRow, loadWorkload, type SuiteContext } from './suites.js';

const WORKLOADS = ['document GET', 'list (limit=100)', 'document PUT (upsert)'];
/**
 * Warm-up of each workload per worker. With 2 s shared by two just-started workers, V8 was still
 * compiling their code while measured: 1.5–2× the CPU per request of one process, gone after 20 s.
 */
const MIN_WARMUP_SECONDS = 5;

/** Small datasets (the workloads read and write single documents), fan-out at 100 subscribers. */
function smallSettings(settings: BenchSettings): BenchSettings {
  return {
    ...settings,
    fanoutSubscribers: [100],
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

/** Runs the section on one engine: rows per workload and worker count, and the N ÷ 1 figures. */
export async function runWorkersSuite(context: SuiteContext, engine: Engine): Promise<void> {
  const { result, log } = context;
  const settings = smallSettings(context.settings);
  const counts = [1, Math.max(2, context.settings.workers)];
  log(`workers on ${engine}: CDS_WORKERS=${counts.join(' then ')}`);
  const prepared = await prepareDatabase(engine, settings);
  const loads = new Map<string, HttpLoadResult[]>();
  try {
    for (const workers of counts) {
      const label = ` (CDS_WORKERS=${workers})`;
      const service = await startService(prepared, undefined, workers);
      try {
        log(`  CDS_WORKERS=${workers}: ready in ${service.readyMs.toFixed(0)} ms`);
        // Each worker compiles its own hot code: it gets as long a warm-up as one process alone.
        const warmed = { ...settings, warmupSeconds: Math.max(MIN_WARMUP_SECONDS, settings.warmupSeconds) * workers };
        for (const workload of serviceWorkloads(settings).filter((w) => WORKLOADS.includes(w.name))) {
          const load = await loadWorkload(context, warmed, workload, service, prepared);
          result.rows.push(httpRow(`${workload.name}${label}`, engine, load, workload.baseline));
          loads.set(workload.name, [...(loads.get(workload.name) ?? []), load]);
          log(`  ${workload.name}${label}: ${Math.round(load.requestsPerSecond)} req/s`);
        }
        const target = { url: service.wsUrl, headers: clientHeaders(prepared.project) };
        await fanoutRows({ ...context, settings }, engine, target, { url: context.bare.wsUrl, headers: {} }, label);
      } finally {
        const code = await service.server.stop();
        if (code !== 0) log(`  service exited with ${code}; log: ${service.server.logFile}`);
      }
    }
  } finally {
    await prepared.drop();
  }
  const cores = availableParallelism();
  for (const [name, [one, many]] of loads) {
    if (!one || !many) continue;
    // With every request costing the machine what it did with one worker, more workers can at most
    // fill the idle cores: what the load generator and the database leave is the ceiling.
    const ceiling = Math.min(counts[1] ?? 1, cores / one.machineBusy);
    result.figures.push({
      name: `${name}: CDS_WORKERS=${counts[1]} ÷ CDS_WORKERS=1${name === 'document GET' ? ' (target ≥ 1.3)' : ''}`,
      server: engine,
      value: many.requestsPerSecond / one.requestsPerSecond,
      unit: '×',
      detail: [
        `paired ratios to the bare baseline ${pairedRatio(one).toFixed(2)} → ${pairedRatio(many).toFixed(2)}`,
        `service CPU ${fmtUs(one.serverCpuUs)} → ${fmtUs(many.serverCpuUs)} µs/req`,
        `load generator ${fmtUs(one.generatorCpuUs)} → ${fmtUs(many.generatorCpuUs)} µs/req`,
        `machine busy ${one.machineBusy.toFixed(2)} → ${many.machineBusy.toFixed(2)} cores of ${cores}`,
        `ceiling at one worker's cost per request ${ceiling.toFixed(2)} ×`,
      ].join('; '),
    });
  }
}
