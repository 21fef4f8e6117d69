/**
 * The two halves of a run: the baselines (bare servers and Redis), and the service on one
 * engine (set-up, start-up, memory, HTTP workloads, fan-out). Each adds rows and figures to the
 * run's result and always stops what it started.
 */
import { type BaselineServer, runRedisBaselines } from './baselines.js';
import { sleep } from './child.js';
import { measureFanout, measureIdleSockets, type WsTarget } from './fanout.js';
import type { DeliveryReport } from './fanout-clients.js';
import { type HttpLoadResult, type LoadTarget, runHttpLoad } from './http-load.js';
import {
  type BaselineWorkload,
  baselineWorkloads,
  type HttpWorkload,
  pairedWorkloads,
  serviceWorkloads,
} from './http-workloads.js';
import { INDEXED, INDEXED_PUT, putRequest, UNINDEXED, UNINDEXED_PUT_BASELINE } from './indexed-collections.js';
import { LONG_RUN_WORKLOAD, measureAlone, measureAtEnd, walFigure } from './long-run.js';
import { disconnectRows } from './on-disconnect.js';
import {
  type BenchResult,
  BOARD_READY,
  FANOUT_BURST,
  FANOUT_PACED,
  IDLE_SOCKETS,
  type Row,
  type Server,
} from './report.js';
import { OPEN_RULESET_BASELINE, rulesWorkloads } from './rules-workloads.js';
import { fromSource } from './service-entry.js';
import {
  type BenchProject,
  BOARD,
  clientHeaders,
  type PreparedDatabase,
  prepareDatabase,
  type RunningService,
  startService,
  TOURNAMENT,
} from './service-process.js';
import { type BenchSettings, type Engine, matches } from './settings.js';
import { webhookRows } from './webhooks.js';

/** The parts of a run that can be left out while developing (`--only`). */
export type Section = 'http' | 'fanout' | 'memory' | 'redis' | 'disconnect';

/** What a suite needs: the baseline process runs through the whole run, so that each service
 * workload can be measured in turns with its baseline. */
export interface SuiteContext {
  settings: BenchSettings;
  bare: BaselineServer;
  sections: ReadonlySet<Section>;
  result: BenchResult;
  log: (line: string) => void;
}

const rateOf = (report: DeliveryReport) => report.delivered / (report.elapsedMs / 1000);

/** The name of a fan-out workload at an audience: `fan-out burst, 100 subscribers`. */
export const fanoutWorkload = (workload: string, subscribers: number) =>
  `${workload}, ${subscribers.toLocaleString('en-US')} subscribers`;

/** The fan-out rows of `server`; `label` is appended to the workload names (`(CDS_WORKERS=2)`). */
export async function fanoutRows(
  context: SuiteContext,
  server: Server,
  target: WsTarget,
  baseline?: WsTarget,
  label = '',
): Promise<void> {
  const { settings, log } = context;
  for (const subscribers of settings.fanoutSubscribers) {
    log(`  fan-out: ${subscribers} subscribers, ${settings.pacedRate} writes/s, bursts of ${settings.burstWrites}`);
    const fanout = await measureFanout(target, settings, subscribers, baseline);
    for (const [workload, report, paired] of [
      [FANOUT_PACED, fanout.paced, fanout.baselinePaced],
      [FANOUT_BURST, fanout.burst, fanout.baselineBurst],
    ] as const) {
      fanoutRow(context, server, fanoutWorkload(workload, subscribers), label, report, paired);
    }
  }
}

function fanoutRow(
  context: SuiteContext,
  server: Server,
  workload: string,
  label: string,
  report: DeliveryReport,
  paired?: DeliveryReport,
) {
  const lost = report.expected - report.delivered;
  context.result.rows.push({
    workload: `${workload}${label}`,
    server,
    rate: rateOf(report),
    unit: 'deliveries/s',
    p50Ms: report.latencyP50Ms,
    p99Ms: report.latencyP99Ms,
    // The bare ws server's row of the same workload is the baseline.
    ...(server === 'baseline' ? {} : { baseline: workload }),
    ...(paired ? { pairedBaselineRate: rateOf(paired), pairedBaselineP50Ms: paired.latencyP50Ms } : {}),
    ...(lost > 0 || report.closedEarly > 0
      ? { failure: `${lost} of ${report.expected} not delivered, ${report.closedEarly} closed` }
      : {}),
  });
  context.log(
    `  ${workload}${label}: ${Math.round(rateOf(report))} deliveries/s, p50 ${report.latencyP50Ms.toFixed(2)} ms`,
  );
}

