/**
 * The long mixed run (issue 39): realtime PUT from 50 writers measured first, alone on the freshly
 * started service (after the seed import; only the idle-socket memory rows come before it), and
 * again once every other section of the engine's suite has run (documents, queries, boards,
 * rules, hooks, webhooks, fan-out: minutes of mixed load on the same process and database). Whatever a long run leaves behind (WAL, change logs,
 * caches, per-socket structures, heap) shows as the second figure falling behind the first. Each
 * is taken over its bare POST measured in turns with it, so the machine's own drift cancels.
 */
import type { HttpLoadResult } from './http-load.js';
import { serviceWorkloads } from './http-workloads.js';
import { LONG_RUN_FIGURE } from './report.js';
import { walMiB } from './seed-import.js';
import type { PreparedDatabase, RunningService } from './service-process.js';
import type { Engine } from './settings.js';
import { httpRow, loadWorkload, type SuiteContext } from './suites.js';

const WRITERS_PATTERN = /^realtime PUT, \d+ writers$/;
/** What `--match` selects the section by. */
export const LONG_RUN_WORKLOAD = 'realtime PUT, long mixed run';

/** Measures the row once; `when` names the moment in the row's name. */
async function measure(
  context: SuiteContext,
  engine: Engine,
  service: RunningService,
  prepared: PreparedDatabase,
  when: string,
): Promise<HttpLoadResult | null> {
  const workload = serviceWorkloads(context.settings).find((w) => WRITERS_PATTERN.test(w.name));
  if (!workload) return null;
  const load = await loadWorkload(context, context.settings, workload, service, prepared);
  context.result.rows.push(httpRow(`${workload.name}, ${when}`, engine, load, workload.baseline));
  context.log(`  ${workload.name}, ${when}: ${Math.round(load.requestsPerSecond)} req/s`);
  return load;
}

const pairedRatio = (load: HttpLoadResult) => load.requestsPerSecond / (load.baselineRate ?? Number.NaN);

/** The first measurement; run it before any other load on the service. */
export function measureAlone(
  context: SuiteContext,
  engine: Engine,
  service: RunningService,
  prepared: PreparedDatabase,
): Promise<HttpLoadResult | null> {
  return measure(context, engine, service, prepared, 'alone, first after start');
}

/** The second measurement, and the figure: its paired ratio over the first's. */
export async function measureAtEnd(
  context: SuiteContext,
  engine: Engine,
  service: RunningService,
  prepared: PreparedDatabase,
  alone: HttpLoadResult,
): Promise<void> {
  const end = await measure(context, engine, service, prepared, 'at the end of the long mixed run');
  if (!end) return;
  context.result.figures.push({
    name: LONG_RUN_FIGURE,
    server: engine,
    value: pairedRatio(end) / pairedRatio(alone),
    unit: '×',
    detail: `${Math.round(alone.requestsPerSecond)} → ${Math.round(end.requestsPerSecond)} req/s; over bare POST ${pairedRatio(alone).toFixed(2)} → ${pairedRatio(end).toFixed(2)}`,
  });
}

/** SQLite: the WAL's size with the service still running, once the whole suite has. */
export function walFigure(context: SuiteContext, engine: Engine, prepared: PreparedDatabase): void {
  context.result.figures.push({
    name: 'SQLite WAL at the end of the run, service running',
    server: engine,
    value: walMiB(prepared.dataDir),
    unit: 'MiB',
  });
}