async function idleRows(
  context: SuiteContext,
  server: Server,
  target: { url: string; headers: Record<string, string> },
  child: Parameters<typeof measureIdleSockets>[1],
): Promise<void> {
  const idle = await measureIdleSockets(target, child, context.settings);
  context.result.figures.push({
    name: IDLE_SOCKETS,
    server,
    value: idle.bytesPerSocket / 1024,
    unit: 'KiB',
    detail: `${idle.sockets.toLocaleString('en-US')} sockets: RSS ${(idle.rssBeforeBytes / 2 ** 20).toFixed(0)} → ${(idle.rssAfterBytes / 2 ** 20).toFixed(0)} MiB`,
  });
  context.log(`  idle sockets: ${(idle.bytesPerSocket / 1024).toFixed(1)} KiB each`);
}

/**
 * Runs one HTTP workload against `service`, paired in turns with its bare baseline; the service's
 * CPU per request counts all its processes (CDS_WORKERS' workers with their primary).
 */
export function loadWorkload(
  context: SuiteContext,
  settings: BenchSettings,
  workload: HttpWorkload,
  service: RunningService,
  prepared: PreparedDatabase,
): Promise<HttpLoadResult> {
  const baseline = baselineWorkloads.find((bare) => bare.name === workload.baseline);
  return runHttpLoad({
    ...settings,
    ...serviceTarget(settings, workload, service, prepared),
    serverCpuSeconds: () => service.server.cpuSeconds(),
    ...(baseline ? { baselineTarget: bareTarget(context, baseline, workload.connections) } : {}),
  });
}

/** What `workload` sends to `service`, each connection (and each request's user) as one of the project's users. */
export function serviceTarget(
  settings: BenchSettings,
  workload: HttpWorkload,
  service: RunningService,
  prepared: PreparedDatabase,
): LoadTarget {
  return {
    ...workload,
    connections: workload.connections ?? settings.connections,
    baseUrl: service.baseUrl,
    headers: (c) => clientHeaders(prepared.project, c),
    userHeaders: (u) => clientHeaders(prepared.project, u),
  };
}

/** The table row of an HTTP load; a service row names its baseline and carries the paired rate. */
export function httpRow(workload: string, server: Server, load: HttpLoadResult, baseline?: string): Row {
  return {
    workload,
    server,
    rate: load.requestsPerSecond,
    unit: 'req/s',
    p50Ms: load.p50Ms,
    p99Ms: load.p99Ms,
    serverCpuUs: load.serverCpuUs,
    serverBusy: load.serverBusy,
    ...(baseline ? { baseline, pairedBaselineRate: load.baselineRate, roundRatios: load.roundRatios } : {}),
    ...(load.failure ? { failure: load.failure } : {}),
  };
}

export function bareTarget(
  context: SuiteContext,
  workload: BaselineWorkload,
  connections = context.settings.connections,
) {
  return { ...workload, baseUrl: context.bare.httpUrl, headers: () => ({}), connections };
}

/** Each rules workload on the owner-ruleset project, in turns with the same requests on the open one. */
async function rulesRows(context: SuiteContext, engine: Server, service: RunningService, prepared: PreparedDatabase) {
  const { settings, result, log } = context;
  const { open, owner, documents } = prepared.rules;
  for (const workload of rulesWorkloads(documents)) {
    if (!matches(settings, workload.name)) continue;
    const target = (project: BenchProject) => ({
      ...workload,
      baseUrl: service.baseUrl,
      headers: (c: number) => clientHeaders(project, c),
      connections: settings.connections,
    });
    // `runHttpLoad` warms only its own target: warm the open project's requests too.
    await runHttpLoad({ ...settings, ...target(open), warmupSeconds: 0, durationSeconds: settings.warmupSeconds });
    const load = await runHttpLoad({
      ...settings,
      ...target(owner),
      serverCpuSeconds: () => service.server.cpuSeconds(),
      baselineTarget: target(open),
    });
    result.rows.push(httpRow(workload.name, engine, load, OPEN_RULESET_BASELINE));
    log(
      `  ${workload.name}: ${Math.round(load.requestsPerSecond)} req/s${load.failure ? ` FAILED ${load.failure}` : ''}`,
    );
  }
}

/**
 * Each §18 workload in turns with the service workload it is judged against (around me and the
 * chosen set against one player's rank, the tournament's submission against a plain one), so the
 * ratio of their rates is measured in one run under the same conditions.
 */
async function pairedRows(context: SuiteContext, engine: Server, service: RunningService, prepared: PreparedDatabase) {
  const { settings, result, log } = context;
  const references = serviceWorkloads(settings);
  for (const paired of pairedWorkloads(settings)) {
    if (!matches(settings, paired.name)) continue;
    const reference = references.find((w) => w.name === paired.reference);
    if (!reference) throw new Error(`no workload named '${paired.reference}'`);
    const target = (workload: HttpWorkload) => serviceTarget(settings, workload, service, prepared);
    const workload: HttpWorkload = { ...paired, baseline: reference.baseline };
    // `runHttpLoad` warms only its own target: warm the reference's requests too.
    await runHttpLoad({ ...settings, ...target(reference), warmupSeconds: 0, durationSeconds: settings.warmupSeconds });
    const load = await runHttpLoad({
      ...settings,
      ...target(workload),
      serverCpuSeconds: () => service.server.cpuSeconds(),
      baselineTarget: target(reference),
    });
    result.rows.push(httpRow(paired.name, engine, load, reference.name));
    log(
      `  ${paired.name}: ${Math.round(load.requestsPerSecond)} req/s${load.failure ? ` FAILED ${load.failure}` : ''}`,
    );
  }
}

/** §16: a PUT through a no-op `documents.write` hook, in turns with the same PUT on a project without hooks. */
async function hookedPutRow(
  context: SuiteContext,
  engine: Server,
  service: RunningService,
  prepared: PreparedDatabase,
) {
  const { settings, result, log } = context;
  if (!matches(settings, HOOKED_PUT)) return;
  const load = await putInTurnsWithOpenProject(context, service, prepared, HOOKED_PUT, prepared.hooked);
  result.rows.push(httpRow(HOOKED_PUT, engine, load, 'document PUT (no hook)'));
  log(`  ${HOOKED_PUT}: ${Math.round(load.requestsPerSecond)} req/s${load.failure ? ` FAILED ${load.failure}` : ''}`);
}

/**
 * The rules workloads' document PUT on `project`, in turns with the same PUT on the open-rules
 * project (same documents, nothing else on it): what `project`'s setting (a hook, a webhook) costs.
 */
export async function putInTurnsWithOpenProject(
  context: SuiteContext,
  service: RunningService,
  prepared: PreparedDatabase,
  name: string,
  project: BenchProject,
): Promise<HttpLoadResult> {
  const { settings } = context;
  const put = rulesWorkloads(prepared.rules.documents).find((w) => w.name.startsWith('document PUT'));
  if (!put) throw new Error('no document PUT among the rules workloads');
  const target = (on: BenchProject) => ({
    name,
    expectStatus: 200,
    request: put.request,
    baseUrl: service.baseUrl,
    headers: (c: number) => clientHeaders(on, c),
    connections: settings.connections,
  });
  const reference = target(prepared.rules.open);
  await runHttpLoad({ ...settings, ...reference, warmupSeconds: 0, durationSeconds: settings.warmupSeconds });
  return runHttpLoad({
    ...settings,
    ...target(project),
    serverCpuSeconds: () => service.server.cpuSeconds(),
    baselineTarget: reference,
  });
}

const HOOKED_PUT = 'document PUT with a no-op documents.write hook';

/** A PUT into an indexed collection, in turns with the same PUT into one without indexes (§15). */
async function indexedPutRow(
  context: SuiteContext,
  engine: Server,
  service: RunningService,
  prepared: PreparedDatabase,
) {
  const { settings, result, log } = context;
  if (!matches(settings, INDEXED_PUT)) return;
  const target = (collection: string) => ({
    name: INDEXED_PUT,
    expectStatus: 200,
    request: putRequest(collection, settings.documents),
    baseUrl: service.baseUrl,
    headers: (c: number) => clientHeaders(prepared.project, c),
    connections: settings.connections,
  });
  await runHttpLoad({ ...settings, ...target(UNINDEXED), warmupSeconds: 0, durationSeconds: settings.warmupSeconds });
  const load = await runHttpLoad({
    ...settings,
    ...target(INDEXED),
    serverCpuSeconds: () => service.server.cpuSeconds(),
    baselineTarget: target(UNINDEXED),
  });
  result.rows.push(httpRow(INDEXED_PUT, engine, load, UNINDEXED_PUT_BASELINE));
  log(`  ${INDEXED_PUT}: ${Math.round(load.requestsPerSecond)} req/s${load.failure ? ` FAILED ${load.failure}` : ''}`);
}

/** Bare Fastify routes, bare ws, and Redis. */
export async function runBaselineSuite(context: SuiteContext): Promise<void> {
  const { settings, sections, result, log, bare } = context;
  log('baselines');
  if (sections.has('http')) {
    for (const workload of baselineWorkloads) {
      const load = await runHttpLoad({
        ...settings,
        ...bareTarget(context, workload),
        serverCpuSeconds: () => bare.server.cpuSeconds(),
      });
      result.rows.push(httpRow(workload.name, 'baseline', load));
      log(`  ${workload.name}: ${Math.round(load.requestsPerSecond)} req/s`);
    }
  }
  const target = { url: bare.wsUrl, headers: {} };
  if (sections.has('fanout')) await fanoutRows(context, 'baseline', target);
  if (sections.has('memory')) await idleRows(context, 'baseline', target, bare.server);
  if (sections.has('redis')) {
    for (const redis of await runRedisBaselines(settings, log)) {
      result.rows.push({
        workload: `redis ${redis.command}`,
        server: 'redis',
        rate: redis.requestsPerSecond,
        unit: 'ops/s',
        p50Ms: redis.p50Ms,
        p99Ms: redis.p99Ms,
      });
    }
  }
}

/** How long the datasets took to load and index (setup, not targets). */
function loadFigures(context: SuiteContext, engine: Engine, prepared: PreparedDatabase): void {
  const { settings, result } = context;
  result.figures.push({
    name: 'bulk load of the datasets (setup, not a target)',
    server: engine,
    value: prepared.loadSeconds,
    unit: 's',
  });
  result.figures.push({
    name: `bulk load of the §15 collections (${settings.documents.toLocaleString('en-US')} × 2 and ${settings.largeDocuments.toLocaleString('en-US')} documents; setup, not a target)`,
    server: engine,
    value: prepared.indexed.loadSeconds,
    unit: 's',
  });
  if (prepared.seed) {
    const { seconds, walMiB } = prepared.seed;
    const what = `${settings.documents.toLocaleString('en-US')} documents, ${settings.treeLeaves.toLocaleString('en-US')} realtime leaves, ${settings.boardEntries.toLocaleString('en-US')} board entries and users`;
    result.figures.push({
      name: `import of the seed (${what}; setup, not a target)`,
      server: engine,
      value: seconds,
      unit: 's',
    });
    if (walMiB !== null) {
      result.figures.push({
        name: 'SQLite WAL once the seed import returned',
        server: engine,
        value: walMiB,
        unit: 'MiB',
      });
    }
  }
  for (const build of prepared.indexed.buildSeconds) {
    result.figures.push({
      name: `index build over ${build.documents.toLocaleString('en-US')} documents (§15; not a target)`,
      server: engine,
      value: build.seconds,
      unit: 's',
    });
  }
}

/** Start-up until the board's ranks are warm, and the RSS after it. */
async function boardFigures(
  context: SuiteContext,
  engine: Engine,
  service: RunningService,
  headers: Record<string, string>,
): Promise<void> {
  const { settings, result, log } = context;
  // The board's ranks load in the background after start; a page request waits for them.
  const middle = Math.floor(settings.boardEntries / 2);
  const probe = await fetch(`${service.baseUrl}/leaderboards/${BOARD}/users?limit=1&offset=${middle}`, { headers });
  const page = (await probe.json()) as { users?: { rank: number }[] };
  const warmMs = performance.now() - service.spawnedAt;
  if (page.users?.[0]?.rank !== middle + 1) throw new Error(`board probe answered ${JSON.stringify(page)}`);
  result.figures.push({
    name: BOARD_READY,
    server: engine,
    value: warmMs,
    unit: 'ms',
    detail: `/readyz after ${(service.readyMs / 1000).toFixed(2)} s${fromSource ? ' (includes tsx compiling the sources)' : ''}`,
  });
  log(`  ready in ${service.readyMs.toFixed(0)} ms, board warm at ${warmMs.toFixed(0)} ms`);
  // The tournament's ranks warm after the board's (boards in id order): no workload shares the CPU with them.
  const cup = await fetch(`${service.baseUrl}/leaderboards/${TOURNAMENT}/users?limit=1&offset=${middle}`, { headers });
  const cupPage = (await cup.json()) as { users?: { rank: number }[] };
  if (cupPage.users?.[0]?.rank !== middle + 1) throw new Error(`tournament probe answered ${JSON.stringify(cupPage)}`);
  log(`  tournament board warm at ${(performance.now() - service.spawnedAt).toFixed(0)} ms`);
  await sleep(settings.settleMs);
  result.figures.push({
    name: `RSS with the ${settings.boardEntries.toLocaleString('en-US')}-entry board and the tournament board of as many loaded`,
    server: engine,
    value: service.server.rss() / 2 ** 20,
    unit: 'MiB',
    detail: 'after start-up, before any other load',
  });
}

/** The service on one engine: prepared, started, measured, stopped, dropped. */
export async function runServiceSuite(context: SuiteContext, engine: Engine): Promise<void> {
  const { settings, sections, result, log } = context;
  log(`service on ${engine}: ${settings.datasets ? 'loading data' : 'no datasets'}`);
  const prepared = await prepareDatabase(engine, settings);
  if (settings.datasets) loadFigures(context, engine, prepared);
  try {
    const service = await startService(prepared, settings.profileDir, settings.workers);
    try {
      const headers = clientHeaders(prepared.project);
      if (settings.datasets) await boardFigures(context, engine, service, headers);
      const target = { url: service.wsUrl, headers };
      const longRun = sections.has('http') && settings.datasets && matches(settings, LONG_RUN_WORKLOAD);
      // Idle sockets first: their RSS figure wants the heap as start-up left it.
      if (sections.has('memory')) await idleRows(context, engine, target, service.server);
      const alone = longRun ? await measureAlone(context, engine, service, prepared) : null;
      if (sections.has('http')) {
        const workloads = serviceWorkloads(settings).filter((w) => matches(settings, w.name));
        for (const workload of workloads) {
          const load = await loadWorkload(context, settings, workload, service, prepared);
          result.rows.push(httpRow(workload.name, engine, load, workload.baseline));
          log(
            `  ${workload.name}: ${Math.round(load.requestsPerSecond)} req/s${load.failure ? ` FAILED ${load.failure}` : ''}`,
          );
        }
      }
      if (sections.has('http')) await pairedRows(context, engine, service, prepared);
      if (sections.has('http')) await indexedPutRow(context, engine, service, prepared);
      if (sections.has('http')) await rulesRows(context, engine, service, prepared);
      if (sections.has('http')) await hookedPutRow(context, engine, service, prepared);
      if (sections.has('http')) await webhookRows(context, engine, service, prepared);
      if (sections.has('fanout')) await fanoutRows(context, engine, target, { url: context.bare.wsUrl, headers: {} });
      if (sections.has('disconnect')) await disconnectRows(context, engine, service, headers);
      if (alone) await measureAtEnd(context, engine, service, prepared, alone);
      if (prepared.seed?.walMiB != null) walFigure(context, engine, prepared);
    } finally {
      const code = await service.server.stop();
      if (code !== 0) log(`  service exited with ${code}; log: ${service.server.logFile}`);
    }
  } finally {
    await prepared.drop();
  }
}
